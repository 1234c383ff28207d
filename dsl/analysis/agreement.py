"""Agreement of a judge with human raters: rank correlation, weighted kappa, intervals.

`evaldsl calibrate` compares one run with one label file; measuring a judge
against rated corpora (benchmarks/judge_agreement.py) needs more: a kappa that
counts a near miss on an ordinal scale as half right, a seeded bootstrap
interval around every figure (a few dozen dialogs leave wide ones, and a figure
without its interval invites reading noise), and the ceiling set by the raters
themselves: each annotator against the mean of the others. Pearson's r and the
ranks behind Spearman's rho are `calibrate`'s own functions, reused here.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from evaldsl.analysis.calibrate import pearson, ranks

Pair = tuple[float, float]
Statistic = Callable[[Sequence[Pair]], float | None]
Row = Sequence[float | None]
"""One item's ratings, one per annotator, None where one gave none."""
T = TypeVar("T")

SEED = 20250
"""The bootstrap's default seed: the same pairs give the same interval."""
RESAMPLES = 1000
LEVEL = 0.95


@dataclass(frozen=True, slots=True)
class Estimate:
    """A statistic over `n` pairs with its bootstrap percentile interval."""

    value: float | None
    """None when undefined (a constant side, or no pairs)."""
    low: float | None
    high: float | None
    n: int

    def to_dict(self) -> dict[str, float | int | None]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n}


def spearman(pairs: Sequence[Pair]) -> float | None:
    """Spearman's rho: Pearson's r of the ranks, ties sharing their average rank.

    >>> spearman([(1, 10), (2, 30), (3, 20)])
    0.5
    """
    xs = [x for x, _ in pairs]
    ys = [y for _, y in pairs]
    return pearson(ranks(xs), ranks(ys))


def weighted_kappa(pairs: Sequence[tuple[int, int]], low: int, high: int,
                   power: int = 2) -> float | None:
    """Cohen's weighted kappa on the ordinal scale low..high (power 2: quadratic weights).

    A disagreement costs (distance / width) ** power, so a rating one level off
    costs little and the ends of the scale cost everything; power 0 would be
    Cohen's plain kappa. None when chance disagreement is nil (both sides constant
    on one level).

    >>> round(weighted_kappa([(1, 1), (2, 2), (3, 3), (1, 2)], 1, 3), 4)
    0.8
    >>> weighted_kappa([(2, 2), (2, 2)], 1, 3) is None
    True
    """
    n = len(pairs)
    if n == 0:
        return None
    width = max(high - low, 1)

    def cost(a: int, b: int) -> float:
        return 0.0 if a == b else (abs(a - b) / width) ** power

    observed = sum(cost(a, b) for a, b in pairs) / n
    rows = [a for a, _ in pairs]
    cols = [b for _, b in pairs]
    levels = range(low, high + 1)
    share_a = {k: rows.count(k) / n for k in levels}
    share_b = {k: cols.count(k) / n for k in levels}
    chance = sum(share_a[a] * share_b[b] * cost(a, b) for a in levels for b in levels)
    if math.isclose(chance, 0.0, abs_tol=1e-12):
        return None
    return 1.0 - observed / chance


def bootstrap(units: Sequence[T], statistic: Callable[[Sequence[T]], float | None],
              resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL) -> Estimate:
    """`statistic` over `units` and its percentile interval over units resampled.

    A unit is what was sampled: a (judge, human) pair per item, or an item's
    row of ratings for the annotators' ceiling. Resamples where the statistic is
    undefined (a constant side) are dropped; when fewer than half are defined
    there is no interval, rather than one drawn from the few that happened to vary.
    """
    value = statistic(units) if units else None
    if len(units) < 2:
        return Estimate(value, None, None, len(units))
    draw = random.Random(seed)
    n = len(units)
    values = []
    for _ in range(resamples):
        result = statistic([units[draw.randrange(n)] for _ in range(n)])
        if result is not None:
            values.append(result)
    if len(values) < resamples / 2:
        return Estimate(value, None, None, n)
    values.sort()
    tail = (1.0 - level) / 2
    return Estimate(value, _quantile(values, tail), _quantile(values, 1.0 - tail), n)


def _quantile(ordered: Sequence[float], share: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    position = share * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def leave_one_out(rows: Sequence[Row]) -> list[list[Pair]]:
    """Per annotator slot k: (the k-th rating, the mean of the item's other ratings).

    Slot k of each item is one annotator left out; an item contributes to a
    slot only when that rating and at least one other exist. The pairs are
    kept per slot, not pooled: pooled, an item's own rating and the mean of its
    others move in opposite directions by construction, which drags any
    correlation down.

    >>> leave_one_out([[1, 2, 3], [4, None]])
    [[(1.0, 2.5)], [(2.0, 2.0)], [(3.0, 1.5)]]
    """
    slots: list[list[Pair]] = []
    for row in rows:
        given = [float(r) for r in row if r is not None]
        if len(given) < 2:
            continue
        total = sum(given)
        for k, own in enumerate(row):
            if own is None:
                continue
            while len(slots) <= k:
                slots.append([])
            slots[k].append((float(own), (total - own) / (len(given) - 1)))
    return [slot for slot in slots if slot]


def annotator_ceiling(statistic: Statistic) -> Callable[[Sequence[Row]], float | None]:
    """`statistic` of each annotator slot against the others, averaged over slots by n.

    The ceiling an automatic judge is held to: how far one person is from the
    rest, on the same items. Bootstrap it over rows (items), not over pairs.

    >>> round(annotator_ceiling(spearman)([[1, 1, 2], [2, 3, 3], [3, 3, 4]]), 4)
    0.9553
    """
    def over_slots(rows: Sequence[Row]) -> float | None:
        figures = [(statistic(pairs), len(pairs)) for pairs in leave_one_out(rows)]
        defined = [(value, n) for value, n in figures if value is not None]
        weight = sum(n for _, n in defined)
        return sum(value * n for value, n in defined) / weight if weight else None
    return over_slots


def to_level(value: float, low: int, high: int) -> int:
    """A rating (or a mean of ratings) as the nearest level of low..high, halves up.

    >>> to_level(2.5, 1, 5), to_level(2.49, 1, 5), to_level(7, 1, 5)
    (3, 2, 5)
    """
    return min(high, max(low, math.floor(value + 0.5)))
