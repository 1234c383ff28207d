"""A formula metric built by hand: 10 cases, 6 successes and 2 partials, parts known."""

from __future__ import annotations

from evaldsl.runtime.aggregation import AggregateSpec, MetricPlan, MetricState

TEMPLATE = "{0} + 0.5 × {1}"
BREAKDOWN = "rate(success) 0.6 (6/10) + 0.5 × rate(partial) 0.2 (2/10)"
"""The parts of `CASES` written out: 6 of 10 succeeded, 2 of 10 were partial."""
CASES = [(True, False)] * 6 + [(False, True)] * 2 + [(False, False)] * 2


def plan(name: str = "success_rate") -> MetricPlan:
    """`rate(success) + 0.5 * rate(partial)` as `metrics.compile_metric` plans it."""
    return MetricPlan(name, (AggregateSpec("rate"), AggregateSpec("rate")),
                      lambda v: None if None in v else v[0] + 0.5 * v[1],  # type: ignore[operator]
                      None, "rate(success) + 0.5 * rate(partial)",
                      ("rate(success)", "rate(partial)"), TEMPLATE)


def state(cases: list[tuple[bool, bool]] = CASES) -> MetricState:
    out = MetricState(plan())
    for case in cases:
        out.add_values(case)
    return out
