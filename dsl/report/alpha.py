"""Krippendorff's alpha: how far several judges (or runs) agree beyond chance.

Alpha is 1 for perfect agreement, 0 for agreement no better than chance and
below 0 for systematic disagreement. Unlike a raw agreement share it
discounts what a skewed distribution agrees on by itself (two judges that
pass 95% of the cases agree often without agreeing much), takes any number of
judges, and lets a unit miss some of them: a case one judge errored on keeps
the others' values. The level of measurement decides how far apart two
values are: `nominal` (labels, pass/fail: same or not), `ordinal` (ranked
labels: how many values lie between) or `interval` (points: the squared
difference).

Computed from the coincidence matrix (Krippendorff, "Computing
Krippendorff's Alpha-Reliability", 2011): alpha = 1 - D_o / D_e, the
observed over the expected disagreement.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from itertools import permutations
from typing import Literal

Level = Literal["nominal", "ordinal", "interval"]
Distance = Callable[[Hashable, Hashable], float]


def krippendorff_alpha(units: Sequence[Sequence[Hashable | None]],
                       level: Level = "nominal") -> float | None:
    """Alpha over `units`, each the values its judges gave (None where one gave none).

    Units with fewer than two values cannot be paired and are left out. None when
    nothing could be paired or every paired value is the same (no disagreement could
    be expected, so agreement measures nothing).

    >>> krippendorff_alpha([["a", "a"], ["b", "b"], ["a", "b"]])
    0.4444444444444444
    """
    return alpha_of_coincidences(_coincidences(units), level)


def alpha_of_coincidences(coincidences: dict[tuple[Hashable, Hashable], float],
                          level: Level = "nominal") -> float | None:
    """Alpha from the coincidence matrix o_ck itself (every ordered pair of values within
    a unit, weighted 1 / (m_u - 1)), for callers that count it faster than unit by unit."""
    totals: dict[Hashable, float] = {}
    for (c, _k), count in coincidences.items():
        totals[c] = totals.get(c, 0.0) + count
    n = sum(totals.values())
    if n <= 1:
        return None
    distance = _distance(level, totals)
    observed = sum(count * distance(c, k) for (c, k), count in coincidences.items())
    expected = sum(totals[c] * totals[k] * distance(c, k) for c in totals for k in totals)
    if expected == 0:
        return None
    return 1.0 - (n - 1) * observed / expected


def _coincidences(units: Sequence[Sequence[Hashable | None]]) -> dict[tuple[Hashable, Hashable],
                                                                       float]:
    """o_ck: each ordered pair of values within a unit, weighted 1 / (m_u - 1)."""
    out: dict[tuple[Hashable, Hashable], float] = {}
    for unit in units:
        for pair, weight in unit_coincidences([v for v in unit if v is not None]).items():
            out[pair] = out.get(pair, 0.0) + weight
    return out


def unit_coincidences(values: Sequence[Hashable]) -> dict[tuple[Hashable, Hashable], float]:
    """One unit's share of o_ck: its ordered pairs of values, each 1 / (m_u - 1); none for
    a unit of fewer than two values. Sums of these over units are the whole matrix.

    >>> unit_coincidences(["a", "a", "b"])[("a", "b")]
    1.0
    """
    out: dict[tuple[Hashable, Hashable], float] = {}
    if len(values) < 2:
        return out
    weight = 1.0 / (len(values) - 1)
    for c, k in permutations(values, 2):
        out[(c, k)] = out.get((c, k), 0.0) + weight
    return out


def _distance(level: Level, totals: dict[Hashable, float]) -> Distance:
    """δ²(c, k) for the level of measurement; ordinal and interval values are numbers
    (an ordinal label's rank)."""
    if level == "nominal":
        return lambda c, k: 0.0 if c == k else 1.0
    if level == "interval":
        return lambda c, k: (_number(c) - _number(k)) ** 2
    ranked = sorted(totals, key=_number)
    rank = {v: i for i, v in enumerate(ranked)}

    def ordinal(c: Hashable, k: Hashable) -> float:
        low, high = sorted((rank[c], rank[k]))
        between = sum(totals[ranked[g]] for g in range(low, high + 1))
        return (between - (totals[c] + totals[k]) / 2) ** 2

    return ordinal


def _number(value: Hashable) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"an ordinal or interval value must be a number, got {value!r}")
    return float(value)
