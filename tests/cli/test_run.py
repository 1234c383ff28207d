"""`evaldsl run`: outputs, bad rows, thresholds and exit codes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

BAD = {2: "{not json", 5: '{"id": "no-messages"}', 9: '{"id": "x", "messages": "hi"}',
       14: "\"just a string\""}


@pytest.fixture(scope="module")
def run_all(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> Any:
    """A run over 40 good rows and 4 malformed ones with every output enabled."""
    tmp_path = tmp_path_factory.mktemp("run_all")
    spec_file = tmp_path / "runner.eval"
    spec_file.write_text(kit.SPEC, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 40, bad=BAD)
    out = tmp_path / "out"
    done = kit.evaldsl("run", spec_file, cases, "--on-bad-row", "skip",
                       "-o", out / "report.json", "--html", out / "report.html",
                       "--md", out / "summary.md", "--junit", out / "junit.xml",
                       "--results", out / "results.jsonl")
    return done, out, cases


class TestBadRows:
    def test_each_bad_row_is_reported_by_file_and_line(self, run_all: Any) -> None:
        done, out, cases = run_all
        assert done.returncode == 0, done.stderr
        # a bad row written before good row i sits on line i + (bad rows before it) + 1
        expected_lines = [3, 7, 12, 18]
        shown = [line for line in done.stderr.splitlines() if line.startswith("skipped: ")]
        assert [s.split(":")[2] for s in shown] == [str(n) for n in expected_lines]
        report = json.loads((out / "report.json").read_text("utf-8"))
        assert report["cases"]["bad_rows_skipped"] == 4
        assert [(b["file"], b["line"]) for b in report["cases"]["bad_rows"]] == \
            [(str(cases), n) for n in expected_lines]
        assert report["cases"]["bad_rows"][1]["field"] == "messages"

    def test_no_good_row_is_lost(self, run_all: Any) -> None:
        _, out, _ = run_all
        report = json.loads((out / "report.json").read_text("utf-8"))
        assert report["cases"]["evaluated"] == 40
        ids = [json.loads(line)["id"] for line in
               (out / "results.jsonl").read_text("utf-8").splitlines()[1:]]
        assert ids == [f"case-{i:05d}" for i in range(40)]

    def test_fail_policy_stops_with_exit_3(self, tmp_path: Path, kit: Any,
                                           spec_file: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 10, bad=BAD)
        done = kit.evaldsl("run", spec_file, cases)
        assert done.returncode == 3
        assert f"{cases}:3: not valid JSON" in done.stderr
        assert "Traceback" not in done.stderr


class TestOutputs:
    def test_every_output_is_written(self, run_all: Any) -> None:
        _, out, _ = run_all
        assert sorted(p.name for p in out.iterdir()) == [
            "junit.xml", "report.html", "report.json", "results.jsonl", "summary.md"]

    def test_report_follows_the_published_schema(self, run_all: Any) -> None:
        _, out, _ = run_all
        schema = json.loads((Path(__file__).resolve().parents[2] / "docs" /
                             "report.schema.json").read_text("utf-8"))
        jsonschema.validate(json.loads((out / "report.json").read_text("utf-8")), schema)

    def test_junit_has_one_test_per_case(self, run_all: Any) -> None:
        _, out, _ = run_all
        suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
        assert suite is not None and suite.get("tests") == "40"
        report = json.loads((out / "report.json").read_text("utf-8"))
        counts = report["outcomes"][0]["counts"]
        assert suite.get("failures") == str(counts["partial"] + counts["failure"])

    def test_terminal_prints_each_metric_with_its_denominator(self, run_all: Any) -> None:
        done, out, _ = run_all
        report = json.loads((out / "report.json").read_text("utf-8"))
        fast = next(m for m in report["metrics"] if m["name"] == "fast_rate")
        line = next(x for x in done.stdout.splitlines() if x.strip().startswith("fast_rate"))
        assert f"({int(fast['numerator'])}/{fast['denominator']}, where greets)" in line

    def test_report_lists_review_and_cost(self, run_all: Any) -> None:
        _, out, _ = run_all
        report = json.loads((out / "report.json").read_text("utf-8"))
        assert report["review"]["selected"] > 0
        assert report["cost"]["model_calls"] == 0

    def test_limit(self, tmp_path: Path, kit: Any, spec_file: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 30)
        done = kit.evaldsl("run", spec_file, cases, "--limit", "7", "-o", tmp_path / "r.json")
        assert done.returncode == 0
        assert json.loads((tmp_path / "r.json").read_text("utf-8"))["cases"]["evaluated"] == 7


class TestExitCodes:
    @pytest.fixture
    def cases(self, tmp_path: Path, kit: Any) -> Path:
        path = tmp_path / "cases.jsonl"
        kit.write_cases(path, 30)
        return path

    def test_fail_under_missed_is_1(self, kit: Any, spec_file: Path, cases: Path) -> None:
        done = kit.evaldsl("run", spec_file, cases, "--fail-under", "success_rate=99%")
        assert done.returncode == 1
        assert "fail-under: `success_rate` is" in done.stderr and "below 99.0%" in done.stderr

    def test_fail_under_met_is_0(self, kit: Any, spec_file: Path, cases: Path) -> None:
        done = kit.evaldsl("run", spec_file, cases, "--fail-under", "success_rate=1%",
                           "--fail-under", "avg_short=0.01")
        assert done.returncode == 0, done.stderr

    def test_unknown_metric_is_2(self, kit: Any, spec_file: Path, cases: Path) -> None:
        done = kit.evaldsl("run", spec_file, cases, "--fail-under", "sucess_rate=50%")
        assert done.returncode == 2
        assert "names no metric of the spec: `sucess_rate`" in done.stderr

    def test_a_rate_threshold_above_one_without_percent_asks_for_a_percentage(
            self, kit: Any, spec_file: Path, cases: Path) -> None:
        done = kit.evaldsl("run", spec_file, cases, "--fail-under", "success_rate=85")
        assert done.returncode == 2
        assert "--fail-under `success_rate=85`: `success_rate` is a rate, between 0 and 1" \
            in done.stderr
        assert "hint: write 85% or 0.85" in done.stderr

    def test_a_threshold_above_one_is_fine_for_a_metric_that_is_not_a_rate(
            self, tmp_path: Path, kit: Any, spec_file: Path, cases: Path) -> None:
        done = kit.evaldsl("run", spec_file, cases, "--fail-under", "avg_short=85")
        assert done.returncode == 1, done.stderr

    def test_bad_threshold_is_2(self, kit: Any, spec_file: Path, cases: Path) -> None:
        done = kit.evaldsl("run", spec_file, cases, "--fail-under", "success_rate")
        assert done.returncode == 2 and "METRIC=VALUE" in done.stderr

    def test_spec_error_is_2(self, tmp_path: Path, kit: Any, cases: Path) -> None:
        spec = tmp_path / "bad.eval"
        spec.write_text('check x = keyword(any: ["a"])\nmetric m = rate(y)\n', encoding="utf-8")
        done = kit.evaldsl("run", spec, cases)
        assert done.returncode == 2 and "error[" in done.stderr
        assert "Traceback" not in done.stderr

    def test_missing_case_file_is_3(self, tmp_path: Path, kit: Any, spec_file: Path) -> None:
        done = kit.evaldsl("run", spec_file, tmp_path / "nope.jsonl")
        assert done.returncode == 3 and "nope.jsonl" in done.stderr

    def test_missing_spec_is_2(self, tmp_path: Path, kit: Any, cases: Path) -> None:
        done = kit.evaldsl("run", tmp_path / "nope.eval", cases)
        assert done.returncode == 2 and "Traceback" not in done.stderr

    def test_zero_concurrency_is_2(self, kit: Any, spec_file: Path, cases: Path) -> None:
        assert kit.evaldsl("run", spec_file, cases, "--concurrency", "0").returncode == 2

    def test_the_retired_client_process_setting_is_2_and_names_workers(
            self, tmp_path: Path, kit: Any, cases: Path) -> None:
        spec = tmp_path / "judged.eval"
        spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
        config = tmp_path / "evaldsl.toml"
        config.write_text('[judge]\nclient_process = "on"\n', encoding="utf-8")
        done = kit.evaldsl("run", spec, cases, "--config", config)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "`client_process` was removed" in done.stderr and "--workers N" in done.stderr


class TestEmptyInputs:
    def test_a_spec_without_checks_is_warned_about(self, tmp_path: Path, kit: Any) -> None:
        spec = tmp_path / "empty.eval"
        spec.write_text('spec "empty"\n', encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 3)
        done = kit.evaldsl("run", spec, cases, "-o", tmp_path / "r.json")
        assert done.returncode == 0, done.stderr
        assert f"warning: `{spec}` defines no checks: nothing is judged" in done.stderr
        assert json.loads((tmp_path / "r.json").read_text("utf-8"))["cases"]["evaluated"] == 3

    def test_an_empty_case_file_is_warned_about(self, tmp_path: Path, kit: Any,
                                               spec_file: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        cases.write_text("\n", encoding="utf-8")
        done = kit.evaldsl("run", spec_file, cases, "-o", tmp_path / "r.json")
        assert done.returncode == 0, done.stderr
        assert f"warning: `{cases}` holds no cases" in done.stderr
        assert json.loads((tmp_path / "r.json").read_text("utf-8"))["cases"]["evaluated"] == 0


class TestCasesInFlight:
    @pytest.mark.parametrize(("flags", "expected"), [((), 12), (("--concurrency", "5"), 5)],
                             ids=["four-per-request-slot", "as-given"])
    def test_default_keeps_four_cases_per_judge_request_slot(
            self, tmp_path: Path, kit: Any, judge_server: Any, flags: tuple[str, ...],
            expected: int) -> None:
        spec = tmp_path / "judged.eval"
        spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 20)
        env = {"EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_JUDGE_CONCURRENCY": "3"}
        done = kit.evaldsl("run", spec, cases, "--judge", judge_server.base_url, "--no-cache",
                           "-o", tmp_path / "report.json", *flags, env=env)
        assert done.returncode in (0, 1), done.stderr
        report = json.loads((tmp_path / "report.json").read_text("utf-8"))
        assert report["run"]["concurrency"] == expected


class TestYamlSyntaxError:
    """A broken YAML list keeps its good items: evaluated with skip, exit 3 with fail."""

    TEXT = (
        "- id: a\n  intent: x\n  messages: &m\n    - {role: user, content: 你好}\n"
        "    - {role: assistant, content: 请问您的姓名, latency_ms: 10}\n"
        "- id: b\n  intent: x\n  messages: *m\n"
        "- id: c\n  intent: : x\n  messages: []\n"
    )

    def test_skip_evaluates_the_rows_before_the_error(
        self, tmp_path: Path, kit: Any, spec_file: Path
    ) -> None:
        cases = tmp_path / "cases.yaml"
        cases.write_text(self.TEXT, encoding="utf-8")
        out = tmp_path / "report.json"
        done = kit.evaldsl("run", spec_file, cases, "--on-bad-row", "skip", "-o", out)
        assert done.returncode == 0, done.stderr
        report = json.loads(out.read_text("utf-8"))
        assert report["cases"]["evaluated"] == 2
        assert [(b["file"], b["line"]) for b in report["cases"]["bad_rows"]] == [(str(cases), 10)]

    def test_fail_names_file_and_line(self, tmp_path: Path, kit: Any, spec_file: Path) -> None:
        cases = tmp_path / "cases.yaml"
        cases.write_text(self.TEXT, encoding="utf-8")
        done = kit.evaldsl("run", spec_file, cases)
        assert done.returncode == 3
        assert f"{cases}:10:" in done.stderr


class TestJUnitPass:
    def test_a_label_no_block_has_is_an_error_naming_the_labels(
            self, tmp_path: Path, kit: Any, spec_file: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 3)
        done = kit.evaldsl("run", spec_file, cases, "--junit", tmp_path / "j.xml",
                           "--junit-pass", "success,sucess")
        assert done.returncode == 2
        assert "`sucess`" in done.stderr
        assert "`success`, `partial` and `failure`" in done.stderr
        assert not (tmp_path / "j.xml").exists()



class TestSpecFirst:
    def test_case_file_and_spec_swapped_says_the_spec_comes_first(
            self, tmp_path: Path, kit: Any, spec_file: Path) -> None:
        cases = tmp_path / "hotel.jsonl"
        kit.write_cases(cases, 2)
        done = kit.evaldsl("run", cases, spec_file)
        assert done.returncode == 2
        assert "the spec comes first" in done.stderr
        assert f"evaldsl run {spec_file} {cases}" in done.stderr
        assert "E011" not in done.stderr

    def test_a_gbk_spec_says_how_to_save_it_as_utf8(self, tmp_path: Path, kit: Any) -> None:
        spec = tmp_path / "酒店.eval"
        spec.write_bytes('spec "酒店评估"\ncheck k = keyword(any: ["退款"])\n'.encode("gbk"))
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 1)
        done = kit.evaldsl("run", spec, cases)
        assert done.returncode == 2
        assert "GB18030" in done.stderr
        assert f"iconv -f GB18030 -t UTF-8 {spec}" in done.stderr
