"""A seeded bootstrap interval for formula metrics, resampling cases.

`rate(success) + 0.5 * rate(partial)` has no numerator of cases, so no Wilson
interval applies; resampling the cases does. A resample draws `n` cases with
replacement from the `n` measured ones: a multinomial draw over the distinct
per-case inputs weighted by how many cases gave each. The inputs are held as a
sorted multiset, so the interval depends neither on the order cases arrived
in nor on how shards split them, and a fixed seed makes a report reproducible.

Small samples resample in pure Python (a deterministic run over a few hundred
cases imports nothing heavy); beyond `PURE_BUDGET` case draws numpy does it,
imported only then. A formula with a percentile gets no interval (resampling
a percentile needs every resample's order, which the counts do not give).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evaldsl.stats import percentile

if TYPE_CHECKING:
    from evaldsl.runtime.aggregation import AggregateSpec

SEED = 20250
"""The seed of every bootstrap: the same cases give the same interval."""
RESAMPLES = 2000
PURE_BUDGET = 200_000
"""Case draws (resamples x cases) up to which pure Python resamples."""
LEVEL = 0.95
CHUNK = 1 << 22
"""Numbers drawn per numpy chunk: a few tens of megabytes at most."""

Inputs = Sequence[tuple[tuple[float, ...], int]]
"""Distinct per-case inputs (one value per aggregate) and how many cases gave each."""
Combine = Callable[[Sequence[float | None]], float | None]


@dataclass(frozen=True, slots=True)
class BootstrapInterval:
    low: float
    high: float
    seed: int = SEED
    resamples: int = RESAMPLES
    level: float = LEVEL

    def to_dict(self) -> dict[str, object]:
        return {"low": self.low, "high": self.high, "level": self.level,
                "method": "bootstrap", "seed": self.seed, "resamples": self.resamples}

    @classmethod
    def from_dict(cls, data: Any) -> BootstrapInterval | None:
        """The interval `to_dict` wrote, read back from report.json; None for any other."""
        if not data or data.get("method") != "bootstrap":
            return None
        return cls(data["low"], data["high"], data["seed"], data["resamples"], data["level"])


def bootstrap(aggregates: Sequence[AggregateSpec], combine: Combine, inputs: Inputs,
              resamples: int = RESAMPLES, seed: int = SEED) -> BootstrapInterval | None:
    """The 95% percentile-bootstrap interval of `combine` over the cases in `inputs`.

    None for no cases, a formula with a percentile, or a resample where the
    formula is undefined (a division by zero): no interval is better than a wrong one.
    """
    n = sum(count for _row, count in inputs)
    if n == 0 or any(a.kind == "percentile" for a in aggregates):
        return None
    rows = sorted(inputs)
    draw = _pure if resamples * n <= PURE_BUDGET else _vectorised
    values = [combine(v) for v in draw(aggregates, rows, n, resamples, seed)]
    if any(v is None for v in values):
        return None
    ordered = sorted(v for v in values if v is not None)
    low, high = percentile(ordered, 2.5), percentile(ordered, 97.5)
    assert low is not None and high is not None
    return BootstrapInterval(low, high, seed, resamples)


def _pure(aggregates: Sequence[AggregateSpec], rows: Inputs, n: int, resamples: int,
          seed: int) -> list[list[float | None]]:
    rnd = random.Random(seed)
    cumulative, total = [], 0
    for _row, count in rows:
        total += count
        cumulative.append(total)
    picks = range(len(rows))
    out: list[list[float | None]] = []
    for _draw in range(resamples):
        weights = [0] * len(rows)
        for i in rnd.choices(picks, cum_weights=cumulative, k=n):
            weights[i] += 1
        out.append([_aggregate(a.kind, k, rows, weights, n) for k, a in enumerate(aggregates)])
    return out


def _aggregate(kind: str, k: int, rows: Inputs, weights: Sequence[int], n: int) -> float:
    present = [row[k] for (row, _c), w in zip(rows, weights, strict=True) if w]
    if kind == "min":
        return min(present)
    if kind == "max":
        return max(present)
    total = sum(w * row[k] for (row, _c), w in zip(rows, weights, strict=True))
    return total / n if kind in ("rate", "mean") else float(total)


def _vectorised(aggregates: Sequence[AggregateSpec], rows: Inputs, n: int, resamples: int,
                seed: int) -> list[list[float | None]]:
    """As `_pure`, with numpy, in chunks of a few million numbers: multinomial counts over
    few distinct inputs, else `n` drawn cases per resample (a multinomial over many is slow)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    values = np.array([row for row, _c in rows], dtype=float)
    counts = np.array([c for _r, c in rows], dtype=np.int64)
    by_counts = len(rows) * 8 <= n
    cases = [] if by_counts else [np.repeat(values[:, k], counts) for k in range(len(aggregates))]
    chunk = max(1, CHUNK // (len(rows) if by_counts else n))
    kinds = [a.kind for a in aggregates]
    out: list[list[float | None]] = []
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        if by_counts:
            weights = rng.multinomial(n, counts / n, size=size)
            columns = [_by_counts(kind, weights, values[:, k], n) for k, kind in enumerate(kinds)]
        else:
            drawn = rng.integers(0, n, size=(size, n))
            columns = [_by_cases(kind, cases[k][drawn]) for k, kind in enumerate(kinds)]
        out.extend(np.stack(columns, axis=1).tolist())
    return out


def _by_counts(kind: str, weights: Any, values: Any, n: int) -> Any:
    """One aggregate per resample from how many times each distinct input was drawn."""
    import numpy as np

    if kind in ("min", "max"):
        fill = np.inf if kind == "min" else -np.inf
        masked = np.where(weights > 0, values, fill)
        return masked.min(axis=1) if kind == "min" else masked.max(axis=1)
    total = weights @ values
    return total / n if kind in ("rate", "mean") else total


def _by_cases(kind: str, drawn: Any) -> Any:
    """One aggregate per resample (a row of `drawn`, the drawn cases' values)."""
    if kind == "min":
        return drawn.min(axis=1)
    if kind == "max":
        return drawn.max(axis=1)
    return drawn.mean(axis=1) if kind in ("rate", "mean") else drawn.sum(axis=1)
