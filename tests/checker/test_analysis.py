"""The facts the checker hands the runtime (`checker.facts.analysis`)."""

from __future__ import annotations

import pytest

from evaldsl.cases.scopes import Scope
from evaldsl.checker import Analysis, analyse_module
from evaldsl.checker.facts.consts import NOT_CONSTANT
from evaldsl.primitives.registry import default_registry
from evaldsl.primitives.valuetypes import ValueType as T
from evaldsl.syntax import nodes as n
from evaldsl.syntax.parser import parse

SPEC = """\
let limit = 3
let who = case.name
check hello = keyword(scope: (last_reply), any: ["hi"])
check early = keyword(scope: turn((2)), any: ["hi"])
check long = length(max_chars: 200)
check few = turns(max: limit)
outcome {
  ok if hello and long
  bad otherwise
}
"""


def analysis(text: str = SPEC) -> Analysis:
    parsed = parse(text, "a.eval")
    assert parsed.module is not None
    checked = analyse_module(parsed.module, parsed.source, default_registry())
    assert checked.analysis is not None, checked.diagnostics
    return checked.analysis


class TestAnalysis:
    def test_no_facts_for_a_spec_with_errors(self) -> None:
        """The runtime is never handed facts about a spec the checker rejected."""
        parsed = parse('check k = keyword(scope: nowhere, any: ["hi"])\n', "a.eval")
        assert parsed.module is not None
        checked = analyse_module(parsed.module, parsed.source, default_registry())
        assert checked.analysis is None
        assert [d.code for d in checked.diagnostics] == ["E210"]

    def test_scopes_read_through_parentheses_and_default(self) -> None:
        """Each check's scope: its own `scope:` (parentheses allowed), else the default."""
        checks = analysis().checks
        assert checks["hello"].scope == Scope("last_reply")
        assert checks["early"].scope == Scope("turn", 2)
        assert checks["long"].scope == Scope(checks["long"].primitive.default_scope or "dialog")

    def test_arguments_are_folded_and_validated(self) -> None:
        """A let made of literals is a constant argument, validated once."""
        few = analysis().checks["few"]
        assert few.constants == {"max": 3}
        assert few.dynamic == ()
        assert few.params is not None

    def test_per_case_and_constant_values(self) -> None:
        """`case.name` differs per case; `limit` is the folded constant 3."""
        facts = analysis()
        assert facts.let_per_case("who") and not facts.let_per_case("limit")
        assert facts.let_value("limit") == 3
        assert facts.let_value("who") is NOT_CONSTANT

    @pytest.mark.parametrize(("index", "expected"), [(0, T.BOOL), (1, T.CHECK)])
    def test_types_of_expressions(self, index: int, expected: T) -> None:
        """The checker's type of every expression, as the compiler reads it."""
        facts = analysis()
        condition = facts.symbols.outcomes[None].branches[0].condition
        assert isinstance(condition, n.Binary)
        assert facts.type_of([condition, condition.left][index]) is expected
