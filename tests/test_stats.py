"""Wilson intervals and histograms."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from evaldsl.stats import bin_of, histogram, wilson


@given(st.integers(1, 10_000), st.data())
def test_law_wilson_interval_holds_the_observed_rate(n: int, data: st.DataObject) -> None:
    """Law: 0 <= low <= k/n <= high <= 1."""
    k = data.draw(st.integers(0, n))
    interval = wilson(k, n)
    assert interval is not None
    assert 0.0 <= interval.low <= k / n + 1e-12
    assert k / n - 1e-12 <= interval.high <= 1.0


@given(st.integers(1, 500), st.integers(2, 20))
def test_law_more_cases_narrow_the_interval(k: int, factor: int) -> None:
    """Law: the same rate over a larger denominator has a narrower interval."""
    n = 2 * k
    small, large = wilson(k, n), wilson(k * factor, n * factor)
    assert small is not None and large is not None
    assert large.high - large.low < small.high - small.low


def test_empty_sample_has_no_interval() -> None:
    assert wilson(0, 0) is None


@given(st.lists(st.floats(0, 1)))
def test_law_histogram_counts_every_score(scores: list[float]) -> None:
    """Law: the bins add up to the number of scores, each in its bin."""
    counts = histogram(scores)
    assert sum(counts) == len(scores)
    assert all(bin_of(s) == min(int(s * 10), 9) for s in scores)
