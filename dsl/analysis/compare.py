"""Two runs of one spec compared case by case: pairing, every metric with paired statistics.

A team changes a prompt or a model, runs the spec again, and asks whether it
got better. The honest comparison pairs the cases by id: a metric's
difference is computed over the cases both runs judged and both count in its
denominator, so a case dropped or added in one run never moves the figure.
Cases found in one run only are counted, and so are ids that appear twice in
one journal: such a case cannot be paired (which of its two results is the
one to compare?), so it is left out of every figure and said.

Runs of repeated trials (`--trials K`: a scenario's id on K lines, each with its
`trial`) pair by id and trial: trial 2 of a scenario with its trial 2 (a case of no
trial counts as trial 1). A trial aggregate (`pass_hat`, `pass_at`) is compared by
scenario: its value over the paired trials of each scenario, and its interval and
p-value drawn over the scenarios both runs estimate, which are its sample.

Each journal is streamed into compact columns (`evaldsl.analysis.compare_columns`),
every line checked as `evaldsl merge` checks it (the version, every line's shape
against the spec's names); the pairing is a sort-merge of the two id columns. The
statistics are in `evaldsl.analysis.paired_stats`; the label transitions and
the cases whose verdict moved in `evaldsl.analysis.compare_changes`, the flip rates
of the verdict and of each check in `evaldsl.analysis.flips`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from evaldsl.analysis.compare_changes import ChangedCase, Transitions, changed_cases, transitions
from evaldsl.analysis.compare_columns import COUNTED, ERRORED, Columns, read_columns
from evaldsl.analysis.flips import Flips, check_flips, verdict_flips
from evaldsl.analysis.paired_stats import Interval, mcnemar_p, resample
from evaldsl.errors import OptionsError
from evaldsl.i18n import _
from evaldsl.runtime.aggregation import TRIAL_AGGREGATES, MetricPlan, ReportPlan, trial_estimate
from evaldsl.runtime.grouping import SMALL_GROUP
from evaldsl.stats import percentile

if TYPE_CHECKING:
    import numpy.typing as npt

ALPHA = 0.05
"""The significance level of the gate (`--fail-if-worse`)."""

Run = Columns
"""One journal read (`evaldsl.analysis.compare_columns`)."""


def read_run(path: Path, plan: ReportPlan) -> Run:
    """A journal's cases as columns, each line checked; see the module docstring."""
    return read_columns(path, plan)


@dataclass(frozen=True)
class Pairing:
    """Which cases the two runs share: index arrays into both runs' columns."""

    paired: npt.NDArray[Any]
    """Ids judged once in each run, sorted (UTF-8 bytes)."""
    base_rows: npt.NDArray[Any]
    """Each paired id's case index in the base run's columns."""
    new_rows: npt.NDArray[Any]
    only_base: int
    only_new: int
    duplicated_base: int
    duplicated_new: int
    by_trial: bool = False
    """Paired by id and trial: one run or both has repeated trials."""


class _Ids:
    """One run's ids sorted and counted: those found once, with their case index, and
    those found more than once."""

    def __init__(self, ids: npt.NDArray[Any]) -> None:
        import numpy as np

        unique, first, counts = np.unique(ids, return_index=True, return_counts=True)
        self.once, self.rows = unique[counts == 1], first[counts == 1]
        self.twice = unique[counts > 1]


def pair(base: Run, new: Run) -> Pairing:
    """The cases judged once in both runs (a sort-merge of the ids), and the counts of the
    others."""
    import numpy as np

    by_trial = base.trials is not None or new.trials is not None
    b, n = _Ids(base.keys(by_trial)), _Ids(new.keys(by_trial))
    in_b, in_n = _merge(b.once, n.once)
    return Pairing(
        b.once[in_b], b.rows[in_b], n.rows[in_n],
        only_base=len(b.once) - len(in_b) - int(np.isin(b.once, n.twice).sum()),
        only_new=len(n.once) - len(in_b) - int(np.isin(n.once, b.twice).sum()),
        duplicated_base=len(b.twice),
        duplicated_new=len(n.twice),
        by_trial=by_trial,
    )


def _merge(left: npt.NDArray[Any], right: npt.NDArray[Any],
           ) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """The positions in two sorted arrays of distinct ids of the ids both hold: a binary
    search of each left id in the right array, with no joined copy of the two."""
    import numpy as np

    if not len(right):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    at = np.minimum(np.searchsorted(right, left), len(right) - 1)
    found = np.flatnonzero(right[at] == left)
    return found, at[found]


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
    resampling: str = "cases"
    """How the bootstrap and the sign flips drew (`evaldsl.analysis.paired_stats`)."""
    groups: tuple[GroupComparison, ...] = ()
    """For a metric with `by`: the same comparison within each group, largest first."""
    lower_is_better: bool = False
    """The metric is written `lower is better`: a rise is the worse change, and `discordant`
    counts (false to true, true to false)."""


@dataclass(frozen=True)
class GroupComparison:
    """A grouped metric compared within one group of paired cases."""

    key: tuple[Any, ...]
    """The group's key in the base run (a case's `by` fields come from its input row)."""
    metric: MetricComparison
    small: bool
    """Fewer than `SMALL_GROUP` paired cases in both denominators: its interval and p-value
    say little."""


@dataclass(frozen=True)
class Settings:
    """How the resampling runs, and how many changed cases are listed."""

    seed: int = 20240601
    resamples: int = 2000
    listed: int = 100
    """Changed cases listed, worst first; the others are counted."""


@dataclass(frozen=True)
class _Inputs:
    """One metric's paired cases: the values of those in both denominators, and counts."""

    base: npt.NDArray[Any]
    new: npt.NDArray[Any]
    den_base: int
    den_new: int
    err_base: int
    err_new: int


def compare_metric(plan: MetricPlan, index: int, pairing: Pairing, base: Run, new: Run,
                   settings: Settings, grouped: bool = True) -> MetricComparison:
    """`plan` (the `index`-th metric) over the paired cases: values, difference, interval
    and p-value, and with `grouped` the same within each of its groups."""
    if any(a.kind in TRIAL_AGGREGATES for a in plan.aggregates):
        return _compare_trials(plan, index, pairing, base, new, settings)
    inputs = _gather(index, pairing, base, new)
    b_value = _value(plan, inputs.base)
    n_value = _value(plan, inputs.new)
    diff = None if b_value is None or n_value is None else n_value - b_value
    stats = resample(plan, inputs.base, inputs.new, settings.seed, settings.resamples)
    mcnemar = _is_single_rate(plan)
    discordant = _discordant(inputs, plan.lower_is_better) if mcnemar else None
    p = (mcnemar_p(*discordant) if discordant is not None and len(inputs.base)
         else stats.permutation_p)
    groups = _groups(plan, index, pairing, base, new, settings) if grouped else ()
    return MetricComparison(
        plan.name, plan.is_rate, "mcnemar" if mcnemar else "permutation", len(inputs.base),
        b_value, n_value, diff, stats.interval, p, inputs.den_base, inputs.den_new,
        inputs.err_base, inputs.err_new, discordant, stats.method, groups,
        plan.lower_is_better)


def _groups(plan: MetricPlan, index: int, pairing: Pairing, base: Run, new: Run,
            settings: Settings) -> tuple[GroupComparison, ...]:
    """The metric compared within each group of the paired cases, by the base run's key:
    the same statistics over the subset, so each group's figures are those of a comparison
    of its cases alone."""
    import numpy as np

    column = base.metrics[index]
    if column.groups is None:
        return ()
    codes = column.groups[pairing.base_rows]
    out = []
    for code in np.unique(codes).tolist():
        rows = codes == code
        subset = replace(pairing, paired=pairing.paired[rows],
                         base_rows=pairing.base_rows[rows], new_rows=pairing.new_rows[rows])
        metric = compare_metric(plan, index, subset, base, new, settings, grouped=False)
        out.append(GroupComparison(column.keys[code], metric, metric.paired < SMALL_GROUP))
    out.sort(key=lambda g: (-g.metric.paired, _sortable(g.key)))
    return tuple(out)


def _compare_trials(plan: MetricPlan, index: int, pairing: Pairing, base: Run, new: Run,
                    settings: Settings) -> MetricComparison:
    """A metric with `pass_hat` or `pass_at` over the paired trials, scenario by scenario.

    Its value in each run is the metric over the paired trials both runs count. A metric
    that is one trial aggregate gets an interval and a p-value drawn over scenarios: each
    scenario's estimate in both runs (those with at least k trials in both) is one pair, the
    bootstrap resamples scenarios and the sign flips swap a scenario's two estimates. A
    formula mixing it with other aggregates gets its values only, as its report does."""
    import numpy as np

    b_rows, n_rows, den_b, den_n, err_b, err_n = _counted_rows(index, pairing, base, new)
    scenarios = base.ids[b_rows]
    b_values, n_values = base.metrics[index].values[b_rows], new.metrics[index].values[n_rows]
    b_value = plan.combine([_trial_aggregate(a.kind, a.p, b_values[:, i], scenarios)
                            for i, a in enumerate(plan.aggregates)])
    n_value = plan.combine([_trial_aggregate(a.kind, a.p, n_values[:, i], scenarios)
                            for i, a in enumerate(plan.aggregates)])
    diff = None if b_value is None or n_value is None else n_value - b_value
    interval, p, paired = None, None, len(np.unique(scenarios))
    if _is_one_aggregate(plan):
        agg = plan.aggregates[0]
        per_b, per_n = _per_scenario(agg.kind, int(agg.p), b_values[:, 0], n_values[:, 0],
                                     scenarios)
        paired = len(per_b)
        interval, p = _scenario_stats(per_n - per_b, settings)
    return MetricComparison(plan.name, plan.is_rate, "permutation", paired, b_value, n_value,
                            diff, interval, p, den_b, den_n, err_b, err_n, None, "scenarios",
                            (), plan.lower_is_better)


def _counted_rows(index: int, pairing: Pairing, base: Run, new: Run,
                  ) -> tuple[Any, Any, int, int, int, int]:
    """The paired rows both runs count for metric `index` (base's, new's), then each run's
    counted and erred paired rows: a trial metric's value is over the rows both count, its
    denominators and errors are each run's own."""
    b, n = base.metrics[index], new.metrics[index]
    b_state, n_state = b.state[pairing.base_rows], n.state[pairing.new_rows]
    both = (b_state == COUNTED) & (n_state == COUNTED)
    return (pairing.base_rows[both], pairing.new_rows[both],
            int((b_state == COUNTED).sum()), int((n_state == COUNTED).sum()),
            int((b_state == ERRORED).sum()), int((n_state == ERRORED).sum()))


def _trials_by_scenario(column: npt.NDArray[Any], scenarios: npt.NDArray[Any],
                        ) -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
    """(scenario ids, trials, passes) of the trials in `column` (1.0 a pass)."""
    import numpy as np

    names, which = np.unique(scenarios, return_inverse=True)
    return (names, np.bincount(which, minlength=len(names)),
            np.bincount(which, weights=column, minlength=len(names)).round().astype(np.int64))


def _trial_aggregate(kind: str, p: float, column: npt.NDArray[Any],
                     scenarios: npt.NDArray[Any]) -> float | None:
    if kind not in TRIAL_AGGREGATES:
        return _aggregate(kind, p, column)
    _names, trials, passes = _trials_by_scenario(column, scenarios)
    return trial_estimate(kind, zip(trials.tolist(), passes.tolist(), strict=True), int(p))[0]


def _per_scenario(kind: str, k: int, base: npt.NDArray[Any], new: npt.NDArray[Any],
                  scenarios: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Each scenario's estimate in both runs, over the scenarios with at least k paired
    trials (the same trials in both runs, so the same scenarios)."""
    import numpy as np

    _names, trials, b_pass = _trials_by_scenario(base, scenarios)
    n_pass = _trials_by_scenario(new, scenarios)[2]
    keep = trials >= k
    out = []
    for passes in (b_pass, n_pass):
        out.append(np.array([trial_estimate(kind, [(n, c)], k)[0] or 0.0
                             for n, c in zip(trials[keep].tolist(), passes[keep].tolist(),
                                             strict=True)], dtype=float))
    return out[0], out[1]


def _scenario_stats(diffs: npt.NDArray[Any], settings: Settings,
                    ) -> tuple[Interval | None, float | None]:
    """The bootstrap interval of the mean difference over scenarios, and the sign-flip
    p-value of it (two-sided), drawn from `settings.seed`."""
    import numpy as np

    m = len(diffs)
    if m == 0:
        return None, None
    rng = np.random.default_rng(settings.seed)
    draws = rng.integers(0, m, size=(settings.resamples, m))
    low, high = np.percentile(diffs[draws].mean(1), [2.5, 97.5])
    observed = abs(float(diffs.mean()))
    signs = rng.choice(np.array([-1.0, 1.0]), size=(settings.resamples, m))
    hits = int((np.abs((signs * diffs).mean(1)) >= observed - 1e-12).sum())
    return Interval(float(low), float(high)), (1 + hits) / (settings.resamples + 1)


def _sortable(key: tuple[Any, ...]) -> tuple[tuple[bool, str], ...]:
    """A key in an order that holds across types: nulls last, then by text."""
    return tuple((v is None, str(v)) for v in key)


def _gather(index: int, pairing: Pairing, base: Run, new: Run) -> _Inputs:
    b, n = base.metrics[index], new.metrics[index]
    b_state, n_state = b.state[pairing.base_rows], n.state[pairing.new_rows]
    both = (b_state == COUNTED) & (n_state == COUNTED)
    return _Inputs(b.values[pairing.base_rows[both]], n.values[pairing.new_rows[both]],
                   int((b_state == COUNTED).sum()), int((n_state == COUNTED).sum()),
                   int((b_state == ERRORED).sum()), int((n_state == ERRORED).sum()))


def _value(plan: MetricPlan, values: npt.NDArray[Any]) -> float | None:
    """The metric over these cases ((cases, aggregates) values), with the figures
    `evaldsl.runtime.aggregation.MetricState` gives: exact sums, numpy's percentile."""
    return plan.combine([_aggregate(a.kind, a.p, values[:, i])
                         for i, a in enumerate(plan.aggregates)])


def _aggregate(kind: str, p: float, column: npt.NDArray[Any]) -> float | None:
    n = len(column)
    if kind == "count":
        return float(column.sum())
    if kind == "sum":
        return math.fsum(column)
    if n == 0:
        return None
    if kind == "rate":
        return int(column.sum()) / n
    if kind == "mean":
        return math.fsum(column) / n
    if kind in ("min", "max"):
        return float(column.min() if kind == "min" else column.max())
    return percentile(sorted(column.tolist()), p)


def _is_one_aggregate(plan: MetricPlan) -> bool:
    """The metric is one aggregate as it is, no formula around it (`x * 4 - 0.75` gives 0.25
    at 0.25, so two points are probed): an interval of the aggregate is the metric's."""
    return len(plan.aggregates) == 1 and (
        plan.combine([0.25]) == 0.25 and plan.combine([0.75]) == 0.75)


def _is_single_rate(plan: MetricPlan) -> bool:
    """`rate(x)` alone: one condition per case, the case McNemar's test is for."""
    return _is_one_aggregate(plan) and plan.aggregates[0].kind == "rate"


def _discordant(inputs: _Inputs, lower_is_better: bool = False) -> tuple[int, int]:
    """(cases that got worse, cases that got better): true to false and false to true, the
    other way round for a metric whose lower values are better."""
    b, n = inputs.base[:, 0] == 1.0, inputs.new[:, 0] == 1.0
    lost, gained = int((b & ~n).sum()), int((~b & n).sum())
    return (gained, lost) if lower_is_better else (lost, gained)


def significantly_worse(metric: MetricComparison, margin: float) -> bool:
    """A change the gate fails on: p below `ALPHA`, and the difference beyond `margin` the
    worse way with the whole interval on that side of 0 (a drop, or for a metric written
    `lower is better` a rise)."""
    if metric.p_value is None or metric.p_value >= ALPHA or metric.difference is None \
            or metric.interval is None:
        return False
    if metric.lower_is_better:
        return metric.difference > margin and metric.interval.low > 0
    return metric.difference < -margin and metric.interval.high < 0


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
    """The changed cases listed, worst first (`Settings.listed` at most)."""
    changed_total: int
    """Every paired case whose verdict changed."""
    settings: Settings
    verdict_flips: Flips | None = None
    """Verdicts that flipped among the cases decided in both runs (`evaldsl.analysis.flips`)."""
    check_flips: tuple[Flips, ...] = ()
    """Per check, pass <-> fail flips among the cases it decided in both runs."""

    @property
    def trials(self) -> dict[str, int] | None:
        """For runs of repeated trials: the most trials of a scenario in each run and the
        scenarios paired; None when neither run has trials."""
        if not self.pairing.by_trial:
            return None
        import numpy as np

        def most(run: Run) -> int:
            return int(run.trials.max()) if run.trials is not None and len(run.trials) else 1

        scenarios = len(np.unique(self.base.ids[self.pairing.base_rows]))
        return {"base": most(self.base), "new": most(self.new), "scenarios": scenarios}


def compare_runs(plan: ReportPlan, base: Run, new: Run, settings: Settings) -> Comparison:
    """The two runs paired, every metric compared, the transitions and the changed cases."""
    pairing = pair(base, new)
    rows = (pairing.base_rows, pairing.new_rows)
    changed = changed_cases(plan, pairing.paired, rows, base, new, settings.listed)
    return Comparison(
        base, new, pairing,
        tuple(compare_metric(m, i, pairing, base, new, settings)
              for i, m in enumerate(plan.metrics)),
        tuple(transitions(plan, rows, base, new)),
        changed.listed, changed.total, settings, verdict_flips(plan, rows, base, new),
        tuple(check_flips(plan, rows, base, new)))


class Gate(NamedTuple):
    """One `--fail-if-worse METRIC[:MARGIN]` as asked."""

    metric: str
    margin: float


def parse_gate(text: str) -> Gate:
    """`success_rate` -> margin 0; `success_rate:2%` -> 0.02; `avg:0.5` -> 0.5. A malformed
    one raises `OptionsError` saying what was expected."""
    name, sep, value = text.partition(":")
    if not name.strip():
        raise OptionsError(_("expected METRIC[:MARGIN], got `{text}`").format(text=text))
    value = value.strip()
    if not sep:
        return Gate(name.strip(), 0.0)
    percent = value.endswith("%")
    try:
        margin = float(value[:-1]) / 100 if percent else float(value)
    except ValueError:
        raise OptionsError(
            _("`{value}` is not a number or a percentage").format(value=value)) from None
    if not margin >= 0:
        raise OptionsError(_("the margin `{value}` must be 0 or more").format(value=value))
    return Gate(name.strip(), margin)


def check_gates(gates: Sequence[Gate], metrics: Sequence[str]) -> None:
    """Every gate names one of the spec's `metrics`, or `OptionsError` naming them."""
    from evaldsl.diagnostics import did_you_mean, listing

    for g in gates:
        if g.metric not in metrics:
            raise OptionsError(_("unknown metric `{name}` (metrics: {known})").format(
                name=g.metric, known=listing(metrics)), hint=did_you_mean(g.metric, metrics))


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
