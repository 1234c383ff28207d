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
  resampled cases are applied to both runs. Any other metric than a single
  rate (a mean, `rate(a) + 0.5 * rate(b)`) gets a sign-flip permutation
  p-value: each case's base and new inputs are swapped with probability 1/2,
  and p = `(1 + #{|flipped difference| >= |observed|}) / (resamples + 1)`.
  Both draw in one of two ways (`PairedResult.method`), with one
  `numpy.random.default_rng(seed)` (docs/compare.md spells out the calls, so
  an outside computation can repeat them):
  - `counts`, when the paired cases hold few distinct (base, new) inputs (at
    most one per 8 cases: conditions, scores on a short scale) and no
    percentile: a resample of n cases is a multinomial draw of how many times
    each distinct input is drawn, the same distribution as drawing n case
    indices but O(resamples x distinct inputs) instead of O(resamples x n),
    which is what makes a million cases cheap; a sign flip is a binomial draw
    of how many of each input's cases are flipped;
  - `cases` otherwise: `integers(0, n, size=(resamples, n))` case indices,
    then `random((resamples, n)) < 0.5` flips, drawn in blocks of rows.
  The interval is `numpy.percentile(differences, [2.5, 97.5])` of the
  resamples whose metric is defined in both runs.

numpy is imported inside the functions: a deterministic run must not pay for
it at start.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

from evaldsl.runtime.aggregation import MetricPlan

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

CONFIDENCE = 0.95
"""The level of every interval."""


EXACT_UP_TO = 5000
"""Discordant pairs up to which McNemar's tail is summed in exact integers; beyond, the
binomial coefficients have thousands of digits and the tail is summed in log space."""


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
    if n > EXACT_UP_TO:
        return min(1.0, 2 * _binomial_tail(n, min(worse, better)))
    tail = sum(math.comb(n, k) for k in range(min(worse, better) + 1))
    return min(1.0, 2 * tail / (1 << n))


def _binomial_tail(n: int, k: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2), k <= n / 2, summed from the largest term down
    in log space (the log coefficients by their running ratios)."""
    import numpy as np

    steps = np.arange(1, k + 1, dtype=float)
    logs = np.concatenate([[0.0], np.cumsum(np.log(n - steps + 1) - np.log(steps))])
    top = float(logs[-1])
    return float(np.exp(logs - top).sum()) * math.exp(top - n * math.log(2))


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
    method: str = "cases"
    """`counts` or `cases`: how the resamples were drawn (see the module docstring)."""


CELLS = 4_000_000
"""The most (resample, case) cells drawn at once: 2000 resamples of 100,000 cases would be a
1.6 GB matrix, so the draws come in blocks of rows; the generator's stream, and so every
figure, is the same as one draw of the whole matrix."""
PER_INPUT = 8
"""`counts` resampling when there is at most one distinct input per this many cases."""


def resample(plan: MetricPlan, base: npt.NDArray[Any], new: npt.NDArray[Any],
             seed: int, resamples: int, cells: int = CELLS) -> PairedResult:
    """The bootstrap interval and the sign-flip p-value of `plan` over paired inputs.

    `base[i]` and `new[i]` are case i's aggregate arguments (floats, a condition 1.0 when
    true) in each run; both runs have case i in the metric's denominator. At most `cells`
    draws are held at once.
    """
    import numpy as np

    n = len(base)
    if n == 0:
        return PairedResult(None, None)
    rng = np.random.default_rng(seed)
    draws = _Counts.of(plan, base, new) or _Cases(plan, base, new)
    blocks = _blocks(resamples, max(1, cells // draws.width))
    diffs = np.concatenate([draws.bootstrap(rng, k) for k in blocks])
    defined = diffs[~np.isnan(diffs)]
    interval = None
    if defined.size:
        low, high = np.percentile(defined, [2.5, 97.5])
        interval = Interval(float(low), float(high))
    observed = draws.observed()
    if math.isnan(observed):
        return PairedResult(interval, None, draws.method)
    hits = sum(draws.flip_hits(rng, k, observed) for k in blocks)
    return PairedResult(interval, (1 + hits) / (resamples + 1), draws.method)


def _blocks(total: int, size: int) -> list[int]:
    """`total` rows in blocks of at most `size`.

    >>> _blocks(5, 2)
    [2, 2, 1]
    """
    return [min(size, total - start) for start in range(0, total, size)]


class _Cases:
    """Resampling by case indices: any metric, O(resamples x cases)."""

    method = "cases"

    def __init__(self, plan: MetricPlan, base: npt.NDArray[Any], new: npt.NDArray[Any]):
        self.plan, self.n = plan, len(base)
        self.width = self.n
        self.base = [base[:, i] for i in range(base.shape[1])]
        self.new = [new[:, i] for i in range(new.shape[1])]

    def bootstrap(self, rng: np.random.Generator, rows: int) -> npt.NDArray[Any]:
        idx = rng.integers(0, self.n, size=(rows, self.n))
        out: npt.NDArray[Any] = (_values(self.plan, [c[idx] for c in self.new])
                                 - _values(self.plan, [c[idx] for c in self.base]))
        return out

    def observed(self) -> float:
        whole = [c[None, :] for c in self.new], [c[None, :] for c in self.base]
        return float((_values(self.plan, whole[0]) - _values(self.plan, whole[1]))[0])

    def flip_hits(self, rng: np.random.Generator, rows: int, observed: float) -> int:
        """The sign flips whose difference is at least as far from 0 as the observed one."""
        import numpy as np

        flips = rng.random((rows, self.n)) < 0.5
        pairs = list(zip(self.base, self.new, strict=True))
        flipped_new = [np.where(flips, b, w) for b, w in pairs]
        flipped_base = [np.where(flips, w, b) for b, w in pairs]
        diffs = _values(self.plan, flipped_new) - _values(self.plan, flipped_base)
        return int(np.count_nonzero(np.abs(diffs) >= abs(observed) - 1e-12))


class _Counts:
    """Resampling by counts of the distinct (base, new) inputs: O(resamples x inputs)."""

    method = "counts"

    def __init__(self, plan: MetricPlan, cells: npt.NDArray[Any], counts: npt.NDArray[Any]):
        k = len(plan.aggregates)
        self.plan, self.counts, self.n = plan, counts, int(counts.sum())
        self.width = len(counts)
        self.base, self.new = cells[:, :k], cells[:, k:]

    @classmethod
    def of(cls, plan: MetricPlan, base: npt.NDArray[Any],
           new: npt.NDArray[Any]) -> _Counts | None:
        """None when counting does not pay (many distinct inputs) or cannot serve (a
        percentile needs every resample's order)."""
        import numpy as np

        if any(a.kind == "percentile" for a in plan.aggregates):
            return None
        found = _distinct_rows([*base.T, *new.T], len(base) // PER_INPUT)
        if found is None:
            return None
        first, counts = found
        return cls(plan, np.hstack([base[first], new[first]]), counts)

    def bootstrap(self, rng: np.random.Generator, rows: int) -> npt.NDArray[Any]:
        weights = rng.multinomial(self.n, self.counts / self.n, size=rows)
        out: npt.NDArray[Any] = (_weighted(self.plan, weights, self.new, self.n)
                                 - _weighted(self.plan, weights, self.base, self.n))
        return out

    def observed(self) -> float:
        weights = self.counts[None, :]
        return float((_weighted(self.plan, weights, self.new, self.n)
                      - _weighted(self.plan, weights, self.base, self.n))[0])

    def flip_hits(self, rng: np.random.Generator, rows: int, observed: float) -> int:
        """As `_Cases.flip_hits`, flipping a binomial number of each input's cases."""
        import numpy as np

        flipped = rng.binomial(self.counts, 0.5, size=(rows, self.width))
        weights = np.hstack([self.counts - flipped, flipped])
        diffs = (_weighted(self.plan, weights, np.vstack([self.new, self.base]), self.n)
                 - _weighted(self.plan, weights, np.vstack([self.base, self.new]), self.n))
        return int(np.count_nonzero(np.abs(diffs) >= abs(observed) - 1e-12))


def _distinct_rows(columns: list[npt.NDArray[Any]], most: int,
                   ) -> tuple[npt.NDArray[Any], npt.NDArray[Any]] | None:
    """The distinct rows of these columns, as `numpy.unique(..., axis=0)` orders them (each
    by the index of its first case) and their counts; None beyond `most` distinct rows.

    A row's key is built a column at a time, its rank among the rows so far times the
    column's number of values plus the value's rank: the order is the rows' lexicographic
    order, the keys stay below the number of cases, and no (cases, columns) copy is made.
    """
    import numpy as np

    key = np.zeros(len(columns[0]), dtype=np.int64)
    for column in columns:
        values, ranks = np.unique(column, return_inverse=True)
        key *= len(values)
        key += ranks.reshape(-1)
        distinct, key = np.unique(key, return_inverse=True)
        if len(distinct) > most:
            return None
    _keys, first, counts = np.unique(key, return_index=True, return_counts=True)
    return first, counts


def _weighted(plan: MetricPlan, weights: npt.NDArray[Any], values: npt.NDArray[Any],
              n: int) -> npt.NDArray[Any]:
    """The metric of each row of `weights` (how many of the n cases hold each row of
    `values`); NaN where it is undefined."""
    import numpy as np

    columns = []
    for i, agg in enumerate(plan.aggregates):
        v = values[:, i]
        if agg.kind in ("min", "max"):
            fill = np.inf if agg.kind == "min" else -np.inf
            masked = np.where(weights > 0, v, fill)
            columns.append(masked.min(axis=1) if agg.kind == "min" else masked.max(axis=1))
        else:
            total = weights @ v
            columns.append(total / n if agg.kind in ("rate", "mean") else total)
    return _combined(plan, columns)


def _combined(plan: MetricPlan, aggregates: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    import numpy as np

    rows = len(aggregates[0]) if aggregates else 1
    out = np.empty(rows)
    for r in range(rows):
        value = plan.combine([float(a[r]) for a in aggregates])
        out[r] = math.nan if value is None else value
    return out


def _values(plan: MetricPlan, matrices: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """The metric of each row of the (rows, cases) matrices; NaN where it is undefined."""
    return _combined(plan, [_aggregate(agg.kind, agg.p, m) for agg, m in
                            zip(plan.aggregates, matrices, strict=True)])


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
