"""`-o -` (or `--html -`, `--md -`): the report on stdout, for a pipe; the summary then
goes to stderr, so stdout holds the report and nothing else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _cases(tmp_path: Path, kit: Any) -> Path:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 12)
    return cases


def test_json_report_on_stdout_equals_the_file(tmp_path: Path, kit: Any,
                                               spec_file: Path) -> None:
    cases = _cases(tmp_path, kit)
    piped = kit.evaldsl("run", spec_file, cases, "-o", "-")
    assert piped.returncode == 0, piped.stderr
    on_file = kit.evaldsl("run", spec_file, cases, "-o", tmp_path / "report.json", "-q")
    assert on_file.returncode == 0, on_file.stderr
    from_stdout = json.loads(piped.stdout)
    from_file = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    for report in (from_stdout, from_file):
        report["run"].pop("elapsed_s", None)
        report["run"].pop("started", None)
        report["run"].pop("cases_per_s", None)
    assert from_stdout["metrics"] == from_file["metrics"]
    assert from_stdout["cases"] == from_file["cases"]
    assert "success_rate" in piped.stderr, "the summary moves to stderr"
    assert not (tmp_path / "-").exists()


def test_markdown_on_stdout(tmp_path: Path, kit: Any, spec_file: Path) -> None:
    piped = kit.evaldsl("run", spec_file, _cases(tmp_path, kit), "--md", "-", "-q")
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.lstrip().startswith("#")
    assert "success_rate" in piped.stdout


def test_two_outputs_on_stdout_are_a_usage_error(tmp_path: Path, kit: Any,
                                                 spec_file: Path) -> None:
    both = kit.evaldsl("run", spec_file, _cases(tmp_path, kit), "-o", "-", "--md", "-")
    assert both.returncode == 2
    assert "-o" in both.stderr and "--md" in both.stderr
    assert both.stdout == ""


def test_junit_on_stdout_is_refused_before_the_run(tmp_path: Path, kit: Any,
                                                   spec_file: Path) -> None:
    refused = kit.evaldsl("run", spec_file, _cases(tmp_path, kit), "--junit", "-")
    assert refused.returncode == 2
    assert "--junit" in refused.stderr
    assert not (tmp_path / "-").exists()


def test_merge_writes_to_stdout(tmp_path: Path, kit: Any, spec_file: Path) -> None:
    journal = tmp_path / "results.jsonl"
    first = kit.evaldsl("run", spec_file, _cases(tmp_path, kit), "--results", journal, "-q")
    assert first.returncode == 0, first.stderr
    merged = kit.evaldsl("merge", spec_file, journal, "-o", "-")
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout)["cases"]["evaluated"] == 12
