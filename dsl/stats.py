"""Small statistics the reports print: intervals for rates and mergeable histograms.

A rate measured on 40 cases is not the same claim as one measured on 4,000;
the Wilson score interval says how much the denominator limits what a rate
means, and it stays inside [0, 1] and sensible at 0/n and n/n, where the
textbook normal interval does not.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Z_95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


@dataclass(frozen=True, slots=True)
class Interval:
    low: float
    high: float
    level: float = 0.95

    def to_dict(self) -> dict[str, object]:
        return {"low": self.low, "high": self.high, "level": self.level, "method": "wilson"}


def wilson(successes: float, n: float, z: float = Z_95) -> Interval | None:
    """The Wilson score interval of `successes` out of `n`, or None for an empty sample.

    `successes` may be fractional (a weighted rate such as `rate(success) + 0.5 *
    rate(partial)`); the formula only needs the observed proportion.

    >>> i = wilson(25, 40); round(i.low, 3), round(i.high, 3)
    (0.47, 0.758)
    >>> wilson(0, 10).low
    0.0
    """
    if n <= 0:
        return None
    p = min(max(successes / n, 0.0), 1.0)
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Interval(max(0.0, centre - half), min(1.0, centre + half))


HISTOGRAM_BINS = 10


def bin_of(score: float, bins: int = HISTOGRAM_BINS) -> int:
    """The bin of a score in [0, 1]; 1.0 falls into the last bin.

    >>> bin_of(0.0), bin_of(0.55), bin_of(1.0)
    (0, 5, 9)
    """
    return min(max(int(score * bins), 0), bins - 1)


def histogram(scores: Iterable[float], bins: int = HISTOGRAM_BINS) -> list[int]:
    """Counts of scores in `bins` equal bins over [0, 1]."""
    counts = [0] * bins
    for s in scores:
        counts[bin_of(s, bins)] += 1
    return counts


def percent(value: float | None, digits: int = 1) -> str:
    """A fraction written as a percentage for people (`0.625` -> `62.5%`).

    >>> percent(0.625), percent(None), percent(1.0)
    ('62.5%', 'n/a', '100.0%')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value * 100:.{digits}f}%"


def number(value: object, digits: int = 3) -> str:
    """A metric value for people: integers stay integers, floats keep a few digits.

    >>> number(3.0), number(0.12345), number(None), number(1453.5)
    ('3', '0.123', 'n/a', '1453.5')
    """
    if value is None or isinstance(value, bool):
        return "n/a" if value is None else str(value).lower()
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return str(int(value))
    if isinstance(value, float):
        return str(round(value, digits))
    return str(value)


def plural(count: int, noun: str) -> str:
    """`1 error`, `2 errors`.

    >>> plural(1, "bad row"), plural(3, "error")
    ('1 bad row', '3 errors')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def fraction(numerator: float | None, denominator: int, sep: str = "/") -> str:
    """`25/40`, or `n=40` for aggregates without a numerator (min, max, percentile).

    >>> fraction(25, 40), fraction(None, 0), fraction(2.5, 4, " / ")
    ('25/40', 'n=0', '2.5 / 4')
    """
    if numerator is None:
        return f"n={denominator}"
    return f"{number(numerator)}{sep}{denominator}"


def breakdown(template: str, parts: Sequence[Mapping[str, Any]]) -> str:
    """A formula metric's parts in its own expression, each with its value and n.

    >>> breakdown("{0} + 0.5 × {1}", [
    ...     {"aggregate": "rate(a)", "value": 0.6, "numerator": 6, "denominator": 10},
    ...     {"aggregate": "rate(b)", "value": 0.2, "numerator": 2, "denominator": 10}])
    'rate(a) 0.6 (6/10) + 0.5 × rate(b) 0.2 (2/10)'
    """
    shown = [f"{p['aggregate']} {number(p['value'])} "
             f"({fraction(p['numerator'], p['denominator'])})" for p in parts]
    return template.format(*shown)


def percentile(ordered: Sequence[float], p: float) -> float | None:
    """The `p`-th percentile (0..100) with linear interpolation, as numpy's default."""
    if not ordered:
        return None
    rank = (len(ordered) - 1) * min(max(p, 0.0), 100.0) / 100.0
    lo = math.floor(rank)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (rank - lo)
