"""The fit of a weighted score to human scores, and its cross-validation."""

from __future__ import annotations

import numpy as np
import pytest

from evaldsl.analysis.fit import (
    FitData,
    Scoring,
    cross_validate,
    fit_scoring,
    fit_thresholds,
    fit_weights,
    folds,
    nonnegative_least_squares,
)

LEVELS = ("excellent", "acceptable", "poor")
WRITTEN = Scoring((0.25, 0.25, 0.25, 0.25), (80.0, 60.0), LEVELS, (False, False))
TRUE_WEIGHTS = np.array([0.5, 0.3, 0.2, 0.0])
TOLERANCE = 0.03
"""Largest error allowed on each recovered weight, with 2-point noise over 400 cases."""


def level(points: float) -> str:
    return "excellent" if points >= 70 else "acceptable" if points >= 45 else "poor"


def synthetic(n: int = 400, seed: int = 1, noise: float = 2.0) -> FitData:
    """Humans who score 10 + 0.8 x (the true weighted sum), plus noise, and level it at 70/45."""
    rng = np.random.default_rng(seed)
    checks = rng.uniform(0.0, 1.0, size=(n, 4))
    human = 10.0 + 0.8 * 100.0 * checks @ TRUE_WEIGHTS + rng.normal(0.0, noise, n)
    return FitData(tuple(f"c{i}" for i in range(n)), checks, human,
                   tuple(level(h) for h in human))


class TestWeights:
    def test_true_weights_are_recovered(self) -> None:
        """Weights within 0.03 of the truth, whatever offset and scale the humans use."""
        data = synthetic()
        weights = fit_weights(data.checks, data.human)
        assert np.abs(weights - TRUE_WEIGHTS).max() < TOLERANCE
        assert weights.sum() == pytest.approx(1.0) and (weights >= 0).all()

    def test_a_constant_check_gets_no_weight(self) -> None:
        """A check every case passes tells no case from another: it buys no agreement."""
        data = synthetic()
        constant = data.checks.copy()
        constant[:, 0] = 1.0
        weights = fit_weights(constant, data.human)
        assert weights[0] == 0.0
        assert weights[1] > weights[2] > weights[3]

    def test_no_check_following_the_humans_keeps_the_written_weights(self) -> None:
        data = synthetic()
        weights = fit_weights(1.0 - data.checks[:, :3], data.human, (2.0, 1.0, 1.0))
        assert weights.tolist() == pytest.approx([0.5, 0.25, 0.25])

    def test_nonnegative_least_squares_matches_the_unconstrained_solution_inside(self) -> None:
        rng = np.random.default_rng(3)
        a = rng.normal(size=(50, 3))
        truth = np.array([1.0, 2.0, 0.5])
        assert nonnegative_least_squares(a, a @ truth) == pytest.approx(truth, abs=1e-6)


class TestThresholds:
    def test_thresholds_are_recovered(self) -> None:
        """The humans level at 70 and 45 on their own scale: 10 + 0.8 x score, so 75 and 43.75."""
        data = synthetic(noise=0.0)
        points = 100.0 * data.checks @ TRUE_WEIGHTS
        cuts = fit_thresholds(points, data.human_labels, WRITTEN)
        assert cuts[0] == pytest.approx(75.0, abs=1.0)
        assert cuts[1] == pytest.approx(43.75, abs=1.0)

    def test_unlabelled_cases_keep_the_written_thresholds(self) -> None:
        data = synthetic()
        assert fit_thresholds(data.human, (None,) * len(data), WRITTEN) == (80.0, 60.0)


class TestFolds:
    def test_folds_partition_the_cases(self) -> None:
        parts = folds([f"c{i}" for i in range(23)], 5, 7)
        assert sorted(i for p in parts for i in p) == list(range(23))
        assert sorted(len(p) for p in parts) == [4, 4, 5, 5, 5]

    def test_folds_follow_the_ids_not_the_row_order(self) -> None:
        ids = [f"c{i}" for i in range(30)]
        forward = [{ids[i] for i in p} for p in folds(ids, 3, 1)]
        backward = [{ids[::-1][i] for i in p} for p in folds(ids[::-1], 3, 1)]
        assert forward == backward

    def test_another_seed_draws_other_folds(self) -> None:
        ids = [f"c{i}" for i in range(30)]
        assert folds(ids, 3, 1) != folds(ids, 3, 2)


class TestCrossValidation:
    def test_the_fit_is_never_given_a_case_it_is_measured_on(self) -> None:
        """A fitter that records what it was given: every fold's training set misses its test."""
        data = synthetic(100)
        given: list[set[str]] = []

        def recording(train: FitData, written: Scoring) -> Scoring:
            given.append(set(train.ids))
            return fit_scoring(train, written)

        cv = cross_validate(data, WRITTEN, 5, 0, recording)
        assert len(given) == 6
        for fold, seen in zip(cv.folds, given, strict=False):
            assert seen.isdisjoint(fold.test_ids)
            assert seen | set(fold.test_ids) == set(data.ids)
        assert given[-1] == set(data.ids)

    def test_poisoned_labels_in_a_test_fold_change_only_that_folds_figures(self) -> None:
        """Labels inverted in fold 0's cases: had the fit of fold 0 seen them, its weights move."""
        data = synthetic(200)
        clean = cross_validate(data, WRITTEN, 4, 0)
        test = set(clean.folds[0].test_ids)
        poisoned_human = np.array([100.0 - h if i in test else h
                                   for i, h in zip(data.ids, data.human, strict=True)])
        poisoned = FitData(data.ids, data.checks, poisoned_human, data.human_labels)
        dirty = cross_validate(poisoned, WRITTEN, 4, 0)
        assert dirty.folds[0].fitted == clean.folds[0].fitted
        assert dirty.folds[0].after.scores != clean.folds[0].after.scores
        assert all(d.fitted != c.fitted for d, c in zip(dirty.folds[1:], clean.folds[1:],
                                                        strict=True))

    def test_the_fit_beats_the_written_weights_on_held_out_cases(self) -> None:
        cv = cross_validate(synthetic(), WRITTEN, 5, 0)
        before, after = cv.out_of_fold_before.scores, cv.out_of_fold_after.scores
        assert before is not None and after is not None
        assert after.n == before.n == 400
        assert after.spearman is not None and before.spearman is not None
        assert after.spearman > before.spearman + 0.05
        assert cv.out_of_fold_after.labels is not None
        assert cv.out_of_fold_after.labels.kappa is not None
        assert cv.out_of_fold_after.labels.kappa > 0.8
