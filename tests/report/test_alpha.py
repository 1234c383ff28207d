"""Krippendorff's alpha against the published worked example, and its edge cases."""

from __future__ import annotations

import pytest

from evaldsl.report.alpha import krippendorff_alpha

N = None
RELIABILITY_DATA = list(zip(
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N], strict=True))
"""Four observers, twelve units, some values missing: the example of Krippendorff,
"Computing Krippendorff's Alpha-Reliability" (2011), section C."""


class TestPublishedExample:
    @pytest.mark.parametrize(("level", "alpha"), [
        ("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
    def test_each_level_matches_the_published_value(self, level: str, alpha: float) -> None:
        """The paper's alphas, to the three decimals it gives."""
        assert krippendorff_alpha(RELIABILITY_DATA, level) == pytest.approx(  # type: ignore[arg-type]
            alpha, abs=5e-4)

    def test_the_order_of_judges_does_not_matter(self) -> None:
        flipped = [tuple(reversed(u)) for u in RELIABILITY_DATA]
        assert krippendorff_alpha(flipped, "ordinal") == pytest.approx(
            krippendorff_alpha(RELIABILITY_DATA, "ordinal"))


class TestEdges:
    def test_perfect_agreement_is_one(self) -> None:
        assert krippendorff_alpha([["a", "a"], ["b", "b"]]) == 1.0

    def test_one_value_everywhere_measures_nothing(self) -> None:
        """No disagreement could be expected: None, not a perfect 1."""
        assert krippendorff_alpha([["pass", "pass"], ["pass", "pass"]]) is None

    def test_units_with_one_value_are_left_out(self) -> None:
        """A unit one judge missed pairs nothing; nothing paired is None."""
        assert krippendorff_alpha([["a", None], [None, "b"]]) is None
        assert krippendorff_alpha([["a", "a"], ["b", "b"], ["a", None]]) == 1.0

    def test_systematic_disagreement_is_below_zero(self) -> None:
        assert krippendorff_alpha([["a", "b"], ["b", "a"]]) < 0  # type: ignore[operator]

    def test_an_interval_value_must_be_a_number(self) -> None:
        with pytest.raises(TypeError, match="must be a number"):
            krippendorff_alpha([["a", "b"]], "interval")
