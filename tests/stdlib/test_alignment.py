"""The alignment behind trajectory's order modes: against brute force, and the modes' laws."""

from __future__ import annotations

from itertools import combinations, permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.stdlib.tools.alignment import align, heaviest_common, matching

MODES = ("strict", "unordered", "subset", "superset", "ordered_superset")


@st.composite
def problems(draw: st.DrawFn) -> tuple[list[list[bool]], int, list[int]]:
    """A fits table of up to 5 expected by 5 actual items, with weights 1..3."""
    n_expected = draw(st.integers(0, 5))
    n_actual = draw(st.integers(0, 5))
    fits = [[draw(st.booleans()) for _j in range(n_actual)] for _i in range(n_expected)]
    weights = [draw(st.integers(1, 3)) for _i in range(n_expected)]
    return fits, n_actual, weights


def _best_matching(fits: list[list[bool]], n_actual: int,
                   weights: list[int]) -> tuple[int, int]:
    """(largest weight, largest size) over every one-to-one matching, by enumeration."""
    best_weight = best_size = 0
    rows = range(len(fits))
    for size in range(min(len(fits), n_actual) + 1):
        for chosen in combinations(rows, size):
            for columns in permutations(range(n_actual), size):
                if all(fits[i][j] for i, j in zip(chosen, columns, strict=True)):
                    best_weight = max(best_weight, sum(weights[i] for i in chosen))
                    best_size = max(best_size, size)
    return best_weight, best_size


def _best_in_order(fits: list[list[bool]], n_actual: int, weights: list[int]) -> int:
    """The heaviest set of pairs increasing on both sides, by enumeration."""
    best = 0
    for size in range(min(len(fits), n_actual) + 1):
        for chosen in combinations(range(len(fits)), size):
            for columns in combinations(range(n_actual), size):
                if all(fits[i][j] for i, j in zip(chosen, columns, strict=True)):
                    best = max(best, sum(weights[i] for i in chosen))
    return best


class TestAgainstBruteForce:
    @settings(max_examples=300, deadline=None)
    @given(problems())
    def test_matching_is_heaviest_and_largest(
            self, problem: tuple[list[list[bool]], int, list[int]]) -> None:
        """Heaviest item first is optimal for both weight and size (a matroid's greedy)."""
        fits, n_actual, weights = problem
        pairs = matching(fits, n_actual, weights)
        assert all(fits[i][j] for i, j in pairs)
        assert len({j for _i, j in pairs}) == len(pairs)
        weight, size = _best_matching(fits, n_actual, weights)
        assert (sum(weights[i] for i, _j in pairs), len(pairs)) == (weight, size)

    @settings(max_examples=300, deadline=None)
    @given(problems())
    def test_heaviest_common_subsequence(
            self, problem: tuple[list[list[bool]], int, list[int]]) -> None:
        fits, n_actual, weights = problem
        assert heaviest_common(fits, n_actual, weights) == _best_in_order(fits, n_actual, weights)


class TestModeLaws:
    @settings(max_examples=300, deadline=None)
    @given(problems())
    def test_the_modes_imply_each_other(
            self, problem: tuple[list[list[bool]], int, list[int]]) -> None:
        """strict ⇒ ordered_superset ⇒ superset; unordered ⇔ subset and superset."""
        fits, n_actual, weights = problem
        passed = {m: align(m, fits, n_actual, weights).passed for m in MODES}
        assert not passed["strict"] or passed["ordered_superset"]
        assert not passed["ordered_superset"] or passed["superset"]
        assert passed["unordered"] == (passed["subset"] and passed["superset"])
        assert not passed["strict"] or passed["unordered"]

    @settings(max_examples=300, deadline=None)
    @given(problems())
    def test_a_full_score_is_the_superset_verdicts(
            self, problem: tuple[list[list[bool]], int, list[int]]) -> None:
        """Every expected call lined up is exactly what superset and ordered_superset ask."""
        fits, n_actual, weights = problem
        for mode in ("superset", "ordered_superset"):
            verdict = align(mode, fits, n_actual, weights)
            assert verdict.passed == (verdict.matched == sum(weights))
            assert 0 <= verdict.matched <= sum(weights)
