"""Paired statistics: McNemar's exact test, the paired bootstrap, sign flips."""

from __future__ import annotations

import math
import time
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from evaldsl.analysis.paired_stats import EXACT_UP_TO, mcnemar_p, resample
from evaldsl.runtime.aggregation import AggregateSpec, MetricPlan


def _cols(rows: list[tuple[float | bool, ...]]) -> np.ndarray:
    """Per-case inputs as the compare columns hold them: floats, a condition 1.0 when true."""
    return np.array(rows, dtype=float).reshape(len(rows), len(rows[0]) if rows else 1)


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
        got = resample(_plan("rate"), _cols([(b,) for b in base]), _cols([(n,) for n in new]), 7,
                       500)
        rng = np.random.default_rng(7)
        idx = rng.integers(0, 20, size=(500, 20))
        diffs = np.array(new, float)[idx].mean(1) - np.array(base, float)[idx].mean(1)
        low, high = np.percentile(diffs, [2.5, 97.5])
        assert got.interval == pytest.approx((low, high))
        assert -1 <= got.interval.low <= 0.4 <= got.interval.high <= 1

    def test_identical_runs_have_a_permutation_p_of_one(self) -> None:
        values = [(0.5,), (0.25,), (1.0,), (0.0,)]
        got = resample(_plan("mean"), _cols(values), _cols(values), 1, 200)
        assert got.permutation_p == 1.0
        assert got.interval == (0.0, 0.0)

    def test_a_consistent_shift_is_significant_under_sign_flips(self) -> None:
        base = [(0.1 * (i % 5),) for i in range(30)]
        new = [(x + 0.5,) for (x,) in base]
        got = resample(_plan("mean"), _cols(base), _cols(new), 3, 999)
        assert got.permutation_p is not None and got.permutation_p < 0.01
        assert got.interval is not None and got.interval.low == pytest.approx(0.5)

    def test_no_paired_case_gives_no_statistics(self) -> None:
        got = resample(_plan("rate"), _cols([]), _cols([]), 1, 100)
        assert got.interval is None and got.permutation_p is None


class TestMemoryBound:
    def test_drawing_in_blocks_gives_the_same_figures(self) -> None:
        """A large run's draws come in row blocks to bound memory; the stream is the same."""
        base = [(i % 3 == 0,) for i in range(40)]
        new = [(i % 2 == 0,) for i in range(40)]
        whole = resample(_plan("rate"), _cols(base), _cols(new), 11, 301)
        assert resample(_plan("rate"), _cols(base), _cols(new), 11, 301, cells=7 * 40) == whole
        assert resample(_plan("rate"), _cols(base), _cols(new), 11, 301, cells=1) == whole


class TestMcnemarAtScale:
    @pytest.mark.parametrize(("worse", "better"), [(2900, 3150), (3000, 3001), (10, 6000)])
    def test_the_log_space_tail_beyond_exact_integers_matches_them(self, worse: int,
                                                                    better: int) -> None:
        n = worse + better
        assert n > EXACT_UP_TO
        tail = sum(Fraction(comb(n, k), 2**n) for k in range(min(worse, better) + 1))
        assert mcnemar_p(worse, better) == pytest.approx(float(min(Fraction(1), 2 * tail)),
                                                         rel=1e-9, abs=1e-300)

    def test_a_million_discordant_pairs_is_the_normal_tail(self) -> None:
        """At this n the binomial tail is the normal one (continuity corrected) to 3 digits."""
        worse, better = 499_000, 501_000
        n = worse + better
        z = (worse + 0.5 - n / 2) / math.sqrt(n / 4)
        assert mcnemar_p(worse, better) == pytest.approx(math.erfc(-z / math.sqrt(2)),
                                                         rel=1e-3)


def _categorical(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Paired conditions: base true 60%, new flips a fifth of them, so few distinct inputs."""
    rng = np.random.default_rng(seed)
    base = (rng.random(n) < 0.6).astype(float)
    new = np.where(rng.random(n) < 0.2, 1.0 - base, base)
    return base[:, None], new[:, None]


class TestCountsResampling:
    def test_few_distinct_inputs_resample_by_counts_with_the_documented_draws(self) -> None:
        base, new = _categorical(400, 1)
        got = resample(_plan("mean"), base, new, 9, 300)
        assert got.method == "counts"
        cells, counts = np.unique(np.hstack([base, new]), axis=0, return_counts=True)
        rng = np.random.default_rng(9)
        weights = rng.multinomial(400, counts / 400, size=300)
        diffs = (weights @ cells[:, 1] - weights @ cells[:, 0]) / 400
        assert got.interval == pytest.approx(tuple(np.percentile(diffs, [2.5, 97.5])))
        flipped = rng.binomial(counts, 0.5, size=(300, len(counts)))
        observed = (new.sum() - base.sum()) / 400
        swapped = ((counts - 2 * flipped) @ (cells[:, 1] - cells[:, 0])) / 400
        hits = np.count_nonzero(np.abs(swapped) >= abs(observed) - 1e-12)
        assert got.permutation_p == (1 + hits) / 301

    def test_counts_draw_the_same_distribution_as_case_indices(self) -> None:
        """The interval by counts and by resampled case indices (many draws each) agree."""
        base, new = _categorical(3000, 2)
        by_counts = resample(_plan("rate"), base, new, 4, 4000)
        rng = np.random.default_rng(5)
        idx = rng.integers(0, 3000, size=(4000, 3000))
        by_cases = np.percentile(new[:, 0][idx].mean(1) - base[:, 0][idx].mean(1),
                                 [2.5, 97.5])
        assert by_counts.method == "counts" and by_counts.interval is not None
        assert by_counts.interval == pytest.approx(tuple(by_cases), abs=0.004)

    def test_many_distinct_inputs_resample_cases(self) -> None:
        rng = np.random.default_rng(3)
        base = rng.random((50, 1))
        assert resample(_plan("mean"), base, base + 0.1, 1, 50).method == "cases"

    def test_a_percentile_resamples_cases_whatever_its_inputs(self) -> None:
        base, new = _categorical(400, 1)
        plan = MetricPlan("m", (AggregateSpec("percentile", 50.0),), lambda v: v[0], None)
        assert resample(plan, base, new, 1, 50).method == "cases"

    def test_a_million_pairs_by_counts_is_quick(self) -> None:
        """CPU time, not wall time: the machine may be shared."""
        base, new = _categorical(1_000_000, 6)
        started = time.process_time()
        got = resample(_plan("rate", "rate"), np.hstack([base, new]),
                       np.hstack([new, new]), 1, 2000)
        assert got.method == "counts" and got.interval is not None
        assert time.process_time() - started < 10
