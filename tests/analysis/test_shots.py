"""Few-shot examples from labelled disagreements, and their cross-validated gain."""

from __future__ import annotations

import random
from collections.abc import Sequence

from evaldsl.analysis.shots import ShotCase, choose_shots, cross_validate_shots


def labelled(n: int = 60, seed: int = 3) -> list[ShotCase]:
    """Cases whose judge is off by up to 60 points either way, each text its own."""
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        human = rnd.uniform(0, 100)
        auto = min(100.0, max(0.0, human + rnd.uniform(-60, 60)))
        out.append(ShotCase(f"c{i:02}", f"用户：第{i}个问题\n客服：回答{i}", auto, human))
    return out


class TestChoice:
    def test_largest_disagreements_alternating_too_high_and_too_low(self) -> None:
        pool = [ShotCase("a", "t", 95, 10), ShotCase("b", "t", 80, 40),
                ShotCase("c", "t", 5, 70), ShotCase("d", "t", 20, 50), ShotCase("e", "t", 60, 55)]
        assert [s.id for s in choose_shots(pool, 4)] == ["a", "c", "b", "d"]

    def test_within_the_threshold_or_too_long_is_no_example(self) -> None:
        pool = [ShotCase("a", "x" * 601, 95, 10), ShotCase("b", "t", 50, 35),
                ShotCase("c", "t", 60, 30)]
        assert [s.id for s in choose_shots(pool, 3, threshold=20)] == ["c"]

    def test_the_choice_does_not_depend_on_the_order_given(self) -> None:
        cases = labelled()
        shuffled = list(cases)
        random.Random(1).shuffle(shuffled)
        assert choose_shots(cases, 5) == choose_shots(shuffled, 5)


def memorising(examples: Sequence[ShotCase], cases: Sequence[ShotCase]) -> list[float | None]:
    """A judge that gives a case the human's points when it was shown as an example, and
    its own otherwise: had a held-out case been an example, its fold would be perfect."""
    shown = {e.text for e in examples}
    return [c.human if c.text in shown else c.auto for c in cases]


class TestCrossValidation:
    def test_no_case_is_judged_with_itself_as_an_example(self) -> None:
        cases = labelled()
        cv = cross_validate_shots(cases, memorising, 5, 0)
        for fold in cv.folds:
            assert fold.examples and set(fold.examples).isdisjoint(fold.test_ids)
            assert fold.after.scores == fold.before.scores
        assert sorted(i for f in cv.folds for i in f.test_ids) == [c.id for c in cases]

    def test_an_injected_leak_shows_in_the_figures(self) -> None:
        """Shown every held-out case, the memorising judge's deviation drops to zero: the
        test above would see it."""
        cases = labelled()

        def leaky(examples: Sequence[ShotCase], held: Sequence[ShotCase]) -> list[float | None]:
            return memorising([*examples, *held], held)

        cv = cross_validate_shots(cases, leaky, 5, 0)
        assert all(f.after.scores is not None and f.after.scores.mad == 0 for f in cv.folds)
        assert all(f.before.scores is not None and f.before.scores.mad > 0 for f in cv.folds)

    def test_a_judge_that_learns_from_examples_gains_on_held_out_folds(self) -> None:
        """A judge whose error halves when shown examples: the held-out deviation falls."""
        cases = labelled()

        def learning(examples: Sequence[ShotCase],
                     held: Sequence[ShotCase]) -> list[float | None]:
            return [c.human + (c.auto - c.human) / 2 for c in held]

        cv = cross_validate_shots(cases, learning, 5, 0)
        for fold in cv.folds:
            assert fold.after.scores is not None and fold.before.scores is not None
            assert fold.after.scores.mad < fold.before.scores.mad

    def test_errors_are_left_out_of_both_sides(self) -> None:
        cases = labelled(20)

        def failing(examples: Sequence[ShotCase], held: Sequence[ShotCase]) -> list[float | None]:
            return [None if c.id == held[0].id else c.auto for c in held]

        cv = cross_validate_shots(cases, failing, 4, 0)
        assert cv.errors == 4
        assert all(f.before.scores is not None and f.before.scores.n == len(f.test_ids) - 1
                   for f in cv.folds)

    def test_the_proposal_is_chosen_from_every_case(self) -> None:
        cases = labelled()
        cv = cross_validate_shots(cases, memorising, 5, 0, shots=4)
        assert cv.final == tuple(choose_shots(cases, 4))
