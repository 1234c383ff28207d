"""The bootstrap interval of formula metrics: valid, reproducible, order-independent."""

from __future__ import annotations

import random

import pytest

from evaldsl.runtime import bootstrap as bs
from evaldsl.runtime.aggregation import AggregateSpec
from tests.support import formula_kit

RATES = (AggregateSpec("rate"), AggregateSpec("rate"))


def mixture(v: list[float | None]) -> float | None:
    return None if None in v else v[0] + 0.5 * v[1]  # type: ignore[operator]


def inputs(n: int) -> list[tuple[tuple[float, ...], int]]:
    """`n` cases: 60% successes, 20% partials, the rest neither."""
    success, partial = n * 6 // 10, n * 2 // 10
    return [((1.0, 0.0), success), ((0.0, 1.0), partial), ((0.0, 0.0), n - success - partial)]


class TestBootstrap:
    @pytest.mark.parametrize("n", [10, 40_000])
    def test_the_interval_holds_the_point_value(self, n: int) -> None:
        """Pure Python (10 cases) and numpy (40,000) intervals both hold 0.6 + 0.5 x 0.2."""
        interval = bs.bootstrap(RATES, mixture, inputs(n))
        assert interval is not None
        assert interval.low < 0.7 < interval.high
        assert (interval.seed, interval.resamples) == (bs.SEED, bs.RESAMPLES)

    def test_more_cases_narrow_it(self) -> None:
        small, large = bs.bootstrap(RATES, mixture, inputs(10)), bs.bootstrap(
            RATES, mixture, inputs(40_000))
        assert small is not None and large is not None
        assert large.high - large.low < (small.high - small.low) / 10

    def test_the_same_seed_gives_the_same_interval(self) -> None:
        assert bs.bootstrap(RATES, mixture, inputs(50)) == bs.bootstrap(RATES, mixture, inputs(50))
        other = bs.bootstrap(RATES, mixture, inputs(50), seed=bs.SEED + 1)
        assert other != bs.bootstrap(RATES, mixture, inputs(50))

    def test_the_order_of_cases_does_not_matter(self) -> None:
        rows = inputs(50)
        assert bs.bootstrap(RATES, mixture, rows[::-1]) == bs.bootstrap(RATES, mixture, rows)

    def test_many_distinct_values_resample_cases(self) -> None:
        """A mean over scores has as many distinct inputs as cases: numpy draws cases."""
        rnd = random.Random(7)
        scores = [((rnd.random(), rnd.random()), 1) for _case in range(1000)]
        point = (sum(s[0][0] for s in scores) - sum(s[0][1] for s in scores)) / 1000
        means = (AggregateSpec("mean"), AggregateSpec("mean"))
        interval = bs.bootstrap(means, lambda v: v[0] - v[1], scores)  # type: ignore[operator]
        assert interval is not None
        assert interval.low < point < interval.high

    def test_min_and_max_resample_alike_in_both_engines(self) -> None:
        """`max(x) - min(x)` over values 0..4: every resample lies within 0..4."""
        rows = [((float(v), float(v)), 30) for v in range(5)]
        kinds = (AggregateSpec("max"), AggregateSpec("min"))
        for count in (1, 3000):
            scaled = [(row, c * count) for row, c in rows]
            interval = bs.bootstrap(kinds, lambda v: v[0] - v[1], scaled)  # type: ignore[operator]
            assert interval is not None
            assert 0 <= interval.low <= interval.high == 4

    def test_no_cases_no_interval(self) -> None:
        assert bs.bootstrap(RATES, mixture, []) is None

    def test_a_percentile_gets_no_interval(self) -> None:
        kinds = (AggregateSpec("percentile", 90.0), AggregateSpec("rate"))
        assert bs.bootstrap(kinds, mixture, inputs(10)) is None

    def test_an_undefined_resample_gives_no_interval(self) -> None:
        """`1 / rate(x)` is undefined where a resample drew no success."""
        def ratio(v: list[float | None]) -> float | None:
            return None if not v[0] else 1 / v[0]

        rows = [((1.0, 0.0), 1), ((0.0, 0.0), 9)]
        assert bs.bootstrap(RATES, ratio, rows) is None


class TestFormulaState:
    def test_parts_are_written_out(self) -> None:
        value = formula_kit.state().result()
        assert value.value == pytest.approx(0.7)
        assert value.numerator is None
        assert [(p.text, p.value, p.numerator, p.denominator) for p in value.parts] == [
            ("rate(success)", 0.6, 6.0, 10), ("rate(partial)", 0.2, 2.0, 10)]
        assert value.describe() == f"success_rate 70.0% (n=10; {formula_kit.BREAKDOWN})"

    def test_shards_merge_to_the_same_interval(self) -> None:
        cases = formula_kit.CASES
        whole = formula_kit.state(cases).result().interval
        left, right = formula_kit.state(cases[::2]), formula_kit.state(cases[1::2])
        assert left.merge(right).result().interval == whole
        assert whole is not None and whole.low < 0.7 < whole.high

    def test_the_interval_follows_new_cases(self) -> None:
        state = formula_kit.state()
        before = state.result().interval
        for _case in range(30):
            state.add_values((True, False))
        assert state.result().interval != before
