"""Laws of the three-valued logic, on the operators and on compiled specs."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import evaldsl
from evaldsl.runtime.closures import and_chain, or_chain
from evaldsl.runtime.logic import (
    PENDING,
    PENDING_RESULT,
    and_pair,
    and_values,
    first_unknown,
    formula_arith,
    not_value,
    or_pair,
    or_values,
    within,
)
from evaldsl.values import CheckResult, ErrorValue
from tests.support import interpreter_kit as kit

ERR = ErrorValue("e")
known = st.sampled_from([True, False, ERR])
with_pending = st.sampled_from([True, False, ERR, PENDING])
probe_values = st.sampled_from([0.0, 1.0, "error"])


def kind(v: Any) -> str:
    """Values compared by kind: every error is the same unknown."""
    return "error" if type(v) is ErrorValue else "pending" if v is PENDING else str(v)


class TestOperatorLaws:
    @settings(deadline=None)
    @given(with_pending, with_pending)
    def test_law_and_or_commutativity(self, a: Any, b: Any) -> None:
        """Law: `a and b` = `b and a` and `a or b` = `b or a`, errors and pending included."""
        assert kind(and_values([a, b])) == kind(and_values([b, a]))
        assert kind(or_values([a, b])) == kind(or_values([b, a]))

    @settings(deadline=None)
    @given(known, known, known)
    def test_law_and_or_associativity(self, a: Any, b: Any, c: Any) -> None:
        """Law: chains group either way."""
        left = and_values([and_values([a, b]), c])
        assert kind(left) == kind(and_values([a, and_values([b, c])]))
        assert kind(or_values([or_values([a, b]), c])) == kind(or_values([a, or_values([b, c])]))

    @settings(deadline=None)
    @given(known, known)
    def test_law_absorption_with_errors(self, a: Any, b: Any) -> None:
        """Law: `a and (a or b)` = `a` and `a or (a and b)` = `a`."""
        assert kind(and_values([a, or_values([a, b])])) == kind(a)
        assert kind(or_values([a, and_values([a, b])])) == kind(a)

    @settings(deadline=None)
    @given(known, known)
    def test_law_de_morgan(self, a: Any, b: Any) -> None:
        """Law: `not (a and b)` = `not a or not b`; `not (a or b)` = `not a and not b`."""
        assert kind(not_value(and_values([a, b]))) == kind(or_values([not_value(a), not_value(b)]))
        assert kind(not_value(or_values([a, b]))) == kind(and_values([not_value(a), not_value(b)]))

    def test_law_false_and_error_is_false_true_or_error_is_true(self) -> None:
        """Law (CEL): `false and error` = false; `true or error` = true; else the error stays."""
        assert and_values([ERR, False]) is False
        assert or_values([ERR, True]) is True
        assert and_values([True, ERR]) is ERR
        assert or_values([False, ERR]) is ERR

    def test_law_pending_beats_error_in_logic(self) -> None:
        """Law: `error and pending` is pending, because the pending side may be false."""
        assert and_values([ERR, PENDING]) is PENDING
        assert or_values([ERR, PENDING]) is PENDING
        assert and_values([False, PENDING]) is False
        assert or_values([True, PENDING]) is True

    @settings(deadline=None)
    @given(with_pending, with_pending)
    def test_law_a_pair_is_a_chain_of_two(self, a: Any, b: Any) -> None:
        """Law: the two-operand functions the closures call agree with the chains."""
        assert kind(and_pair(a, b)) == kind(and_values([a, b]))
        assert kind(or_pair(a, b)) == kind(or_values([a, b]))

    @settings(deadline=None)
    @given(st.lists(with_pending, min_size=1, max_size=6))
    def test_law_a_compiled_chain_is_the_chain_of_its_operands(self, values: list[Any]) -> None:
        """Law: `and_chain` / `or_chain` give what `and_values` / `or_values` give, reading
        the operands in order and none after the one that decides."""
        for build, combine, decides in ((and_chain, and_values, False),
                                        (or_chain, or_values, True)):
            read: list[int] = []

            def operand(k: int, read: list[int] = read) -> Any:
                def fn(fr: Any) -> Any:
                    read.append(k)
                    return values[k]
                return fn
            got = build(tuple(operand(k) for k in range(len(values))))(None)  # type: ignore[arg-type]
            assert kind(got) == kind(combine(values))
            stop = next((k for k, v in enumerate(values) if v is decides), len(values) - 1)
            assert read == list(range(stop + 1))

    def test_law_error_beats_pending_in_strict_operators(self) -> None:
        """Law: in arithmetic and comparison the error decides; pending waits only for values."""
        assert first_unknown(PENDING, ERR) is ERR
        assert first_unknown(1, PENDING) is PENDING
        assert first_unknown(1, 2) is None


class TestOtherNonValues:
    def test_within_attributes_an_error_to_its_branch(self) -> None:
        """An error that decides a block names the branch; pending stays pending."""
        assert within(ErrorValue("timeout", "intent"), "ok if intent") == \
            ErrorValue("intent: timeout", "ok if intent")
        assert within(PENDING, "ok if intent") is PENDING

    def test_formula_unknown_propagates(self) -> None:
        """In a metric formula, unknown (None) propagates and `x / 0` is unknown."""
        assert formula_arith("+", None, 1.0) is None
        assert formula_arith("/", 1.0, 0.0) is None
        assert formula_arith("*", 2.0, 0.25) == 0.5

    def test_an_undecided_result_has_every_field_undecided(self) -> None:
        """`CheckResult.get`: a pending or error result gives its non-value for any field."""
        assert PENDING_RESULT.get("label") is PENDING
        failed = CheckResult.error("timeout", "intent")
        assert failed.get("label") is failed.passed
        assert CheckResult.of(True).get("label", "intent") == \
            ErrorValue("the result has no field `label`", "intent")


def _spec(condition: str) -> evaldsl.Spec:
    k = kit.make_kit()
    text = f"""
check a = probe(key: "a")
check b = probe(key: "b")
check c = ask(key: "c")
outcome {{
  yes if {condition}
  no otherwise
}}
"""
    return evaldsl.loads(text, registry=k.registry, runtime=kit.CountingRuntime())


PAIRS = [
    ("a and b", "b and a"),
    ("a or b", "b or a"),
    ("a and (a or b)", "a"),
    ("a or (a and b)", "a"),
    ("not (a and b)", "not a or not b"),
    ("not (a or b)", "not a and not b"),
    ("c and a", "a and c"),
    ("c or a", "a or c"),
    ("not (c and a)", "not c or not a"),
]
SPECS = [(_spec(left), _spec(right)) for left, right in PAIRS]


class TestCompiledLaws:
    @settings(deadline=None)
    @given(probe_values, probe_values, probe_values)
    def test_law_commutativity_absorption_de_morgan_in_specs(self, a: Any, b: Any, c: Any) -> None:
        """Law: equivalent conditions give the same label on every case, errors included."""
        case = kit.case("x", a=a, b=b, c=c)
        for (left, right), (ls, rs) in zip(PAIRS, SPECS, strict=True):
            assert ls.evaluate(case).label == rs.evaluate(case).label, (left, right, a, b, c)

    def test_error_outcome_when_condition_depends_on_error(self) -> None:
        spec = _spec("a and b")
        assert spec.evaluate(kit.case("x", a=1.0, b="error")).label == "error"
        assert spec.evaluate(kit.case("x", a=0.0, b="error")).label == "no"
