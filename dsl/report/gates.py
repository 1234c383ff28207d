"""The report's gates: `--fail-under` floors and `--fail-over` ceilings on its metrics.

    floor = parse_threshold("success_rate=80%")                  # Threshold(.., 0.8, ..)
    ceiling = parse_threshold("violation_rate=5%", ceiling=True)
    check_thresholds_of([floor, ceiling], spec)                  # before the run
    missed = missed_thresholds([floor, ceiling], report)         # after it: what failed

A floor is missed by a value below it, a ceiling by a value above it (a metric written
`lower is better` is gated with a ceiling); a metric without a value (`n/a`) misses both.
`run` and `merge` exit 1 when one is missed. The gate of `compare` is
`evaldsl.analysis.compare.gate`, over two runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from evaldsl.errors import OptionsError
from evaldsl.i18n import _

if TYPE_CHECKING:  # the report's type only: `check` imports the gates' flags, not msgspec
    from evaldsl.report.document import ReportDoc


class Threshold(NamedTuple):
    """One `--fail-under METRIC=VALUE` (or `--fail-over`), as written and as a number."""

    name: str
    floor: float
    """The value; a ceiling's too."""
    text: str
    """The argument as given, for messages."""
    percent: bool
    """Written with `%`: meant as a share whatever its size."""
    ceiling: bool = False
    """`--fail-over`: the metric must not be above the value (a metric where lower is
    better), where `--fail-under`'s must not be below it."""

    @property
    def flag(self) -> str:
        return "--fail-over" if self.ceiling else "--fail-under"

    def missed_by(self, value: float | None) -> bool:
        """Whether a metric of this value fails the gate (no value fails it)."""
        return value is None or (value > self.floor if self.ceiling else value < self.floor)


def parse_threshold(text: str, *, ceiling: bool = False) -> Threshold:
    """`success_rate=80%` -> ("success_rate", 0.8); `avg=72.5` -> ("avg", 72.5). A
    malformed one raises `OptionsError` saying what was expected."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise OptionsError(_("expected METRIC=VALUE, got `{text}`").format(text=text))
    value = value.strip()
    percent = value.endswith("%")
    try:
        number = float(value[:-1]) / 100 if percent else float(value)
    except ValueError:
        raise OptionsError(
            _("`{value}` is not a number or a percentage").format(value=value)
        ) from None
    return Threshold(name.strip(), number, text, percent, ceiling)


def check_thresholds(thresholds: Sequence[Threshold], metrics: Sequence[str],
                     rates: Sequence[str] = ()) -> None:
    """Every threshold names one of `metrics`, and a rate's (one of `rates`) value reads as a
    share (0..1): `85` for a rate is surely 85%, which a run must not silently take as
    unreachable. `OptionsError` otherwise, before anything runs."""
    unknown = [t for t in thresholds if t.name not in metrics]
    if unknown:
        known = ", ".join(f"`{m}`" for m in metrics) or _("none")
        message = (_("--fail-over names no metric of the spec: `{unknown}` (metrics: {known})")
                   if unknown[0].ceiling else
                   _("--fail-under names no metric of the spec: `{unknown}` (metrics: {known})"))
        raise OptionsError(message.format(unknown=unknown[0].name, known=known))
    for t in thresholds:
        if t.name in rates and not t.percent and t.floor > 1:
            raise OptionsError(
                _("{flag} `{text}`: `{name}` is a rate, between 0 and 1").format(
                    flag=t.flag, text=t.text, name=t.name
                ),
                _("write {percent}% or {share}").format(
                    percent=f"{t.floor:g}", share=f"{t.floor / 100:g}"
                ),
            )


def check_thresholds_of(thresholds: Sequence[Threshold], spec: Any) -> None:
    """`check_thresholds` against a loaded spec's metrics (an `evaldsl.Spec`)."""
    rates = [m.name for m in spec.new_report(details=False).plan.metrics if m.is_rate]
    check_thresholds(thresholds, list(spec.layout.metrics), rates)


def missed_thresholds(thresholds: Sequence[Threshold], report: ReportDoc) -> list[str]:
    """The gates a report fails, one sentence each, in the order given: an empty list
    passes."""
    from evaldsl.report.figures import metric_value

    metrics = {m.name: m for m in report.metrics}
    missed = []
    for t in thresholds:
        metric = metrics[t.name]
        if t.missed_by(metric.value):
            shown = f"{t.floor:.1%}" if metric.is_rate else f"{t.floor:g}"
            words = (_("fail-over: `{name}` is {metric_value}, above {shown}") if t.ceiling
                     else _("fail-under: `{name}` is {metric_value}, below {shown}"))
            missed.append(words.format(name=t.name, metric_value=metric_value(metric),
                                       shown=shown))
    return missed
