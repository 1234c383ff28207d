"""Fitting a weighted score to human scores, measured only on cases the fit never saw.

A spec's score `let s = 100 * (w1 * a + w2 * b + ...)` over check scores (0..1)
has weights a domain expert guessed, and levels cut at thresholds they guessed
too. With human scores and levels for a sample, both can be fitted: the
weights on the simplex (non-negative, summing to 1, so the score keeps its
meaning and its 0-100 range) so that the score follows the human points as
closely as a straight line can (`fit_weights` says why not closer in
absolute terms), then the thresholds by the highest Cohen's kappa of the
levels they give.

A fit measured on the cases it was fitted to flatters itself, so the figures
are k-fold cross-validated: the folds are drawn from the case ids and the seed
(not from the file's row order), each fold is scored by a fit on the other
folds alone, and the spec as written is measured on the same held-out folds,
so before and after are paired. The weights proposed to the human are fitted
on every case: the cross-validated figures estimate how well that procedure
does on cases it has not seen.

Pure arithmetic over `FitData`; reading results and the spec is
`evaldsl.analysis.fit_form`'s and the CLI's job.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from evaldsl.analysis.calibrate import Calibration, Judged, calibrate

POINTS = 100.0
"""The fitted score is on 0-100 points, the scale human scores are compared on."""
CANDIDATES = 40
"""Threshold candidates tried per cut: quantiles of the training scores."""


@dataclass(frozen=True)
class FitData:
    """The cases a fit may use: each check's score and the human judgement."""

    ids: tuple[str, ...]
    checks: np.ndarray
    """cases x checks, every score 0..1."""
    human: np.ndarray
    """Human scores, 0-100 points."""
    human_labels: tuple[str | None, ...]

    def subset(self, rows: Sequence[int]) -> FitData:
        index = np.asarray(rows, dtype=int)
        return FitData(tuple(self.ids[i] for i in index), self.checks[index],
                       self.human[index], tuple(self.human_labels[i] for i in index))

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class Scoring:
    """Weights and level thresholds: what the spec's let and outcome block say."""

    weights: tuple[float, ...]
    thresholds: tuple[float, ...]
    """In points, one per level but the last, highest first."""
    levels: tuple[str, ...]
    """Highest level first; the last one is `otherwise`."""
    strict: tuple[bool, ...]
    """Per threshold, whether the spec compares with `>` rather than `>=`."""

    def points(self, checks: np.ndarray) -> np.ndarray:
        points: np.ndarray = POINTS * (checks @ np.asarray(self.weights, dtype=float))
        return points

    def level_of(self, points: np.ndarray) -> list[str]:
        return [self._level(float(p)) for p in points]

    def _level(self, p: float) -> str:
        for cut, strict, name in zip(self.thresholds, self.strict, self.levels, strict=False):
            if p > cut or (p == cut and not strict):
                return name
        return self.levels[-1]


Fitter = Callable[[FitData, Scoring], Scoring]
"""Given the training cases and the spec as written, the fitted scoring."""


def measure(scoring: Scoring, data: FitData) -> Calibration:
    """The calibration figures of `scoring` on `data`."""
    return calibrate(_judged(scoring, data))


# ---------------------------------------------------------------- the fit


def fit_scoring(train: FitData, written: Scoring) -> Scoring:
    """Weights by least squares on the simplex, then thresholds by kappa, on `train` alone."""
    weights = fit_weights(train.checks, train.human, written.weights)
    fitted = Scoring(tuple(float(w) for w in weights), written.thresholds, written.levels,
                     written.strict)
    if not written.thresholds or all(h is None for h in train.human_labels):
        return fitted
    cuts = fit_thresholds(fitted.points(train.checks), train.human_labels, written)
    return Scoring(fitted.weights, cuts, written.levels, written.strict)


def fit_weights(checks: np.ndarray, human: np.ndarray, fallback: Sequence[float] = (),
                rounds: int = 5000) -> np.ndarray:
    """The simplex weights whose score best follows the human scores, up to an offset and scale.

    Least squares of `a + b * (100 checks w)` on the human points, b >= 0 and w
    on the simplex, is the non-negative least squares of the centred human
    scores on the centred check scores (v = b w, the offset absorbs the means),
    so it is convex; w = v / sum(v). Fitting `100 checks w` itself, with no
    offset, would chase the bias instead of the ranking: when every check is
    generous, the least-squares weights go to whichever check is lowest on
    average, whether or not it follows the humans. The thresholds, fitted
    next, map the score to the levels. When no check follows the humans at
    all (v = 0), the weights are `fallback` (the spec's, normalised).
    """
    a = POINTS * np.asarray(checks, dtype=float)
    a = a - a.mean(axis=0)
    h = np.asarray(human, dtype=float) - float(np.mean(human))
    v = nonnegative_least_squares(a, h, rounds)
    total = float(v.sum())
    if total <= 1e-12:
        written = np.asarray(fallback or [1.0] * a.shape[1], dtype=float)
        v, total = written, float(written.sum())
    weights: np.ndarray = v / total
    return weights


def nonnegative_least_squares(a: np.ndarray, b: np.ndarray, rounds: int = 5000) -> np.ndarray:
    """argmin ||a v - b||^2 over v >= 0 (accelerated projected gradient, from v = 0).

    Convex, so the plain method converges; no solver dependency is needed for a
    handful of weights. A column that is constant after centring keeps weight 0.
    """
    lipschitz = float(np.linalg.eigvalsh(a.T @ a).max()) or 1.0
    v: np.ndarray = np.zeros(a.shape[1])
    y = v
    t = 1.0
    for _ in range(rounds):
        step: np.ndarray = np.maximum(y - (a.T @ (a @ y - b)) / lipschitz, 0.0)
        t_next = (1.0 + (1.0 + 4.0 * t * t) ** 0.5) / 2.0
        y = step + ((t - 1.0) / t_next) * (step - v)
        if np.abs(step - v).max() < 1e-12:
            return step
        v, t = step, t_next
    return v


def fit_thresholds(points: np.ndarray, human_labels: Sequence[str | None],
                   written: Scoring) -> tuple[float, ...]:
    """The descending cuts whose levels agree best with the human levels (Cohen's kappa).

    Every combination of candidate cuts (quantile midpoints of the scores) is
    tried; ties keep the first, so the result is deterministic.
    """
    labelled = [i for i, h in enumerate(human_labels) if h in written.levels]
    if not labelled:
        return written.thresholds
    scores = points[labelled]
    human = np.array([written.levels.index(str(human_labels[i])) for i in labelled])
    candidates = _candidates(scores)
    best, best_key = written.thresholds, (-2.0, -1.0)
    for cuts in itertools.combinations(candidates[::-1], len(written.thresholds)):
        auto = _level_index(scores, cuts, written.strict)
        key = _kappa(auto, human, len(written.levels))
        if key > best_key:
            best, best_key = tuple(float(c) for c in cuts), key
    return best


def _candidates(scores: np.ndarray) -> list[float]:
    unique = np.unique(scores)
    mids = (unique[:-1] + unique[1:]) / 2.0 if len(unique) > 1 else unique
    if len(mids) > CANDIDATES:
        mids = np.unique(np.quantile(mids, np.linspace(0.0, 1.0, CANDIDATES)))
    return [float(m) for m in mids]


def _level_index(scores: np.ndarray, cuts: Sequence[float], strict: Sequence[bool]) -> np.ndarray:
    index = np.full(len(scores), len(cuts))
    for position in range(len(cuts) - 1, -1, -1):
        above = scores > cuts[position] if strict[position] else scores >= cuts[position]
        index[above] = position
    return index


def _kappa(auto: np.ndarray, human: np.ndarray, levels: int) -> tuple[float, float]:
    """(kappa, agreement); kappa -1 stands for undefined, so any defined one beats it."""
    table = np.zeros((levels, levels))
    np.add.at(table, (auto, human), 1.0)
    n = table.sum()
    observed = float(np.trace(table)) / n
    chance = float(table.sum(axis=1) @ table.sum(axis=0)) / (n * n)
    kappa = -1.0 if chance >= 1.0 else (observed - chance) / (1.0 - chance)
    return kappa, observed


# ---------------------------------------------------------------- cross-validation


def folds(ids: Sequence[str], k: int, seed: int) -> list[list[int]]:
    """k disjoint folds covering every case, drawn from the ids and the seed alone.

    Cases are ordered by a hash of the seed and their id, then dealt round
    robin: the same labels give the same folds whatever order the file lists
    them in, and whatever numpy version runs it.

    >>> sorted(sum(folds(["a", "b", "c", "d"], 2, 0), []))
    [0, 1, 2, 3]
    """
    order = sorted(range(len(ids)),
                   key=lambda i: hashlib.sha256(f"{seed}\x00{ids[i]}".encode()).hexdigest())
    return [sorted(order[f::k]) for f in range(k)]


@dataclass(frozen=True)
class Fold:
    test_ids: tuple[str, ...]
    fitted: Scoring
    before: Calibration
    """The spec as written, on this held-out fold."""
    after: Calibration
    """The scoring fitted on the other folds, on this held-out fold."""


@dataclass(frozen=True)
class CrossValidation:
    k: int
    seed: int
    folds: tuple[Fold, ...]
    out_of_fold_before: Calibration
    """Every case scored by the spec as written (same cases as after)."""
    out_of_fold_after: Calibration
    """Every case scored by the fit that did not see it, pooled."""
    final: Scoring
    """Fitted on every case: what the patch proposes."""


def cross_validate(data: FitData, written: Scoring, k: int, seed: int,
                   fitter: Fitter = fit_scoring) -> CrossValidation:
    """Fit on k-1 folds, measure on the k-th, for each fold; then fit on all for the patch."""
    fold_rows = folds(data.ids, k, seed)
    done, before_rows, after_rows = [], [], []
    for test in fold_rows:
        held = set(test)
        train = data.subset([i for i in range(len(data)) if i not in held])
        fitted = fitter(train, written)
        held_out = data.subset(test)
        done.append(Fold(held_out.ids, fitted, measure(written, held_out),
                         measure(fitted, held_out)))
        before_rows.append(_judged(written, held_out))
        after_rows.append(_judged(fitted, held_out))
    return CrossValidation(k, seed, tuple(done), calibrate(itertools.chain(*before_rows)),
                           calibrate(itertools.chain(*after_rows)), fitter(data, written))


def _judged(scoring: Scoring, data: FitData) -> list[Judged]:
    points = scoring.points(data.checks)
    levels: Sequence[str | None] = (scoring.level_of(points) if scoring.levels
                                    else [None] * len(data))
    return [Judged(i, lv, h_lv, float(p), float(h))
            for i, lv, h_lv, p, h in zip(data.ids, levels, data.human_labels, points,
                                         data.human, strict=True)]
