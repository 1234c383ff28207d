"""The gates as functions over a report: `--fail-under`, `--fail-over` and compare's
`--fail-if-worse`, each passing and failing, a metric's direction honoured."""

from __future__ import annotations

import functools
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from evaldsl.analysis.compare import Gate, MetricComparison, check_gates, gate, parse_gate
from evaldsl.analysis.paired_stats import Interval
from evaldsl.api import loads
from evaldsl.errors import OptionsError
from evaldsl.report.document import Metric
from evaldsl.report.gates import (
    Threshold,
    check_thresholds,
    check_thresholds_of,
    missed_thresholds,
    parse_threshold,
)

SPEC = """\
spec "gates"
check polite = keyword(scope: replies, any: ["请"])
outcome {
  ok if polite
  bad otherwise
}
metric ok_rate = rate(ok)
metric turns_mean = mean(polite)
metric violation_rate = rate(not polite) lower is better
"""


def _report(ok: float | None, violations: float | None = 0.1,
            mean: float | None = 3.0) -> Any:
    metric = functools.partial(Metric, expression=None, numerator=None, denominator=1,
                               errors=0, where=None, interval=None, error_examples=[],
                               template=None, parts=None, by=None, groups=None)
    return SimpleNamespace(metrics=[
        metric(name="ok_rate", value=ok, is_rate=True),
        metric(name="turns_mean", value=mean, is_rate=False),
        metric(name="violation_rate", value=violations, is_rate=True)])


class TestFloor:
    def test_a_value_at_or_above_the_floor_passes(self) -> None:
        floor = parse_threshold("ok_rate=80%")
        assert floor == Threshold("ok_rate", 0.8, "ok_rate=80%", True)
        assert missed_thresholds([floor], _report(0.8)) == []
        assert missed_thresholds([floor], _report(0.95)) == []

    def test_a_value_below_the_floor_fails_in_words(self) -> None:
        floor = parse_threshold("ok_rate=80%")
        assert missed_thresholds([floor], _report(0.5)) == [
            "fail-under: `ok_rate` is 50.0%, below 80.0%"]

    def test_no_value_fails(self) -> None:
        assert len(missed_thresholds([parse_threshold("ok_rate=1%")], _report(None))) == 1

    def test_a_plain_number_on_a_mean(self) -> None:
        floor = parse_threshold("turns_mean=2.5")
        assert missed_thresholds([floor], _report(1.0, mean=3.0)) == []
        assert missed_thresholds([floor], _report(1.0, mean=2.0)) == [
            "fail-under: `turns_mean` is 2, below 2.5"]


class TestCeiling:
    def test_a_value_at_or_below_the_ceiling_passes(self) -> None:
        ceiling = parse_threshold("violation_rate=5%", ceiling=True)
        assert ceiling.flag == "--fail-over"
        assert missed_thresholds([ceiling], _report(1.0, violations=0.05)) == []
        assert missed_thresholds([ceiling], _report(1.0, violations=0.0)) == []

    def test_a_value_above_the_ceiling_fails_in_words(self) -> None:
        ceiling = parse_threshold("violation_rate=5%", ceiling=True)
        assert missed_thresholds([ceiling], _report(1.0, violations=0.6)) == [
            "fail-over: `violation_rate` is 60.0%, above 5.0%"]

    def test_several_gates_say_each_miss_in_order(self) -> None:
        gates = [parse_threshold("ok_rate=90%"),
                 parse_threshold("violation_rate=5%", ceiling=True)]
        assert [m.split(":")[0] for m in missed_thresholds(gates, _report(0.5, 0.6))] == [
            "fail-under", "fail-over"]


class TestBeforeTheRun:
    @pytest.mark.parametrize(("text", "message"), [
        ("ok_rate", "expected METRIC=VALUE, got `ok_rate`"),
        ("=5", "expected METRIC=VALUE, got `=5`"),
        ("ok_rate=lots", "`lots` is not a number or a percentage")])
    def test_malformed_thresholds_are_refused(self, text: str, message: str) -> None:
        with pytest.raises(OptionsError, match=message):
            parse_threshold(text)

    def test_an_unknown_metric_is_refused_naming_the_metrics(self) -> None:
        spec = loads(SPEC)
        with pytest.raises(OptionsError) as caught:
            check_thresholds_of([parse_threshold("nope=5%", ceiling=True)], spec)
        assert str(caught.value) == ("--fail-over names no metric of the spec: `nope` "
                                     "(metrics: `ok_rate`, `turns_mean`, `violation_rate`)")

    def test_a_rate_given_as_a_whole_number_is_refused_with_the_share(self) -> None:
        spec = loads(SPEC)
        with pytest.raises(OptionsError) as caught:
            check_thresholds_of([parse_threshold("ok_rate=85")], spec)
        assert caught.value.hint == "write 85% or 0.85"
        check_thresholds_of([parse_threshold("turns_mean=85")], spec)   # not a rate

    def test_known_metrics_pass(self) -> None:
        check_thresholds([parse_threshold("a=0.5")], ["a"], ["a"])


DROP = MetricComparison("m", True, "mcnemar", 100, 0.8, 0.6, -0.2, Interval(-0.3, -0.1),
                        0.001, 100, 100, 0, 0, (25, 5))
RISE = replace(DROP, base=0.6, new=0.8, difference=0.2, interval=Interval(0.1, 0.3),
               discordant=(5, 25))


def _comparison(metric: MetricComparison) -> Any:
    return SimpleNamespace(metrics=(metric,), pairing=SimpleNamespace(paired=[0] * 100))


class TestCompareGate:
    def test_higher_is_better_a_significant_drop_fails_a_rise_passes(self) -> None:
        assert gate(_comparison(DROP), "m", 0.0).reason == "worse"
        assert gate(_comparison(RISE), "m", 0.0).reason is None

    def test_lower_is_better_a_significant_rise_fails_a_drop_passes(self) -> None:
        lower = {"lower_is_better": True}
        assert gate(_comparison(replace(RISE, **lower)), "m", 0.0).reason == "worse"
        assert gate(_comparison(replace(DROP, **lower)), "m", 0.0).reason is None

    def test_a_margin_lets_a_small_change_pass(self) -> None:
        assert gate(_comparison(DROP), "m", 0.2).reason is None

    def test_gates_name_known_metrics(self) -> None:
        assert parse_gate("m:2%") == pytest.approx(Gate("m", 0.02))
        check_gates([Gate("m", 0.0)], ["m"])
        with pytest.raises(OptionsError, match="unknown metric `n`"):
            check_gates([Gate("n", 0.0)], ["m"])
