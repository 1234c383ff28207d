"""A metric's figures in words, as every report shows them: its value (a percentage for a
rate), its interval, a formula's parts and which way is better."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaldsl.i18n import _
from evaldsl.report.document import CheckSummary, Interval, Judges, Metric
from evaldsl.stats import breakdown, number, percent


def metric_value(m: Metric) -> str:
    return shown(m.is_rate, m.value)

def shown(is_rate: bool, value: float | None) -> str:
    """A value of a metric as its own value is shown: a percentage for rates."""
    return percent(value) if is_rate else number(value)

def interval_span(m: Metric, sep: str = " – ") -> str:
    """`47.0% – 75.8%`, with `(bootstrap)` after a formula metric's interval; empty without."""
    return span_of(m.interval, m.is_rate, sep)

def span_of(interval: Interval | None, is_rate: bool, sep: str = " – ") -> str:
    """An interval of a metric (or of one of its groups) in words; empty for none."""
    if not interval:
        return ""
    span = f"{shown(is_rate, interval.low)}{sep}{shown(is_rate, interval.high)}"
    return span + _(" (bootstrap)") if interval.method == "bootstrap" else span

def parts_of(m: Metric) -> str | None:
    """A formula metric's parts in its expression (`rate(a) 0.6 (6/10) + 0.5 × ...`)."""
    if m.template is None:
        return None
    return breakdown(m.template, [{"aggregate": p.aggregate, "value": p.value,
                                   "numerator": p.numerator, "denominator": p.denominator}
                                  for p in m.parts or ()])

def better_note(better: object) -> str:
    """` (lower is better)` after a metric written so (its `better` is `lower`), else
    nothing: a reader of a figure should not have to guess which way is good."""
    return " " + _("(lower is better)") if better == "lower" else ""


def judge_agreement(checks: Sequence[CheckSummary], name: Any = str) -> list[str]:
    """A line per check asked of several judges: their Krippendorff's alpha and its units."""
    lines = []
    for c in checks:
        agreement = c.judges
        if isinstance(agreement, Judges):
            alpha = agreement.alpha
            lines.append(_("judges of {check} agree: alpha {alpha} ({level}, {cases} cases "
                           "two or more answered)").format(
                check=name(c.name), alpha="n/a" if alpha is None else f"{alpha:.2f}",
                level=agreement.level, cases=agreement.cases))
    return lines
