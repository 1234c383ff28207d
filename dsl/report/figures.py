"""A metric's figures in words, as every report shows them: its value (a percentage for a
rate), its interval, a formula's parts and which way is better."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaldsl.i18n import _
from evaldsl.stats import breakdown, number, percent


def metric_value(m: Mapping[str, Any]) -> str:
    if m.get("is_rate"):
        return percent(m["value"])
    return number(m["value"])

def shown(m: Mapping[str, Any], value: float | None) -> str:
    """A value of metric `m` as its own value is shown: a percentage for rates."""
    return percent(value) if m.get("is_rate") else number(value)

def interval_span(m: Mapping[str, Any], sep: str = " – ") -> str:
    """`47.0% – 75.8%`, with `(bootstrap)` after a formula metric's interval; empty without."""
    interval = m.get("interval")
    if not interval:
        return ""
    span = f"{shown(m, interval['low'])}{sep}{shown(m, interval['high'])}"
    return span + _(" (bootstrap)") if interval["method"] == "bootstrap" else span

def parts_of(m: Mapping[str, Any]) -> str | None:
    """A formula metric's parts in its expression (`rate(a) 0.6 (6/10) + 0.5 × ...`)."""
    template = m.get("template")
    return breakdown(template, m["parts"]) if template is not None else None

def better_note(m: Mapping[str, Any]) -> str:
    """` (lower is better)` after a metric written so, else nothing: a reader of a figure
    should not have to guess which way is good."""
    return " " + _("(lower is better)") if m.get("better") == "lower" else ""


def judge_agreement(checks: list[Mapping[str, Any]], name: Any = str) -> list[str]:
    """A line per check asked of several judges: their Krippendorff's alpha and its units."""
    lines = []
    for c in checks:
        agreement = c.get("judges")
        if agreement is not None:
            alpha = agreement["alpha"]
            lines.append(_("judges of {check} agree: alpha {alpha} ({level}, {cases} cases "
                           "two or more answered)").format(
                check=name(c["name"]), alpha="n/a" if alpha is None else f"{alpha:.2f}",
                level=agreement["level"], cases=agreement["cases"]))
    return lines
