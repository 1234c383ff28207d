"""`evaldsl run --where / --ids / --sample --seed`: the rows judged, the rows left out and why,
the `--where` diagnostics, sampling determinism, and the selection under `--resume`."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.support.run_kit import REPO

SPEC = """\
spec "pick"

case {
  category: text
  level: number?
}

check polite = keyword(scope: last_reply, any: ["please"])

outcome {
  good if polite
  bad otherwise
}

metric good_rate = rate(good)
"""

ROWS = [  # id, category, level (None: absent), reply
    ("a1", "live_simple", 1, "please"),
    ("a2", "live_simple", None, "no"),
    ("a3", "multiple", 3, "please"),
    ("a4", "live_simple", 4, "please"),
    ("a5", "irrelevance", 5, "no"),
    ("a6", "multiple", None, "please"),
]


def _row(case_id: str, category: str, level: int | None, reply: str) -> dict[str, Any]:
    row: dict[str, Any] = {"id": case_id, "category": category,
                           "messages": [{"role": "user", "content": "hi"},
                                        {"role": "assistant", "content": reply}]}
    if level is not None:
        row["level"] = level
    return row


def write_rows(path: Path, rows: list[tuple[str, str, int | None, str]]) -> Path:
    path.write_text("".join(json.dumps(_row(*r)) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "pick.eval"
    path.write_text(SPEC, encoding="utf-8")
    return path


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    return write_rows(tmp_path / "cases.jsonl", ROWS)


def judged(results: Path) -> list[str]:
    """The ids of the case lines of a journal, in the order written."""
    lines = [json.loads(line) for line in results.read_text("utf-8").splitlines()[1:]]
    return sorted(line["id"] for line in lines)


def run(kit: Any, tmp: Path, spec: Path, cases: Path, *flags: Any,
        name: str = "results") -> tuple[Any, Path, dict[str, Any]]:
    """The process, its journal and its report."""
    results, report = tmp / f"{name}.jsonl", tmp / f"{name}.json"
    done = kit.evaldsl("run", spec, cases, "--results", results, "-o", report, *flags)
    data = json.loads(report.read_text("utf-8")) if report.exists() else {}
    return done, results, data


class TestWhere:
    def test_only_the_cases_the_condition_holds_for_are_judged(
            self, kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
        done, results, report = run(kit, tmp_path, spec, cases,
                                    "--where", 'case.category == "live_simple"')
        assert done.returncode == 0, done.stderr
        assert judged(results) == ["a1", "a2", "a4"]
        assert report["cases"]["evaluated"] == 3
        assert report["cases"]["left_out"] == 3
        assert report["cases"]["left_out_reasons"] == [
            {"reason": "--where does not hold", "count": 3}]
        metric = report["metrics"][0]
        assert (metric["numerator"], metric["denominator"]) == (2, 3)

    def test_a_case_the_condition_errors_on_is_left_out_under_its_own_reason(
            self, kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
        done, results, report = run(kit, tmp_path, spec, cases, "--where", "case.level > 2")
        assert done.returncode == 0, done.stderr
        assert judged(results) == ["a3", "a4", "a5"]
        assert report["cases"]["left_out_reasons"] == [
            {"reason": "--where is an error: case.level: the case has no field `level`",
             "count": 2},
            {"reason": "--where does not hold", "count": 1}]
        assert ("left out by the selection: 3 rows (2 × --where is an error: case.level: "
                "the case has no field `level`; 1 × --where does not hold)") in done.stdout

    def test_an_unknown_field_is_a_diagnostic_with_a_caret_before_anything_runs(
            self, kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
        done, results, _report = run(kit, tmp_path, spec, cases,
                                     "--where", 'case.categry == "x"')
        assert done.returncode == 2
        assert done.stderr.splitlines()[:4] == [
            "<--where>:1:6: error[E103]: the case has no field `categry`",
            '1 | case.categry == "x"',
            "  |      ^^^^^^^",
            "hint: did you mean `category`?"]
        assert not results.exists()

    def test_a_number_is_not_a_condition(self, kit: Any, tmp_path: Path, spec: Path,
                                         cases: Path) -> None:
        done, _results, _report = run(kit, tmp_path, spec, cases, "--where", "case.level + 1")
        assert done.returncode == 2
        assert done.stderr.splitlines()[:3] == [
            "<--where>:1:1: error[E306]: an outcome condition must be true or false, "
            "found a number",
            "1 | case.level + 1",
            "  | ^^^^^^^^^^^^^^"]

    def test_an_unfinished_expression_is_a_syntax_error_at_its_end(
            self, kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
        done, _results, _report = run(kit, tmp_path, spec, cases, "--where", "case.level >")
        assert done.returncode == 2
        assert done.stderr.startswith(
            "<--where>:1:13: error[E012]: `--where` ends in the middle of an expression")

    def test_text_that_closes_the_condition_is_refused(
            self, kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
        injected = "case.level > 1) extra if (case.level > 0"
        done, _results, _report = run(kit, tmp_path, spec, cases, "--where", injected)
        assert done.returncode == 2
        assert "error[E011]: `--where` takes one condition over `case`" in done.stderr

    def test_workers_judge_the_same_cases(self, kit: Any, tmp_path: Path, spec: Path,
                                          cases: Path) -> None:
        flags = ("--where", 'case.category == "multiple"')
        one, results_one, report_one = run(kit, tmp_path, spec, cases, *flags, name="one")
        two, results_two, report_two = run(kit, tmp_path, spec, cases, *flags, "--workers", "2",
                                           name="two")
        assert one.returncode == two.returncode == 0, two.stderr
        assert judged(results_one) == judged(results_two) == ["a3", "a6"]
        assert kit.without_run(report_one) == kit.without_run(report_two)


class TestIds:
    def test_the_ids_of_the_file_are_judged_and_unknown_ones_counted(
            self, kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
        ids = tmp_path / "ids.txt"
        ids.write_text("# the failures of last week\na2\n\n  a5  # irrelevance\nzz\nyy\n",
                       encoding="utf-8")
        done, results, report = run(kit, tmp_path, spec, cases, "--ids", ids)
        assert done.returncode == 0, done.stderr
        assert judged(results) == ["a2", "a5"]
        assert report["cases"]["left_out"] == 4
        assert report["cases"]["ids_not_found"] == 2
        assert f"warning: 2 ids of `{ids}` are not in the input" in done.stderr

    def test_ids_and_where_both_hold(self, kit: Any, tmp_path: Path, spec: Path,
                                     cases: Path) -> None:
        ids = tmp_path / "ids.txt"
        ids.write_text("a1\na3\na4\n", encoding="utf-8")
        done, results, report = run(kit, tmp_path, spec, cases, "--ids", ids,
                                    "--where", 'case.category == "live_simple"')
        assert done.returncode == 0, done.stderr
        assert judged(results) == ["a1", "a4"]
        assert report["cases"]["ids_not_found"] == 0
        assert "warning" not in done.stderr


def sample_by_rule(ids: list[str], size: int, seed: int) -> list[str]:
    """The documented rule, restated: the `size` ids with the smallest sha256(f"{seed}:{id}")."""
    return sorted(sorted(ids, key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest())
                  [:size])


class TestSample:
    def test_the_sample_follows_the_stated_rule(self, kit: Any, tmp_path: Path, spec: Path,
                                                cases: Path) -> None:
        done, results, report = run(kit, tmp_path, spec, cases, "--sample", "3", "--seed", "5")
        assert done.returncode == 0, done.stderr
        ids = [r[0] for r in ROWS]
        assert judged(results) == sample_by_rule(ids, 3, 5) == ["a1", "a3", "a5"]
        assert report["cases"]["left_out_reasons"] == [
            {"reason": "not in the sample", "count": 3}]

    def test_the_same_seed_draws_the_same_sample_whatever_the_order(
            self, kit: Any, tmp_path: Path, spec: Path) -> None:
        rows = [(f"c{i}", "multiple", i, "please") for i in range(40)]
        shuffled = rows[:]
        random.Random(3).shuffle(shuffled)
        first = write_rows(tmp_path / "first.jsonl", rows)
        second = write_rows(tmp_path / "second.jsonl", shuffled)
        _d1, one, _r1 = run(kit, tmp_path, spec, first, "--sample", "7", "--seed", "9", name="1")
        _d2, two, _r2 = run(kit, tmp_path, spec, second, "--sample", "7", "--seed", "9", name="2")
        assert judged(one) == judged(two) == sample_by_rule([r[0] for r in rows], 7, 9)

    def test_a_larger_sample_keeps_the_smaller_ones_cases(
            self, kit: Any, tmp_path: Path, spec: Path) -> None:
        rows = write_rows(tmp_path / "rows.jsonl",
                          [(f"c{i}", "multiple", i, "no") for i in range(40)])
        _d1, small, _r1 = run(kit, tmp_path, spec, rows, "--sample", "7", "--seed", "9",
                              name="small")
        _d2, large, _r2 = run(kit, tmp_path, spec, rows, "--sample", "8", "--seed", "9",
                              name="large")
        assert len(judged(small)) == 7 and len(judged(large)) == 8
        assert set(judged(small)) < set(judged(large))

    def test_the_sample_is_drawn_from_the_cases_where_keeps(
            self, kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
        done, results, report = run(kit, tmp_path, spec, cases, "--sample", "2", "--seed", "1",
                                    "--where", 'case.category == "live_simple"')
        assert done.returncode == 0, done.stderr
        assert judged(results) == sample_by_rule(["a1", "a2", "a4"], 2, 1)
        assert report["cases"]["evaluated"] == 2 and report["cases"]["left_out"] == 4

    def test_a_seed_without_a_sample_is_a_usage_error(
            self, kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
        done, _results, _report = run(kit, tmp_path, spec, cases, "--seed", "4")
        assert done.returncode == 2
        assert "--seed is the seed of --sample; add --sample N" in done.stderr


class TestResume:
    def test_a_resumed_run_with_the_same_selection_ends_with_the_same_report(
            self, kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
        flags = ("--where", "case.level > 2", "--sample", "2", "--seed", "3")
        _done, whole_journal, whole = run(kit, tmp_path, spec, cases, *flags, name="whole")
        _done, results, _part = run(kit, tmp_path, spec, cases, *flags, "--limit", "1")
        done, results, resumed = run(kit, tmp_path, spec, cases, *flags, "--resume")
        assert done.returncode == 0, done.stderr
        assert "resumed: 1 case from" in done.stderr
        assert judged(results) == judged(whole_journal)
        assert kit.without_run(resumed) == kit.without_run(whole)
        assert resumed["cases"]["left_out"] == 4

    def test_another_selection_is_refused_before_anything_is_written(
            self, kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
        _done, results, _report = run(kit, tmp_path, spec, cases, "--sample", "3")
        before = results.read_bytes()
        done, results, _report = run(kit, tmp_path, spec, cases, "--sample", "4", "--resume")
        assert done.returncode == 2
        assert (f"cannot resume: `{results}` holds a run over another selection (`sample 3, "
                "seed 0`; this run: `sample 4, seed 0`)") in done.stderr
        assert results.read_bytes() == before

    def test_a_selection_is_refused_on_a_journal_of_every_row(
            self, kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
        run(kit, tmp_path, spec, cases)
        done, _results, _report = run(kit, tmp_path, spec, cases, "--where", "true", "--resume")
        assert done.returncode == 2
        assert "(every row; this run: `where true`)" in done.stderr


def test_the_report_with_a_selection_follows_the_schema(
        kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("a1\nnope\n", encoding="utf-8")
    _done, _results, report = run(kit, tmp_path, spec, cases, "--ids", ids)
    schema = json.loads((REPO / "docs" / "report.schema.json").read_text("utf-8"))
    jsonschema.validate(report, schema)
    assert report["cases"]["left_out"] == 5


def test_the_markdown_summary_says_how_many_rows_were_left_out(
        kit: Any, tmp_path: Path, spec: Path, cases: Path) -> None:
    summary = tmp_path / "summary.md"
    done, _results, _report = run(kit, tmp_path, spec, cases, "--where", "case.level > 2",
                                  "--md", summary)
    assert done.returncode == 0, done.stderr
    assert "**3** cases judged · 3 rows left out by the selection · " in summary.read_text("utf-8")
