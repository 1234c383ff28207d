"""`alert` statements: a windowed alert compares a metric with a constant.

A per-case alert's condition is an ordinary per-case condition, checked by the
name and type rules like an outcome branch (`Site` role `alert`). A windowed
alert (`over 1h`) is judged on a metric's value in each window and group, so
its condition must be exactly `METRIC OP NUMBER`: the monitor folds the
metric's per-case inputs into window states and compares the value. The
metric is declared, or written in place (`rate(poor) > 10% over 1h by
case.tenant`); the builder makes the latter the alert's own metric, which the
metric rules check like any other.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from evaldsl.checker.facts.consts import number_of
from evaldsl.checker.facts.context import Context
from evaldsl.diagnostics import Diagnostic, error, warning
from evaldsl.i18n import _
from evaldsl.syntax import nodes as n


class Threshold(NamedTuple):
    """A windowed alert's condition read as `metric op limit`."""

    metric: str
    op: str
    limit: float


def threshold_of(alert: n.Alert, ctx: Context) -> Threshold | None:
    """`METRIC OP NUMBER` of a windowed alert's condition, or None when it is not that form."""
    when, metric = n.ordering(alert.when), alert.metric_name()
    if when is None or metric is None or metric not in ctx.symbols.metrics:
        return None
    limit = number_of(when.right, ctx)
    return None if limit is None else Threshold(metric, when.op, limit)


def windowed_conditions(ctx: Context) -> Iterator[Diagnostic]:
    """E601: a windowed alert whose condition is not `METRIC OP NUMBER`, or that groups a
    declared metric again (its `by` is the metric's own)."""
    for alert in ctx.module.of_type(n.Alert):
        if alert.window is None:
            continue
        if threshold_of(alert, ctx) is None:
            metrics = ", ".join(f"`{m}`" for m in ctx.symbols.metrics
                                if m != alert.name) or _("none")
            yield error(
                "E601",
                _("a windowed alert must compare a metric with a constant"),
                alert.when.span,
                _("write the aggregate in place, `when rate(poor) > 10% over 1h by "
                  "case.tenant`, or name a declared metric; metrics of this spec: "
                  "{metrics}").format(metrics=metrics),
            )
        elif alert.metric is None and alert.window.by:
            yield error(
                "E601",
                _("`by` groups an aggregate written in the alert, not a declared metric"),
                alert.window.by[0].span,
                _("a declared metric's groups are its own `by`; move the `by` there, or "
                  "write the aggregate in the alert"),
            )


def window_sizes(ctx: Context) -> Iterator[Diagnostic]:
    """E602: a window of no time, or a minimum denominator that is no whole number >= 1."""
    for alert in ctx.module.of_type(n.Alert):
        window = alert.window
        if window is None:
            continue
        if window.seconds <= 0:
            yield error("E602", _("the window `{w}` holds no time").format(w=window.text),
                        window.span, _("give a duration such as `15m` or `1h`"))
        least = window.min_cases
        if least is not None and (least.value < 1 or least.value != int(least.value)):
            yield error("E602",
                        _("`min {n}` is not a whole number of cases").format(n=least.text),
                        least.span, _("write the fewest cases a window needs, e.g. `min 30`"))


def duplicate_alerts(ctx: Context) -> Iterator[Diagnostic]:
    """E603: two alerts with one name: fired alerts are keyed by name, so one would hide the
    other."""
    seen: dict[str, n.Alert] = {}
    for alert in ctx.module.of_type(n.Alert):
        first = seen.setdefault(alert.name, alert)
        if first is not alert:
            yield error(
                "E603",
                _("the alert `{name}` is already defined on line {line}").format(
                    name=alert.name, line=first.span.line),
                alert.name_span,
                _("give each alert its own name"),
            )


def alerts_on_improvement(ctx: Context) -> Iterator[Diagnostic]:
    """W107: a windowed alert that fires when its metric gets better by the direction the
    metric declares (`violation_rate < 5%` where `lower is better`): an alert is for a
    metric going the worse way. Only a written direction is read: an unwritten one is the
    default, not a statement about the metric."""
    for alert in ctx.module.of_type(n.Alert):
        found = threshold_of(alert, ctx) if alert.window is not None else None
        metric = ctx.symbols.metrics.get(found.metric) if found is not None else None
        if found is None or metric is None or metric.direction is None:
            continue
        improving = ("<", "<=") if metric.lower_is_better else (">", ">=")
        if found.op in improving:
            worse = ">" if metric.lower_is_better else "<"
            yield warning(
                "W107",
                _("the alert `{alert}` fires when `{metric}` gets better ({direction})").format(
                    alert=alert.name, metric=metric.name, direction=metric.direction),
                alert.when.span,
                _("an alert watches a metric going the worse way: `{metric} {op} ...`").format(
                    metric=metric.name, op=worse),
            )
