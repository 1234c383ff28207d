"""A spec's `alert` statements read once into plans the monitor applies.

A per-case alert fires for a case whose condition held (the interpreter fills
`CaseResult.alerts`); a windowed alert compares its metric's value in one
window of arrival time and one group with a constant, and may fire only when
that group's denominator in the window has reached `min`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

from evaldsl.runtime.graph import Graph
from evaldsl.syntax import nodes as n

_OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


@dataclass(frozen=True)
class CaseAlert:
    name: str
    message: str


@dataclass(frozen=True)
class WindowAlert:
    name: str
    message: str
    metric: str
    op: str
    limit: float
    seconds: int
    min_cases: int
    """The fewest cases in a group's denominator before the alert may fire."""

    def holds(self, value: float | None, denominator: int) -> bool:
        """Whether a window's value fires: known, past the line, over enough cases."""
        return value is not None and denominator >= self.min_cases and _OPS[self.op](
            value, self.limit)


@dataclass(frozen=True)
class AlertPlans:
    per_case: tuple[CaseAlert, ...]
    windowed: tuple[WindowAlert, ...]

    @property
    def durations(self) -> tuple[int, ...]:
        """The distinct window lengths in seconds, shortest first."""
        return tuple(sorted({a.seconds for a in self.windowed}))


def alert_plans(graph: Graph) -> AlertPlans:
    """The plans of a checked spec's alerts (the checker vetted their form: E601, E602)."""
    per_case = tuple(CaseAlert(a.name, a.message) for a in graph.alerts if a.window is None)
    windowed = tuple(_windowed(graph, a, a.window) for a in graph.alerts if a.window is not None)
    return AlertPlans(per_case, windowed)


def _windowed(graph: Graph, alert: n.Alert, window: n.AlertWindow) -> WindowAlert:
    when, metric = n.ordering(alert.when), alert.metric_name()
    assert when is not None and metric is not None, "checked by E601"
    limit = graph.facts.number(when.right)
    assert limit is not None, "checked by E601"
    least = int(window.min_cases.value) if window.min_cases is not None else 1
    return WindowAlert(alert.name, alert.message, metric, when.op, limit,
                       window.seconds, least)
