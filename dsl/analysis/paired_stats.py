"""Paired statistics for two runs over the same cases: McNemar, bootstrap, sign flips.

Every test here is paired: each case contributes its base value and its new
value together, so the noise shared by a case (a hard dialog is hard in both
runs) cancels out. An unpaired test would ignore that and call most real
changes insignificant, or worse, mix different case sets.

- A rate (`rate(x)`, one boolean per case) gets McNemar's exact test: only the
  discordant pairs carry information, and under "no change" each is equally
  likely to go either way, so the two-sided p-value is an exact binomial tail
  with p = 1/2. It is written with `math.comb` rather than
  `scipy.stats.binomtest`: the sum is exact in integers, a few lines long,
  and scipy would be a large new dependency for one function.
- Every metric gets a paired bootstrap interval for the difference: the same
  resampled case indices are applied to both runs. Seed semantics (so an
  outside computation can repeat it): `numpy.random.default_rng(seed)`, whose
  first draw is `integers(0, n, size=(resamples, n))`; the interval is
  `numpy.percentile(differences, [2.5, 97.5])` of the resamples whose metric
  is defined in both runs.
- Any other metric (a mean, `rate(a) + 0.5 * rate(b)`) gets a sign-flip
  permutation p-value: the same generator's next draw,
  `random((resamples, n)) < 0.5`, swaps each case's base and new inputs; the
  p-value is `(1 + #{|flipped difference| >= |observed|}) / (resamples + 1)`.

numpy is imported inside the functions: a deterministic run must not pay for
it at start.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from evaldsl.runtime.aggregation import MetricPlan

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

CONFIDENCE = 0.95
"""The level of every interval."""


def mcnemar_p(worse: int, better: int) -> float:
    """The two-sided exact McNemar p-value from the discordant pair counts.

    >>> mcnemar_p(1, 6)
    0.125
    >>> mcnemar_p(0, 0)
    1.0
    """
    n = worse + better
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(worse, better) + 1))
    return min(1.0, 2 * tail / (1 << n))


class Interval(NamedTuple):
    """A confidence interval for new - base."""

    low: float
    high: float


class PairedResult(NamedTuple):
    """The resampled statistics of one metric."""

    interval: Interval | None
    """None when the metric is undefined in every resample."""
    permutation_p: float | None
    """The sign-flip p-value; None when the observed difference is undefined."""


CELLS = 4_000_000
"""The most (resample, case) cells drawn at once: 2000 resamples of 100,000 cases would be a
1.6 GB matrix, so the draws come in blocks of rows; the generator's stream, and so every
figure, is the same as one draw of the whole matrix."""


def resample(plan: MetricPlan, base: Sequence[Sequence[Any]], new: Sequence[Sequence[Any]],
             seed: int, resamples: int, cells: int = CELLS) -> PairedResult:
    """The bootstrap interval and the sign-flip p-value of `plan` over paired inputs.

    `base[i]` and `new[i]` are case i's aggregate arguments in each run; both runs have
    case i in the metric's denominator. At most `cells` draws are held at once.
    """
    import numpy as np

    n = len(base)
    if n == 0:
        return PairedResult(None, None)
    b, w = _columns(plan, base), _columns(plan, new)
    rng = np.random.default_rng(seed)
    blocks = _blocks(resamples, max(1, cells // n))
    diffs = np.concatenate([_difference(plan, b, w, rng.integers(0, n, size=(k, n)))
                            for k in blocks])
    defined = diffs[~np.isnan(diffs)]
    interval = None
    if defined.size:
        low, high = np.percentile(defined, [2.5, 97.5])
        interval = Interval(float(low), float(high))
    observed = float(_difference(plan, b, w, np.arange(n)[None, :])[0])
    if math.isnan(observed):
        return PairedResult(interval, None)
    hits = sum(_flip_hits(plan, b, w, rng.random((k, n)) < 0.5, observed) for k in blocks)
    return PairedResult(interval, (1 + hits) / (resamples + 1))


def _blocks(total: int, size: int) -> list[int]:
    """`total` rows in blocks of at most `size`.

    >>> _blocks(5, 2)
    [2, 2, 1]
    """
    return [min(size, total - start) for start in range(0, total, size)]


def _difference(plan: MetricPlan, base: list[npt.NDArray[Any]], new: list[npt.NDArray[Any]],
                idx: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """new - base of the metric over each row of resampled case indices."""
    out: npt.NDArray[Any] = (_values(plan, [c[idx] for c in new])
                             - _values(plan, [c[idx] for c in base]))
    return out


def _flip_hits(plan: MetricPlan, base: list[npt.NDArray[Any]], new: list[npt.NDArray[Any]],
               flips: npt.NDArray[np.bool_], observed: float) -> int:
    """The sign flips whose difference is at least as far from 0 as the observed one."""
    import numpy as np

    flipped_new = [np.where(flips, bc, nc) for bc, nc in zip(base, new, strict=True)]
    flipped_base = [np.where(flips, nc, bc) for bc, nc in zip(base, new, strict=True)]
    diffs = _values(plan, flipped_new) - _values(plan, flipped_base)
    return int(np.count_nonzero(np.abs(diffs) >= abs(observed) - 1e-12))


def _columns(plan: MetricPlan, inputs: Sequence[Sequence[Any]]) -> list[npt.NDArray[Any]]:
    """One float array per aggregate argument; a condition is 1.0 when true."""
    import numpy as np

    columns = []
    for i, agg in enumerate(plan.aggregates):
        if agg.kind in ("rate", "count"):
            columns.append(np.array([1.0 if row[i] is True else 0.0 for row in inputs]))
        else:
            columns.append(np.array([float(row[i]) for row in inputs]))
    return columns


def _values(plan: MetricPlan, matrices: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """The metric of each row of the (rows, cases) matrices; NaN where it is undefined."""
    import numpy as np

    aggregates = [_aggregate(agg.kind, agg.p, m) for agg, m in
                  zip(plan.aggregates, matrices, strict=True)]
    rows = matrices[0].shape[0] if matrices else 1
    out = np.empty(rows)
    for r in range(rows):
        value = plan.combine([float(a[r]) for a in aggregates])
        out[r] = math.nan if value is None else value
    return out


def _aggregate(kind: str, p: float, m: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """One aggregate over each row, as `evaldsl.runtime.aggregation.MetricState` folds it."""
    import numpy as np

    out: npt.NDArray[Any]
    if kind in ("rate", "mean"):
        out = m.mean(axis=1)
    elif kind in ("count", "sum"):
        out = m.sum(axis=1)
    elif kind == "min":
        out = m.min(axis=1)
    elif kind == "max":
        out = m.max(axis=1)
    else:
        out = np.percentile(m, min(max(p, 0.0), 100.0), axis=1)
    return out
