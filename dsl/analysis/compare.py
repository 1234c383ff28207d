"""Two runs of one spec compared case by case: pairing, every metric with paired statistics.

A team changes a prompt or a model, runs the spec again, and asks whether it
got better. The honest comparison pairs the cases by id: a metric's
difference is computed over the cases both runs judged and both count in its
denominator, so a case dropped or added in one run never moves the figure.
Cases found in one run only are counted, and so are ids that appear twice in
one journal: such a case cannot be paired (which of its two results is the
one to compare?), so it is left out of every figure and said.

Each journal is read as `evaldsl merge` reads one (`evaldsl.report.journal_read`:
the version and every line's shape checked against the spec's names). The
statistics are in `evaldsl.analysis.paired_stats`; the label transitions and
the cases whose verdict moved in `evaldsl.analysis.compare_changes`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaldsl.analysis.compare_changes import ChangedCase, Transitions, changed_cases, transitions
from evaldsl.analysis.paired_stats import Interval, mcnemar_p, resample
from evaldsl.report.journal import recover
from evaldsl.report.journal_read import check_version, read_entries
from evaldsl.results import MetricError, ReportPlan, _input_from_json
from evaldsl.runtime.aggregation import MetricPlan, MetricState

ALPHA = 0.05
"""The significance level of the gate (`--fail-if-worse`)."""


@dataclass(frozen=True)
class Run:
    """One journal read: its cases by id, and the ids it holds more than once."""

    path: Path
    spec_hash: str | None
    """The header's spec hash, None for a journal without a header."""
    records: dict[str, dict[str, Any]]
    """Each id found once, to its journal line."""
    duplicated: frozenset[str]


def read_run(path: Path, plan: ReportPlan) -> Run:
    """A journal's cases by id; see the module docstring."""
    header = recover(path).header
    check_version(path, header)
    records: dict[str, dict[str, Any]] = {}
    counts: Counter[str] = Counter()
    for entry in read_entries(path, plan):
        counts[entry.id] += 1
        records.setdefault(entry.id, entry.record)
    duplicated = frozenset(i for i, n in counts.items() if n > 1)
    for case_id in duplicated:
        del records[case_id]
    return Run(path, header.spec_hash if header else None, records, duplicated)


@dataclass(frozen=True)
class Pairing:
    """Which cases the two runs share."""

    paired: tuple[str, ...]
    """Ids judged once in each run, sorted."""
    only_base: int
    only_new: int
    duplicated_base: int
    duplicated_new: int


def pair(base: Run, new: Run) -> Pairing:
    """The cases judged once in both runs, and the counts of the others."""
    both = base.records.keys() & new.records.keys()
    return Pairing(
        tuple(sorted(both)),
        only_base=len(base.records.keys() - both - new.duplicated),
        only_new=len(new.records.keys() - both - base.duplicated),
        duplicated_base=len(base.duplicated),
        duplicated_new=len(new.duplicated),
    )


@dataclass(frozen=True)
class MetricComparison:
    """One metric in both runs over their paired cases."""

    name: str
    is_rate: bool
    test: str
    """`mcnemar` for a rate of one condition, else `permutation` (sign flips)."""
    paired: int
    """Paired cases in both runs' denominators: the cases every figure below is over."""
    base: float | None
    new: float | None
    difference: float | None
    interval: Interval | None
    p_value: float | None
    denominator_base: int
    """Paired cases in the base run's denominator (whatever the new run did with them)."""
    denominator_new: int
    errors_base: int
    """Paired cases the base run left out of this metric as errors."""
    errors_new: int
    discordant: tuple[int, int] | None = None
    """For McNemar: (cases that went from true to false, from false to true)."""


@dataclass(frozen=True)
class Settings:
    """How the resampling runs."""

    seed: int = 20240601
    resamples: int = 2000


@dataclass
class _Inputs:
    base: list[tuple[Any, ...]] = field(default_factory=list)
    new: list[tuple[Any, ...]] = field(default_factory=list)
    den_base: int = 0
    den_new: int = 0
    err_base: int = 0
    err_new: int = 0


def compare_metric(plan: MetricPlan, pairing: Pairing, base: Run, new: Run,
                   settings: Settings) -> MetricComparison:
    """`plan` over the paired cases: values, difference, interval and p-value."""
    inputs = _gather(plan.name, pairing.paired, base.records, new.records)
    b_value = _value(plan, inputs.base)
    n_value = _value(plan, inputs.new)
    diff = None if b_value is None or n_value is None else n_value - b_value
    stats = resample(plan, inputs.base, inputs.new, settings.seed, settings.resamples)
    mcnemar = _is_single_rate(plan)
    discordant = _discordant(inputs) if mcnemar else None
    p = (mcnemar_p(*discordant) if discordant is not None and inputs.base
         else stats.permutation_p)
    return MetricComparison(
        plan.name, plan.is_rate, "mcnemar" if mcnemar else "permutation", len(inputs.base),
        b_value, n_value, diff, stats.interval, p, inputs.den_base, inputs.den_new,
        inputs.err_base, inputs.err_new, discordant)


def _gather(name: str, ids: Sequence[str], base: Mapping[str, dict[str, Any]],
            new: Mapping[str, dict[str, Any]]) -> _Inputs:
    out = _Inputs()
    for case_id in ids:
        b = _input_from_json(base[case_id].get("metrics", {}).get(name))
        n = _input_from_json(new[case_id].get("metrics", {}).get(name))
        out.den_base += isinstance(b, tuple)
        out.den_new += isinstance(n, tuple)
        out.err_base += isinstance(b, MetricError)
        out.err_new += isinstance(n, MetricError)
        if isinstance(b, tuple) and isinstance(n, tuple):
            out.base.append(b)
            out.new.append(n)
    return out


def _value(plan: MetricPlan, inputs: Sequence[tuple[Any, ...]]) -> float | None:
    """The metric over these cases, folded as a report folds it."""
    state = MetricState(plan)
    for values in inputs:
        state.add_values(values)
    return state.result().value


def _is_single_rate(plan: MetricPlan) -> bool:
    """`rate(x)` alone: one condition per case, the case McNemar's test is for."""
    return len(plan.aggregates) == 1 and plan.aggregates[0].kind == "rate" and (
        plan.combine([0.25]) == 0.25 and plan.combine([0.75]) == 0.75)


def _discordant(inputs: _Inputs) -> tuple[int, int]:
    worse = sum(1 for b, n in zip(inputs.base, inputs.new, strict=True)
                if b[0] is True and n[0] is not True)
    better = sum(1 for b, n in zip(inputs.base, inputs.new, strict=True)
                 if b[0] is not True and n[0] is True)
    return worse, better


def significantly_worse(metric: MetricComparison, margin: float) -> bool:
    """A drop the gate fails on: p below `ALPHA`, the difference below `-margin`, and the
    whole interval below 0."""
    return (metric.p_value is not None and metric.p_value < ALPHA
            and metric.difference is not None and metric.difference < -margin
            and metric.interval is not None and metric.interval.high < 0)


def coverage_loss(metric: MetricComparison, paired: int) -> str | None:
    """`denominator` when the new run's paired denominator is more than 10% below the base
    run's, `errors` when its errors grew by more than 10% of the paired cases, else None."""
    if metric.denominator_new < 0.9 * metric.denominator_base:
        return "denominator"
    if metric.errors_new - metric.errors_base > 0.1 * paired:
        return "errors"
    return None


@dataclass(frozen=True)
class Comparison:
    """Everything `evaldsl compare` reports."""

    base: Run
    new: Run
    pairing: Pairing
    metrics: tuple[MetricComparison, ...]
    transitions: tuple[Transitions, ...]
    changed: tuple[ChangedCase, ...]
    settings: Settings


def compare_runs(plan: ReportPlan, base: Run, new: Run, settings: Settings) -> Comparison:
    """The two runs paired, every metric compared, the transitions and the changed cases."""
    pairing = pair(base, new)
    ids = pairing.paired
    return Comparison(
        base, new, pairing,
        tuple(compare_metric(m, pairing, base, new, settings) for m in plan.metrics),
        tuple(transitions(plan, ids, base.records, new.records)),
        tuple(changed_cases(plan, ids, base.records, new.records)),
        settings)


@dataclass(frozen=True)
class GateResult:
    """One `--fail-if-worse METRIC[:MARGIN]` decided."""

    metric: str
    margin: float
    reason: str | None
    """`worse` (a significant drop), `denominator`, `errors` (see `coverage_loss`), or None
    when the gate passes."""


def gate(comparison: Comparison, metric: str, margin: float) -> GateResult:
    """Whether the new run is worse on `metric` by the rules of `significantly_worse` and
    `coverage_loss`; `metric` must be one of the comparison's."""
    found = next(m for m in comparison.metrics if m.name == metric)
    reason = "worse" if significantly_worse(found, margin) else None
    paired = len(comparison.pairing.paired)
    return GateResult(metric, margin, reason or coverage_loss(found, paired))
