"""report.json: counts, tallies, worst cases, and the published schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.report.json_report import ReportBuilder, cost_of
from evaldsl.report.json_report import metric_entry as typed_metric_entry
from evaldsl.report.layout import SpecLayout, layout_of
from evaldsl.runtime import bootstrap
from evaldsl.syntax.source import Source
from tests.support import formula_kit

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "report.schema.json")
                    .read_text("utf-8"))


def metric_entry(metric: Any, expression: str | None = None) -> dict[str, Any]:
    """A metric's entry as report.json writes it."""
    out: dict[str, Any] = msgspec.to_builtins(typed_metric_entry(metric, expression))
    return out


@pytest.fixture
def report(layout: SpecLayout, sample: Any) -> dict[str, Any]:
    """The sample report as report.json holds it: the JSON values the schema speaks of."""
    out: dict[str, Any] = sample.build(layout).to_dict()
    return out


def by_name(items: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(i for i in items if i["name"] == name)


class TestReportBuilder:
    def test_counts_every_label_and_error(self, report: dict[str, Any]) -> None:
        """The verdict block lists its labels in branch order, `error` last, with counts."""
        (block,) = report["outcomes"]
        assert block["name"] is None
        assert block["labels"] == ["success", "partial", "failure", "error"]
        assert block["counts"] == {"success": 2, "partial": 1, "failure": 2, "error": 1}

    def test_check_tally_separates_errors_and_unneeded(self, report: dict[str, Any]) -> None:
        polite = by_name(report["checks"], "polite")
        assert (polite["passed"], polite["failed"], polite["errors"], polite["not_needed"]) == \
            (2, 1, 1, 2)
        assert polite["evaluated"] == 4
        assert polite["pass_rate"] == 2 / 3
        assert polite["interval"]["low"] < 2 / 3 < polite["interval"]["high"]

    def test_score_distribution(self, report: dict[str, Any]) -> None:
        completion = by_name(report["checks"], "completion")
        assert completion["score"]["histogram"] == [1, 0, 0, 0, 0, 2, 0, 0, 0, 3]
        assert completion["score"]["mean"] == 4 / 6
        assert (completion["score"]["min"], completion["score"]["max"]) == (0.0, 1.0)

    def test_fill_rate_per_slot(self, report: dict[str, Any]) -> None:
        (group,) = report["slots"]
        assert group["check"] == "completion"
        assert group["slots"] == [
            {"name": "name", "filled": 5, "of": 6, "rate": 5 / 6},
            {"name": "phone", "filled": 3, "of": 6, "rate": 3 / 6},
        ]

    def test_worst_cases_errors_first_then_later_branches(self, report: dict[str, Any],
                                                          sample: Any) -> None:
        ids = [c["id"] for c in report["worst_cases"]]
        assert ids[0] == "c5"
        assert set(ids[1:3]) == {"c3", sample.RECORDS[3]["id"]}
        assert ids[3] == "c2"

    def test_worst_case_carries_trace_and_dialog(self, report: dict[str, Any]) -> None:
        c3 = next(c for c in report["worst_cases"] if c["id"] == "c3")
        assert c3["labels"] == {"verdict": "failure"}
        assert c3["branches"] == {"verdict": "failure otherwise"}
        statuses = {c["name"]: c["status"] for c in c3["checks"]}
        assert statuses == {"intent": "failed", "completion": "failed", "polite": "not_needed"}
        assert c3["dialog"][0]["role"] == "user"
        assert c3["dialog"][1]["latency_ms"] == 900

    def test_error_case_shows_why(self, report: dict[str, Any]) -> None:
        c5 = report["worst_cases"][0]
        assert c5["branches"] == {"verdict": "error(polite: judge timed out)"}

    def test_dialog_offered_after_the_record_is_kept(self, layout: SpecLayout,
                                                     sample: Any) -> None:
        """A resumed run offers dialogs of journaled cases when the input stream reaches them."""
        builder = ReportBuilder(layout, worst=2)
        for r in sample.RECORDS:
            builder.add(r)
        for r in sample.RECORDS:
            builder.offer_dialog(sample.case_for(r["id"]))
        report = builder.build([], cost_of(None), [], 0).to_dict()
        assert [len(c["dialog"]) for c in report["worst_cases"]] == [2, 2]

    def test_review_selected(self, report: dict[str, Any]) -> None:
        assert report["review"] == {"selected": 2}

    def test_bad_rows_counted_and_listed(self, report: dict[str, Any]) -> None:
        assert report["cases"]["bad_rows_skipped"] == 1
        assert report["cases"]["bad_rows"][0]["line"] == 7


class TestMetricEntry:
    def test_rate_gets_a_wilson_interval(self, sample: Any) -> None:
        entry = metric_entry(sample.METRICS[0], "rate(success)")
        assert entry["interval"]["method"] == "wilson"
        assert entry["interval"]["low"] < 0.4 < entry["interval"]["high"]
        assert (entry["numerator"], entry["denominator"], entry["errors"]) == (2, 5, 1)

    def test_mean_gets_no_interval(self, sample: Any) -> None:
        assert metric_entry(sample.METRICS[1])["interval"] is None

    def test_where_is_kept(self, sample: Any) -> None:
        assert metric_entry(sample.METRICS[2])["where"] == "intent.passed"


class TestSchema:
    def test_report_validates(self, report: dict[str, Any]) -> None:
        jsonschema.validate(report, SCHEMA)

    def test_schema_rejects_a_metric_without_denominator(self, report: dict[str, Any]) -> None:
        del report["metrics"][0]["denominator"]
        validator = jsonschema.Draft202012Validator(SCHEMA)
        assert any("denominator" in e.message for e in validator.iter_errors(report))

    def test_empty_run_validates(self, layout: SpecLayout) -> None:
        jsonschema.validate(ReportBuilder(layout).build([], cost_of(None), [], 0).to_dict(), SCHEMA)


class TestJudgeAgreement:
    """A check asked of several judges reports Krippendorff's alpha across them."""

    @staticmethod
    def records(answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"id": f"c{k}", "checks": {"polite": {"status": "passed", "score": 1.0,
                                                      "by_judge": a}}}
                for k, a in enumerate(answers)]

    def test_alpha_over_the_cases_two_judges_answered(self, layout: SpecLayout) -> None:
        """Points 8/8, 2/2, 8/2 and one judge that failed: three units, alpha as the
        coincidence formula gives it, the third case being the only disagreement."""
        from evaldsl.report.alpha import krippendorff_alpha

        answers = [{"m1": 8.0, "m2": 8.0}, {"m1": 2.0, "m2": 2.0}, {"m1": 8.0, "m2": 2.0},
                   {"m1": 5.0, "m2": None}]
        builder = ReportBuilder(layout)
        for r in self.records(answers):
            builder.add(r)
        report = builder.build([], cost_of(None), [], 0).to_dict()
        expected = krippendorff_alpha([[8.0, 8.0], [2.0, 2.0], [8.0, 2.0]], "interval")
        assert by_name(report["checks"], "polite")["judges"] == {
            "alpha": expected, "level": "interval", "cases": 3}
        jsonschema.validate(report, SCHEMA)

    def test_labels_are_nominal_and_shards_merge_to_one_figure(self,
                                                              layout: SpecLayout) -> None:
        answers = [{"m1": "a", "m2": "a"}, {"m1": "b", "m2": "a"}, {"m1": "b", "m2": "b"}]
        whole, first, second = (ReportBuilder(layout) for _ in range(3))
        for k, r in enumerate(self.records(answers)):
            whole.add(r)
            (first if k < 2 else second).add(r)
        merged = first.merge(second).build([], cost_of(None), [], 0).to_dict()
        one = whole.build([], cost_of(None), [], 0).to_dict()
        assert by_name(one["checks"], "polite")["judges"]["level"] == "nominal"
        assert by_name(merged["checks"], "polite")["judges"] == by_name(
            one["checks"], "polite")["judges"]

    def test_a_merge_leaves_its_inputs_as_they_were(self, layout: SpecLayout) -> None:
        """Adding to a merged builder changes neither part (their tallies are not shared)."""
        first, second = ReportBuilder(layout), ReportBuilder(layout)
        first.add(self.records([{"m1": "a", "m2": "b"}])[0])
        before = by_name(first.build([], cost_of(None), [], 0).to_dict()["checks"], "polite")
        merged = first.merge(second)
        merged.add({**self.records([{"m1": "a", "m2": "a"}])[0], "id": "other"})
        again = first.build([], cost_of(None), [], 0).to_dict()
        assert by_name(again["checks"], "polite") == before

    def test_a_check_of_one_judge_has_none(self, report: dict[str, Any]) -> None:
        assert all("judges" not in c for c in report["checks"])


rows = st.lists(
    st.tuples(st.integers(0, 30), st.sampled_from([0, 1, 2, None]), st.booleans(),
              st.booleans(), st.booleans(),
              st.one_of(st.none(), st.just(-1.0), st.floats(0, 1))),
    max_size=25, unique_by=lambda r: r[0])


@settings(max_examples=60, deadline=None)
@given(rows=rows, rnd=st.randoms(use_true_random=False))
def test_law_report_is_independent_of_arrival_order(
        sample: Any, rows: list[tuple[Any, ...]], rnd: Any) -> None:
    """Law: any permutation of the same case records gives the same report."""
    layout = layout_of(Source(sample.SPEC, "specs/repair.eval"), "specs/repair.eval")
    cases = [sample.record(f"r{i}", b, intent, {"name": name, "phone": phone}, polite)
             for i, b, intent, name, phone, polite in rows]
    shuffled = list(cases)
    rnd.shuffle(shuffled)
    assert sample.build(layout, cases) == sample.build(layout, shuffled)


def formula_report(layout: SpecLayout, sample: Any) -> dict[str, Any]:
    """The sample report with a formula metric (`formula_kit`) before the single rate."""
    report: dict[str, Any] = sample.build(layout).to_dict()
    entry = metric_entry(formula_kit.state().result(), "rate(success) + 0.5 * rate(partial)")
    report["metrics"] = [entry, *report["metrics"]]
    return report


class TestFormulaMetric:
    def test_carries_its_parts_and_no_numerator(self, sample: Any) -> None:
        entry = metric_entry(formula_kit.state().result())
        assert (entry["numerator"], entry["denominator"]) == (None, 10)
        assert entry["template"] == formula_kit.TEMPLATE
        assert entry["parts"] == [
            {"aggregate": "rate(success)", "value": 0.6, "numerator": 6.0, "denominator": 10},
            {"aggregate": "rate(partial)", "value": 0.2, "numerator": 2.0, "denominator": 10}]

    def test_gets_a_seeded_bootstrap_interval(self) -> None:
        interval = metric_entry(formula_kit.state().result())["interval"]
        assert (interval["method"], interval["seed"], interval["resamples"]) == (
            "bootstrap", bootstrap.SEED, bootstrap.RESAMPLES)
        assert interval["low"] < 0.7 < interval["high"]
        assert metric_entry(formula_kit.state().result())["interval"] == interval

    def test_a_single_rate_keeps_wilson_and_its_numerator(self, sample: Any) -> None:
        entry = metric_entry(sample.METRICS[0])
        assert (entry["template"], entry["parts"], entry["numerator"]) == (None, None, 2)
        assert entry["interval"]["method"] == "wilson"

    def test_validates(self, layout: SpecLayout, sample: Any) -> None:
        jsonschema.validate(formula_report(layout, sample), SCHEMA)

    def test_schema_wants_the_seed(self, layout: SpecLayout, sample: Any) -> None:
        report = formula_report(layout, sample)
        del report["metrics"][0]["interval"]["seed"]
        assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(report)


def _judged(case_id: str, branch: int | None, checks: dict[str, Any]) -> Any:
    """A case result as the interpreter makes it, with the checks given."""
    from evaldsl.results import CaseResult

    labels = ["success", "partial", "failure"]
    return CaseResult(case_id, {"outcome": "error" if branch is None else labels[branch]},
                      {"outcome": branch}, checks,
                      errors={"outcome": "error(polite: timed out)"} if branch is None else {})


def test_a_judged_case_counts_the_same_from_its_result_as_from_its_record(
        layout: SpecLayout) -> None:
    """`add` with the result the record was made of counts its checks from the result: every
    shape (decided, an error, no score, a score that is no number, judges, slots, a check
    the spec does not name) gives the report the record alone gives."""
    from evaldsl.values import CheckResult, ErrorValue

    err = ErrorValue("judge timed out", "polite")
    shapes = [
        {"intent": CheckResult(True, 1.0, 1.0, {"matched": ["预约"]}),
         "completion": CheckResult(False, 0.5, 0.5, {"filled": {"name": True, "phone": False}})},
        {"intent": CheckResult(False, 0, "x", {"missing": [], "forbidden": [err]}, "no"),
         "polite": CheckResult.error("judge timed out", "polite")},
        {"intent": CheckResult(True, None, None), "polite": CheckResult(True, True, 7),
         "completion": CheckResult.error("no slots read")},  # an error, no block's
        {"polite": CheckResult(False, err, err, {"by_judge": {"m1": 3.0, "m2": err}})},
        {"polite": CheckResult(True, 0.25, 2.5, {"by_judge": {"m1": 2.0, "m2": 3.0}}),
         "extra": CheckResult(None, 0.75, None)},  # type: ignore[arg-type]
        {"intent": CheckResult(True, -0.0, 0.0), "completion": CheckResult(True, 1, 1)},
    ]
    results = [_judged(f"c{k}", k % 3 if k != 1 else None, checks)
               for k, checks in enumerate(shapes)]
    from_records, from_results = ReportBuilder(layout), ReportBuilder(layout)
    for k, result in enumerate(results):
        record = result.to_record(f"cases.jsonl:{k + 1}")
        from_records.add(record)
        from_results.add(record, None, result)
    one = from_records.build([], cost_of(None), [], 0).to_dict()
    assert from_results.build([], cost_of(None), [], 0).to_dict() == one
    assert one["cases"]["errored"] == 1 and one["errors"]


def test_scores_count_as_if_each_were_added_at_once(layout: SpecLayout) -> None:
    """A check's scores wait as counts per distinct score (`_Tally.pending`) and settle when
    read, merged or too many: the mean, min, max (the first met of equal scores: `1` before
    `1.0`, `-0.0` before `0.0`) and histogram are those of adding each score in turn, with
    more distinct scores than wait at once, and split across a merge."""
    from evaldsl.report.json_report import PENDING_SCORES

    scores: list[float] = [1, -0.0, 0.5, 1.0, 0.0, 0.5, 1, 0.25]
    scores += [k / (3 * PENDING_SCORES) for k in range(3 * PENDING_SCORES, 0, -1)]
    scores += [0.5, 1.0, -0.0, 0.999]

    def tally(scores: list[float]) -> ReportBuilder:
        builder = ReportBuilder(layout)
        for k, score in enumerate(scores):
            builder.add({"id": f"c{k}", "checks": {"completion": {
                "status": "passed", "passed": True, "score": score}}})
        return builder

    def summary(builder: ReportBuilder) -> dict[str, Any]:
        return by_name(builder.build([], cost_of(None), [], 0).to_dict()["checks"],
                       "completion")["score"]

    low = high = scores[0]
    histogram = [0] * 10
    for score in scores:
        low = score if score < low else low
        high = score if score > high else high
        histogram[min(max(int(score * 10), 0), 9)] += 1
    units = sum(round(score * 2.0 ** 52) for score in scores)
    expected = {"mean": units / (len(scores) << 52), "min": low, "max": high,
                "histogram": histogram}
    whole = summary(tally(scores))
    assert whole == expected
    assert type(whole["max"]) is int and str(whole["min"]) == "-0.0"
    half = len(scores) // 2
    assert summary(tally(scores[:half]).merge(tally(scores[half:]))) == expected
