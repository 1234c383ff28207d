"""Paired statistics: McNemar's exact test, the paired bootstrap, sign flips."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from evaldsl.analysis.paired_stats import mcnemar_p, resample
from evaldsl.runtime.aggregation import AggregateSpec, MetricPlan


def _plan(*kinds: str) -> MetricPlan:
    """A metric that is the sum of its aggregates (one aggregate: the aggregate itself)."""
    return MetricPlan("m", tuple(AggregateSpec(k) for k in kinds),
                      lambda values: sum(v for v in values if v is not None), None)


class TestMcnemar:
    def test_one_worse_six_better_is_the_binomial_tail_written_out(self) -> None:
        """2 * (C(7,0) + C(7,1)) / 2^7 = 2 * 8 / 128."""
        assert mcnemar_p(1, 6) == 0.125
        assert mcnemar_p(6, 1) == 0.125

    @pytest.mark.parametrize(("worse", "better"), [(0, 5), (3, 9), (10, 10), (2, 30)])
    def test_it_is_the_exact_two_sided_binomial(self, worse: int, better: int) -> None:
        n = worse + better
        tail = sum(Fraction(comb(n, k), 2**n) for k in range(min(worse, better) + 1))
        assert mcnemar_p(worse, better) == pytest.approx(float(min(Fraction(1), 2 * tail)))

    def test_no_discordant_pair_is_no_evidence(self) -> None:
        assert mcnemar_p(0, 0) == 1.0


class TestResample:
    def test_the_bootstrap_interval_is_the_documented_numpy_computation(self) -> None:
        base = [True] * 6 + [False] * 14
        new = [False] * 2 + [True] * 12 + [False] * 6
        got = resample(_plan("rate"), [(b,) for b in base], [(n,) for n in new], 7, 500)
        rng = np.random.default_rng(7)
        idx = rng.integers(0, 20, size=(500, 20))
        diffs = np.array(new, float)[idx].mean(1) - np.array(base, float)[idx].mean(1)
        low, high = np.percentile(diffs, [2.5, 97.5])
        assert got.interval == pytest.approx((low, high))
        assert -1 <= got.interval.low <= 0.4 <= got.interval.high <= 1

    def test_identical_runs_have_a_permutation_p_of_one(self) -> None:
        values = [(0.5,), (0.25,), (1.0,), (0.0,)]
        got = resample(_plan("mean"), values, values, 1, 200)
        assert got.permutation_p == 1.0
        assert got.interval == (0.0, 0.0)

    def test_a_consistent_shift_is_significant_under_sign_flips(self) -> None:
        base = [(0.1 * (i % 5),) for i in range(30)]
        new = [(x + 0.5,) for (x,) in base]
        got = resample(_plan("mean"), base, new, 3, 999)
        assert got.permutation_p is not None and got.permutation_p < 0.01
        assert got.interval is not None and got.interval.low == pytest.approx(0.5)

    def test_no_paired_case_gives_no_statistics(self) -> None:
        got = resample(_plan("rate"), [], [], 1, 100)
        assert got.interval is None and got.permutation_p is None


class TestMemoryBound:
    def test_drawing_in_blocks_gives_the_same_figures(self) -> None:
        """A large run's draws come in row blocks to bound memory; the stream is the same."""
        base = [(i % 3 == 0,) for i in range(40)]
        new = [(i % 2 == 0,) for i in range(40)]
        whole = resample(_plan("rate"), base, new, 11, 301)
        assert resample(_plan("rate"), base, new, 11, 301, cells=7 * 40) == whole
        assert resample(_plan("rate"), base, new, 11, 301, cells=1) == whole
