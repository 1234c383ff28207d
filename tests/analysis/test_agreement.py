"""Agreement statistics: known values, the ceiling's slots, a seeded bootstrap."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from evaldsl.analysis.agreement import (
    annotator_ceiling,
    bootstrap,
    leave_one_out,
    spearman,
    to_level,
    weighted_kappa,
)


class TestSpearman:
    def test_a_known_value_with_ties(self) -> None:
        """Ranks (1, 2.5, 2.5) against (1, 2, 3): rho = 2 / sqrt(16/3) = 0.866."""
        assert spearman([(1, 1.5), (3, 2.5), (3, 3.5)]) == pytest.approx(0.8660254)

    def test_a_reversed_order_is_minus_one(self) -> None:
        """Any strictly decreasing relation, whatever its shape, is -1."""
        assert spearman([(1, 100), (2, 10), (3, 1), (4, 0)]) == pytest.approx(-1.0)

    def test_a_constant_side_is_undefined(self) -> None:
        """A judge that gives every dialog 8 has no rank correlation, not a zero one."""
        assert spearman([(8, 1), (8, 2), (8, 3)]) is None


class TestWeightedKappa:
    def test_perfect_agreement_is_one(self) -> None:
        assert weighted_kappa([(1, 1), (3, 3), (5, 5), (2, 2)], 1, 5) == pytest.approx(1.0)

    def test_a_known_quadratic_value(self) -> None:
        """Observed cost 0.25/4 over chance cost 0.3125 (worked by hand): 1 - 0.2 = 0.8."""
        assert weighted_kappa([(1, 1), (2, 2), (3, 3), (1, 2)], 1, 3) == pytest.approx(0.8)

    def test_a_near_miss_costs_less_than_a_far_one(self) -> None:
        """The reason for weights: one level off is better than four levels off."""
        near = weighted_kappa([(1, 1), (2, 2), (4, 5), (5, 5), (3, 3)], 1, 5)
        far = weighted_kappa([(1, 1), (2, 2), (1, 5), (5, 5), (3, 3)], 1, 5)
        assert near is not None and far is not None and near > far

    def test_power_zero_is_cohens_plain_kappa(self) -> None:
        """calibrate's doctest pair: observed 0.75, chance 0.5, kappa 0.5."""
        pairs = [(1, 1), (2, 2), (1, 2), (2, 2)]
        assert weighted_kappa(pairs, 1, 2, power=0) == pytest.approx(0.5)

    def test_both_sides_constant_on_one_level_is_undefined(self) -> None:
        assert weighted_kappa([(3, 3), (3, 3)], 1, 5) is None

    def test_a_constant_judge_against_varied_people_is_zero(self) -> None:
        """No information beyond chance: kappa 0, the judge's clustering made visible."""
        assert weighted_kappa([(4, 1), (4, 3), (4, 5)], 1, 5) == pytest.approx(0.0)


class TestLevels:
    @pytest.mark.parametrize(("value", "level"), [(2.5, 3), (2.49, 2), (0.4, 1), (9.0, 5)])
    def test_rounding_halves_up_and_clamping_to_the_scale(self, value: float,
                                                          level: int) -> None:
        assert to_level(value, 1, 5) == level


class TestCeiling:
    def test_pairs_are_kept_per_annotator_slot(self) -> None:
        """Missing ratings and lone raters are skipped; each slot is one annotator left out."""
        assert leave_one_out([[1, None, 3], [4], [2, 2, 5]]) == [
            [(1.0, 3.0), (2.0, 3.5)], [(2.0, 3.5)], [(3.0, 1.0), (5.0, 2.0)]]

    def test_a_known_ceiling(self) -> None:
        """Slots 1.0, 0.866 and 1.0, three pairs each: mean 0.9553."""
        rows = [[1, 1, 2], [2, 3, 3], [3, 3, 4]]
        assert annotator_ceiling(spearman)(rows) == pytest.approx(0.95534180)

    def test_raters_who_agree_on_the_order_of_items_reach_one(self) -> None:
        """Every annotator orders the three items as the mean of the others does."""
        rows = [[1, 2, 1], [3, 4, 3], [5, 5, 4]]
        assert annotator_ceiling(spearman)(rows) == pytest.approx(1.0)

    def test_no_item_with_two_ratings_is_undefined(self) -> None:
        assert annotator_ceiling(spearman)([[1], [None, 2]]) is None


class TestBootstrap:
    PAIRS = [(float(i), float(i % 5 + i // 3)) for i in range(30)]

    def test_the_same_seed_gives_the_same_interval(self) -> None:
        first = bootstrap(self.PAIRS, spearman, seed=7)
        again = bootstrap(self.PAIRS, spearman, seed=7)
        assert first == again

    def test_another_seed_gives_another_interval_around_the_same_value(self) -> None:
        first = bootstrap(self.PAIRS, spearman, seed=7)
        other = bootstrap(self.PAIRS, spearman, seed=8)
        assert first.value == other.value
        assert (first.low, first.high) != (other.low, other.high)

    def test_the_interval_holds_the_value_and_carries_n(self) -> None:
        estimate = bootstrap(self.PAIRS, spearman)
        assert estimate.n == 30
        assert estimate.low is not None and estimate.high is not None
        assert estimate.value is not None
        assert estimate.low <= estimate.value <= estimate.high
        assert estimate.high - estimate.low > 0.05

    def test_one_pair_has_no_interval(self) -> None:
        assert bootstrap([(1.0, 2.0)], spearman).to_dict() == {
            "value": None, "low": None, "high": None, "n": 1}

    def test_mostly_undefined_resamples_give_no_interval(self) -> None:
        """A statistic defined only without repeats: almost no resample of ten has none."""
        def distinct(sample: Sequence[tuple[float, float]]) -> float | None:
            return 1.0 if len(set(sample)) == len(sample) else None

        estimate = bootstrap(self.PAIRS[:10], distinct, resamples=200)
        assert estimate.value == 1.0
        assert (estimate.low, estimate.high) == (None, None)
