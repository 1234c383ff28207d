"""Metric states: exact sums, percentiles, formatting."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.runtime.aggregation import AggregateSpec, ExactSum, MetricPlan, MetricState
from evaldsl.stats import percentile


class TestExactSum:
    @settings(deadline=None)
    @given(st.lists(st.floats(-1e12, 1e12, allow_nan=False)), st.randoms(use_true_random=False))
    def test_law_exact_sum_is_independent_of_order(self, xs: list[float],
                                                   rnd: random.Random) -> None:
        """Law: the sum does not depend on the order of additions or merges."""
        forward = ExactSum()
        for x in xs:
            forward.add(x)
        shuffled = list(xs)
        rnd.shuffle(shuffled)
        half = len(shuffled) // 2
        left, right = ExactSum(), ExactSum()
        for x in shuffled[:half]:
            left.add(x)
        for x in shuffled[half:]:
            right.add(x)
        assert forward.value == left.merge(right).value

    def test_floats_that_naive_summing_gets_wrong(self) -> None:
        s = ExactSum()
        for x in [1e16, 1.0, -1e16]:
            s.add(x)
        assert s.value == 1.0


class TestPercentile:
    def test_linear_interpolation_like_numpy(self) -> None:
        assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
        assert percentile([1.0, 2.0, 3.0, 4.0], 90) == 3.7
        assert percentile([5.0], 99) == 5.0
        assert percentile([], 50) is None


class TestMetricValue:
    def _state(self, kind: str, where: str | None = None) -> MetricState:
        plan = MetricPlan("solvable_completion", (AggregateSpec(kind),), lambda v: v[0], where)
        return MetricState(plan)

    def test_the_language_example_reads_as_written(self) -> None:
        state = self._state("rate", "case.solvable")
        for i in range(40):
            state.add_values([i < 33])
        state.add_error("a")
        state.add_error("b")
        assert state.result().describe() == \
            "solvable_completion 82.5% (33/40, where case.solvable; 2 errors left out)"

    def test_an_empty_denominator_has_no_value(self) -> None:
        value = self._state("mean").result()
        assert (value.value, value.numerator, value.denominator) == (None, None, 0)
        assert value.describe() == "solvable_completion n/a (n=0)"

    def test_percentile_has_no_numerator(self) -> None:
        plan = MetricPlan("p", (AggregateSpec("percentile", 50.0),), lambda v: v[0], None)
        state = MetricState(plan)
        state.add_values([3.0])
        assert state.result().numerator is None


class TestOneConditionFastPath:
    """A metric of one `rate` or `count` folds by its own short path: the same state as the
    general fold, which a formula over the same aggregate takes."""

    @settings(deadline=None)
    @given(st.sampled_from(["rate", "count"]), st.lists(st.sampled_from([True, False, None])))
    def test_law_the_short_path_folds_as_the_general_one(self, kind: str,
                                                         values: list[bool | None]) -> None:
        one = MetricState(MetricPlan("m", (AggregateSpec(kind),), lambda v: v[0], None))
        general = MetricState(MetricPlan("m", (AggregateSpec(kind),), lambda v: v[0], None,
                                         template="{0}"))
        assert one._one_condition and not general._one_condition
        for value in values:
            one.add_values((value,))
            general.add_values((value,))
        assert (one.denominator, one.trues) == (general.denominator, general.trues)
        assert one.aggregate_values() == general.aggregate_values()

    def test_a_mean_or_a_formula_takes_the_general_path(self) -> None:
        for plan in (MetricPlan("m", (AggregateSpec("mean"),), lambda v: v[0], None),
                     MetricPlan("m", (AggregateSpec("pass_hat", 1),), lambda v: v[0], None),
                     MetricPlan("m", (AggregateSpec("rate"), AggregateSpec("rate")),
                                lambda v: v[0], None, template="{0} + {1}")):
            assert not MetricState(plan)._one_condition
