"""The check-then-load law: a spec `evaldsl check` accepts loads and evaluates without raising.

The checker is the only semantic analysis, so `load` cannot reject what
`check` passed; these tests hold that promise on the named regressions, the
good corpus, the shipped specs and generated specs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evaldsl
from evaldsl.cases.case import Case
from evaldsl.cases.rows import CaseSchema
from evaldsl.checker import check_source
from evaldsl.model.requests import ModelRequest, ModelStats
from evaldsl.values import CheckResult
from tests.strategies import specs

ROOT = Path(__file__).resolve().parents[2]
SPEC_FILES = sorted([*(ROOT / "tests" / "corpus" / "good").glob("*.eval"),
                     *(ROOT / "specs").glob("*.eval")])
CASE = {"id": "c1", "messages": [{"role": "user", "content": "hi"},
                                 {"role": "assistant", "content": "hello, how can I help?"}]}


def loads_if_checked(text: str, name: str = "law.eval") -> evaldsl.Spec | None:
    """The loaded spec when the checker finds no error, else None (nothing to promise)."""
    _, found = check_source(text, name)
    if any(d.is_error for d in found):
        return None
    return evaldsl.loads(text, name=name)


class TestCheckedSpecsLoad:
    @pytest.mark.parametrize("scope", ["(last_reply)", "turn((2))", "((turn(1)))"])
    def test_parenthesised_scopes_load(self, scope: str) -> None:
        """A scope in parentheses passes the checker, so it loads (it raised E210)."""
        text = f'check k = keyword(scope: {scope}, any: ["hi"])\n' \
               "outcome {\n  ok if k\n  bad otherwise\n}\n"
        spec = loads_if_checked(text)
        assert spec is not None
        assert spec.evaluate(CASE).labels["outcome"] in ("ok", "bad")

    @pytest.mark.parametrize("part", ['["a"][0]', "w.text", "w.number", "[1, 2][1]"])
    def test_constant_parts_of_metric_formulas(self, part: str) -> None:
        """A formula's constant part either fails the check or loads (text failed only at load)."""
        text = ('let w = {text: "x", number: 2}\ncheck k = keyword(any: ["hi"])\n'
                f"metric m = rate(k) * {part}\n")
        evaluates(text)


class AnsweringRuntime:
    """A model runtime that answers every model check the same way, without a network."""

    async def resolve(self, case: Case, requests: Sequence[ModelRequest]) -> list[CheckResult]:
        return [CheckResult.of(True, 0.8, 4, "answered by the law's runtime") for _ in requests]

    def stats(self) -> ModelStats:
        return ModelStats()


def evaluates(text: str, name: str = "law.eval") -> None:
    """Check `text`; when it has no error, load it, evaluate two cases and aggregate them."""
    _, found = check_source(text, name)
    if any(d.is_error for d in found):
        return
    spec = evaldsl.loads(text, name=name, runtime=AnsweringRuntime())
    case = fitting_case(spec)
    spec.evaluate(case)
    spec.run([case, {**case, "id": "c2", "messages": []}]).to_dict()


SAMPLE_VALUES = {"text": "x", "number": 1, "bool": True, "list": [], "map": {}}


def fitting_case(spec: evaldsl.Spec) -> dict[str, object]:
    """`CASE` with a value for every field the spec's `case {}` block declares: a case that
    lacks one is a data error (as in a case file), not something the law is about."""
    fields = CaseSchema.of(spec).fields
    return {**CASE, **{name: SAMPLE_VALUES.get(kind, "x") for name, (kind, _) in fields.items()}}


@st.composite
def parenthesised_specs(draw: st.DrawFn) -> str:
    """Generated specs, some with their scopes in parentheses (the checker reads through them)."""
    text = draw(specs())
    if draw(st.booleans()):
        text = re.sub(r"scope: ([a-z_]+(?:\(\d+\))?)", r"scope: (\1)", text)
    return text


LAW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class TestCheckThenLoadLaw:
    @LAW
    @given(parenthesised_specs())
    def test_law_generated_specs(self, text: str) -> None:
        """Law: a generated spec the checker accepts loads and evaluates without raising."""
        evaluates(text)

    @pytest.mark.parametrize("path", SPEC_FILES, ids=lambda p: p.name)
    def test_law_corpus_and_shipped_specs(self, path: Path) -> None:
        """Law: every good corpus spec and every shipped spec loads and evaluates."""
        evaluates(path.read_text(encoding="utf-8"), path.name)
