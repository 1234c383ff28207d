"""`metric` statements compiled: a single aggregate, or a formula with parts."""

from __future__ import annotations

import pytest

import evaldsl
from evaldsl.runtime.aggregation import MetricPlan

SPEC = """
check a = keyword(any: ["x"])
check b = keyword(any: ["y"])
outcome {
  success if a
  partial if b
  failure otherwise
}
metric mixed = rate(success) + 0.5 * rate(partial)
metric grouped = (rate(success))
metric plain = rate(a) where b
metric nested = -(mean(a) - 2 * max(b)) / 4
"""


@pytest.fixture(scope="module")
def plans() -> dict[str, MetricPlan]:
    spec = evaldsl.loads(SPEC)
    return {m.name: m for m in spec.new_report(details=False).plan.metrics}


class TestFormulaPlan:
    def test_a_formula_has_its_parts_in_a_template(self, plans: dict[str, MetricPlan]) -> None:
        mixed = plans["mixed"]
        assert mixed.is_formula
        assert (mixed.template, mixed.parts) == ("{0} + 0.5 × {1}",
                                                 ("rate(success)", "rate(partial)"))

    def test_a_single_aggregate_is_not_a_formula(self, plans: dict[str, MetricPlan]) -> None:
        """Even in parentheses or with `where`: it keeps its numerator and Wilson interval."""
        for name in ("grouped", "plain"):
            assert not plans[name].is_formula
            assert plans[name].template is None

    def test_the_template_follows_the_aggregates(self, plans: dict[str, MetricPlan]) -> None:
        nested = plans["nested"]
        assert nested.template == "-({0} - 2 × {1}) / 4"
        assert nested.parts == ("mean(a)", "max(b)")
        assert [a.kind for a in nested.aggregates] == ["mean", "max"]
