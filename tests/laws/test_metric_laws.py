"""Laws of metrics: mergeable, order-free, honest denominators."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import evaldsl
from tests.support import interpreter_kit as kit

SPEC = """
check a = probe(key: "a")
check b = probe(key: "b")
check g = probe(key: "g")
check m = ask(key: "m")
let overall = 0.5 * a + 0.5 * m.score
outcome {
  success if a and m
  partial if b
  failure otherwise
}
metric rs = rate(success)
metric rp = rate(partial)
metric sr = rate(success) + 0.5 * rate(partial)
metric pass = rate(success or partial)
metric gated = mean(m) where g
metric avg = mean(overall) where b
metric total = sum(a) + count(b)
metric spread = max(a) - min(a)
metric p90 = percentile(overall, 90)
review (seed: 11) {
  sample 40% where b priority overall
}
"""

value = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, 0.1, "error"])
probes = st.fixed_dictionaries({k: value for k in "abgm"})
rows_strategy = st.lists(probes, min_size=0, max_size=25)


def make_spec() -> evaldsl.Spec:
    return evaldsl.loads(SPEC, registry=kit.make_kit().registry, runtime=kit.CountingRuntime())


SPEC_OBJ = make_spec()


def results(rows: list[Any]) -> list[evaldsl.CaseResult]:
    return [SPEC_OBJ.evaluate(kit.case(f"c{i}", **row)) for i, row in enumerate(rows)]


def report_of(items: list[evaldsl.CaseResult]) -> evaldsl.Report:
    report = SPEC_OBJ.new_report()
    for r in items:
        report.add(r)
    return report


class TestMergeLaws:
    @settings(deadline=None, max_examples=60)
    @given(rows_strategy, st.randoms(use_true_random=False), st.lists(st.integers(0, 25)))
    def test_law_metrics_invariant_under_case_order_and_any_split_and_merge(
            self, rows: list[Any], rnd: Any, cuts: list[int]) -> None:
        """Law: any order and any split into merged shards give the identical report."""
        items = results(rows)
        whole = report_of(items).to_dict()
        shuffled = list(items)
        rnd.shuffle(shuffled)
        bounds = sorted({0, len(shuffled), *(c for c in cuts if c <= len(shuffled))})
        shards = [report_of(shuffled[lo:hi]) for lo, hi in zip(bounds, bounds[1:], strict=False)]
        merged = shards[0] if shards else report_of([])
        for shard in shards[1:]:
            merged = merged.merge(shard)
        assert merged.to_dict() == whole

    @settings(deadline=None, max_examples=40)
    @given(rows_strategy)
    def test_law_results_jsonl_rebuilds_the_identical_report(self, rows: list[Any]) -> None:
        """Law: a report rebuilt from JSON result lines equals the original."""
        items = results(rows)
        lines = [json.dumps(r.to_dict(), ensure_ascii=False) for r in items]
        revived = [evaldsl.CaseResult.from_dict(json.loads(line)) for line in lines]
        assert [r.to_dict() for r in revived] == [r.to_dict() for r in items]
        assert report_of(revived).to_dict() == report_of(items).to_dict()


class TestRateLaws:
    @settings(deadline=None)
    @given(rows_strategy)
    def test_law_weighted_rate_at_most_rate_of_union_and_rates_in_unit_interval(
            self, rows: list[Any]) -> None:
        """Law: rate(success) + 0.5 * rate(partial) <= rate(success or partial); rates in [0, 1]."""
        metrics = report_of(results(rows)).metrics
        for name in ("rs", "rp", "sr", "pass"):
            value = metrics[name].value
            assert value is None or 0.0 <= value <= 1.0
        if metrics["pass"].value is not None:
            assert metrics["sr"].value is not None
            assert metrics["sr"].value <= metrics["pass"].value + 1e-12
            assert metrics["sr"].denominator == metrics["pass"].denominator


def _errored(v: Any) -> bool:
    return v == "error"


class TestDenominatorLaws:
    @settings(deadline=None)
    @given(rows_strategy)
    def test_law_denominators_exclude_exactly_the_errored_cases(self, rows: list[Any]) -> None:
        """Law: the denominator is the cases whose where holds and no argument errs."""
        metrics = report_of(results(rows)).metrics
        gated_in = [r for r in rows if not _errored(r["g"]) and r["g"] >= 0.5]
        gated_err = [r for r in rows if _errored(r["g"])] + [r for r in gated_in
                                                              if _errored(r["m"])]
        assert metrics["gated"].errors == len(gated_err)
        assert metrics["gated"].denominator == len(gated_in) - sum(_errored(r["m"])
                                                                    for r in gated_in)
        avg_in = [r for r in rows if not _errored(r["b"]) and r["b"] >= 0.5]
        avg_err = sum(_errored(r["b"]) for r in rows) + sum(
            _errored(r["a"]) or _errored(r["m"]) for r in avg_in)
        assert (metrics["avg"].denominator, metrics["avg"].errors) == \
            (len(avg_in) - (avg_err - sum(_errored(r["b"]) for r in rows)), avg_err)
        total = metrics["total"]
        assert total.denominator + total.errors == len(rows)
        assert total.errors == sum(_errored(r["a"]) or _errored(r["b"]) for r in rows)

    def test_the_report_says_how_many_were_left_out(self) -> None:
        rows = [{"a": 1.0, "b": 1.0, "g": 1.0, "m": 0.5}, {"a": 1.0, "b": 1.0, "g": "error",
                                                           "m": 1.0}]
        metric = report_of(results(rows)).metric("gated")
        assert (metric.value, metric.denominator, metric.errors) == (0.5, 1, 1)
        assert metric.describe() == "gated 0.5 (0.5/1, where g; 1 error left out)"
        assert "probe `g` is an error" in metric.error_examples[0]


class TestPercentileRank:
    def test_a_rank_in_parentheses_reads_as_written(self) -> None:
        """`percentile(x, (90%))` is the 90th percentile, as the checker reads it."""
        text = ('check a = probe(key: "a")\nmetric p = percentile(a, 90)\n'
                "metric q = percentile(a, (90%))\n")
        spec = evaldsl.loads(text, registry=kit.make_kit().registry)
        report = spec.new_report()
        for i, score in enumerate([0.1, 0.2, 0.3, 0.9]):
            report.add(spec.evaluate(kit.case(f"c{i}", a=score)))
        metrics = report.to_dict()["metrics"]
        assert metrics["q"]["value"] == metrics["p"]["value"]
