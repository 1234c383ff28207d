"""Calibration: how far a spec's automatic verdicts are from human judgement.

A spec is a set of heuristics; humans labelling a sample of cases are the
ground truth the heuristics approximate. This module compares the two on the
cases both judged: for labels, the observed agreement and Cohen's kappa
(agreement corrected for what two raters would reach by chance with the same
label frequencies); for scores on a 0-100 scale, the mean absolute deviation,
the bias (automatic minus human) and rank correlation; and it lists the cases
whose deviation exceeds a threshold, the ones to read when refining the spec.

Everything here is pure arithmetic over `Judged` records; reading results and
label files is `evaldsl.calibration`'s job.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

DEFAULT_THRESHOLD = 20.0
"""Points (on the 0-100 scale) beyond which a case is listed as a deviation."""


@dataclass(frozen=True, slots=True)
class Judged:
    """One case as the spec and a human judged it; None where one side is silent."""

    id: str
    auto_label: str | None = None
    human_label: str | None = None
    auto_score: float | None = None
    """0-100 points."""
    human_score: float | None = None
    """0-100 points."""


@dataclass(frozen=True)
class LabelAgreement:
    n: int
    agreed: int
    kappa: float | None
    """None when chance agreement is total (both raters always give one label)."""
    confusion: dict[str, dict[str, int]]
    """automatic label -> human label -> count."""

    @property
    def agreement(self) -> float:
        return self.agreed / self.n if self.n else math.nan


@dataclass(frozen=True)
class ScoreAgreement:
    n: int
    mad: float
    """Mean absolute deviation, in points."""
    bias: float
    """Mean of automatic minus human, in points: positive = the spec is too generous."""
    pearson: float | None
    spearman: float | None


@dataclass(frozen=True, slots=True)
class Deviation:
    id: str
    auto_score: float
    human_score: float

    @property
    def deviation(self) -> float:
        return self.auto_score - self.human_score


@dataclass(frozen=True)
class Calibration:
    labels: LabelAgreement | None
    scores: ScoreAgreement | None
    deviations: list[Deviation] = field(default_factory=list)
    """Cases beyond the threshold, largest absolute deviation first."""
    threshold: float = DEFAULT_THRESHOLD

    def to_dict(self) -> dict[str, object]:
        labels = scores = None
        if self.labels is not None:
            la = self.labels
            labels = {"n": la.n, "agreed": la.agreed, "agreement": _finite(la.agreement),
                      "kappa": la.kappa, "confusion": la.confusion}
        if self.scores is not None:
            s = self.scores
            scores = {"n": s.n, "mad": s.mad, "bias": s.bias, "pearson": s.pearson,
                      "spearman": s.spearman}
        listed = [{"id": d.id, "auto_score": d.auto_score, "human_score": d.human_score,
                   "deviation": d.deviation} for d in self.deviations]
        return {"labels": labels, "scores": scores, "threshold": self.threshold,
                "deviations": listed}


def calibrate(judged: Iterable[Judged], threshold: float = DEFAULT_THRESHOLD) -> Calibration:
    """Compare automatic and human judgements on every case both sides judged."""
    rows = list(judged)
    label_pairs = [(r.auto_label, r.human_label) for r in rows
                   if r.auto_label is not None and r.human_label is not None]
    scored = [Deviation(r.id, r.auto_score, r.human_score) for r in rows
              if r.auto_score is not None and r.human_score is not None]
    labels = label_agreement(label_pairs) if label_pairs else None
    scores = score_agreement([(d.auto_score, d.human_score) for d in scored]) if scored else None
    deviations = [d for d in scored if abs(d.deviation) > threshold]
    deviations.sort(key=lambda d: (-abs(d.deviation), d.id))
    return Calibration(labels, scores, deviations, threshold)


def label_agreement(pairs: Sequence[tuple[str, str]]) -> LabelAgreement:
    """Observed agreement and Cohen's kappa of (automatic, human) label pairs."""
    n = len(pairs)
    agreed = sum(1 for a, h in pairs if a == h)
    confusion: dict[str, dict[str, int]] = {}
    for a, h in pairs:
        row = confusion.setdefault(a, {})
        row[h] = row.get(h, 0) + 1
    return LabelAgreement(n, agreed, cohen_kappa(pairs), confusion)


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's kappa: (observed - chance agreement) / (1 - chance agreement).

    >>> cohen_kappa([("a", "a"), ("b", "b"), ("a", "b"), ("b", "b")])
    0.5
    >>> cohen_kappa([("a", "a"), ("a", "a")]) is None
    True
    """
    n = len(pairs)
    if n == 0:
        return None
    auto = Counter(a for a, _ in pairs)
    human = Counter(h for _, h in pairs)
    observed = sum(1 for a, h in pairs if a == h) / n
    chance = sum(auto[k] * human.get(k, 0) for k in auto) / (n * n)
    if math.isclose(chance, 1.0):
        return None
    return (observed - chance) / (1 - chance)


def score_agreement(pairs: Sequence[tuple[float, float]]) -> ScoreAgreement:
    """Deviation and correlation of (automatic, human) scores on one scale."""
    n = len(pairs)
    if n == 0:
        return ScoreAgreement(0, math.nan, math.nan, None, None)
    diffs = [a - h for a, h in pairs]
    autos = [a for a, _ in pairs]
    humans = [h for _, h in pairs]
    return ScoreAgreement(n, sum(abs(d) for d in diffs) / n, sum(diffs) / n,
                          pearson(autos, humans), pearson(ranks(autos), ranks(humans)))


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r, or None when either side is constant.

    >>> pearson([1, 2, 3], [2, 4, 6])
    1.0
    """
    if len(xs) < 2:
        return None
    dxs, dys = _unit_deviations(xs), _unit_deviations(ys)
    if dxs is None or dys is None:
        return None
    sxy = sum(x * y for x, y in zip(dxs, dys, strict=True))
    sxx = sum(x * x for x in dxs)
    syy = sum(y * y for y in dys)
    return sxy / math.sqrt(sxx * syy)  # both at least 1: the largest deviation is 1


def _unit_deviations(values: Sequence[float]) -> list[float] | None:
    """Deviations from the mean, divided by the largest one (r does not change with scale),
    so that squares of tiny spreads do not underflow to 0; None when all values are equal."""
    mean = sum(values) / len(values)
    deviations = [v - mean for v in values]
    largest = max(abs(d) for d in deviations)
    if largest == 0:
        return None
    return [d / largest for d in deviations]


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks with ties sharing their average rank (for Spearman's rho).

    >>> ranks([10, 30, 20, 30])
    [1.0, 3.5, 2.0, 3.5]
    """
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def rescale(value: float, low: float, high: float) -> float:
    """A value on the scale [low, high] as points on 0-100.

    >>> rescale(1, 1, 5), rescale(4, 1, 5), rescale(0.5, 0, 1)
    (0.0, 75.0, 50.0)
    """
    return (value - low) / (high - low) * 100.0


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else x
