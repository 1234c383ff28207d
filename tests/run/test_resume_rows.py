"""`--resume` checks the journal against the input: rows, not ids, say what is done."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaldsl.api import load
from evaldsl.cases.loading import read_cases, read_rows
from evaldsl.cases.rows import CaseSchema
from evaldsl.errors import CaseDataError, JournalVersionError
from evaldsl.report.layout import layout_of
from evaldsl.run.runner import RunOptions, run
from evaldsl.run.workers import run_workers

GOOD = [{"role": "user", "content": "hello"},
        {"role": "assistant", "content": "What is your name?", "latency_ms": 100}]
BAD = [{"role": "user", "content": "the fridge leaks"},
       {"role": "assistant", "content": "A technician comes tomorrow.", "latency_ms": 100}]


def judge(spec_file: Path, cases: Path, workers: int = 1, **options: Any) -> Any:
    spec = load(spec_file)
    layout = layout_of(spec.source, "runner.eval")
    if workers > 1:
        return run_workers(spec, layout, read_rows([cases]), RunOptions(**options), workers)
    items = read_cases([cases], CaseSchema.of(spec), "skip")
    return run(spec, layout, items, RunOptions(**options))


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def twins(tmp_path: Path) -> Path:
    """Two rows with one id and different verdicts (success, then failure), and a third."""
    return write_rows(tmp_path / "cases.jsonl", [
        {"id": "dup", "messages": GOOD, "intent": "x"},
        {"id": "dup", "messages": BAD, "intent": "x"},
        {"id": "other", "messages": GOOD, "intent": "x"}])


def journal_lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines(keepends=True)


@pytest.mark.parametrize("workers", [1, 2])
def test_resume_skips_the_journaled_occurrence_of_a_repeated_id(
        tmp_path: Path, kit: Any, spec_file: Path, workers: int) -> None:
    """The journal holds the second `dup` only (cases finish out of order with concurrency):
    the first is the one still to judge, so the report is the uninterrupted one."""
    cases = twins(tmp_path)
    whole = judge(spec_file, cases, results=tmp_path / "whole.jsonl")
    header, first, second, _third = journal_lines(tmp_path / "whole.jsonl")
    journal = tmp_path / "part.jsonl"
    journal.write_text(header + second, encoding="utf-8")
    resumed = judge(spec_file, cases, workers, results=journal, resume=True)
    assert (resumed.resumed, resumed.evaluated) == (1, 2)
    assert kit.without_run(resumed.report) == kit.without_run(whole.report)
    assert sorted(journal_lines(journal)[1:]) == sorted([first, second, _third])


def test_every_journal_line_names_its_input_row(tmp_path: Path, spec_file: Path) -> None:
    cases = twins(tmp_path)
    judge(spec_file, cases, results=tmp_path / "r.jsonl", inputs=(str(cases),))
    header, *records = [json.loads(line) for line in journal_lines(tmp_path / "r.jsonl")]
    assert header["version"] == 2 and header["inputs"] == [str(cases)]
    assert [r["row"] for r in records] == [f"{cases}:1", f"{cases}:2", f"{cases}:3"]


class TestForeignRecords:
    def test_a_record_past_the_end_of_the_input_is_an_error_naming_its_line(
            self, tmp_path: Path, kit: Any, spec_file: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 5)
        journal = tmp_path / "r.jsonl"
        judge(spec_file, cases, results=journal)
        kit.write_cases(cases, 3)
        with pytest.raises(CaseDataError, match=rf"r\.jsonl:5: the result of `{cases}:4` "
                                                r"\(case `case-00003`\), a row not in the input"):
            judge(spec_file, cases, results=journal, resume=True)

    def test_a_record_whose_row_holds_another_case_is_an_error(
            self, tmp_path: Path, spec_file: Path) -> None:
        cases = twins(tmp_path)
        journal = tmp_path / "r.jsonl"
        judge(spec_file, cases, results=journal)
        write_rows(cases, [{"id": "new", "messages": GOOD, "intent": "x"}])
        with pytest.raises(CaseDataError, match=rf"r\.jsonl:2: the result of case `dup` at "
                                                rf"`{cases}:1`, but that row is case `new`"):
            judge(spec_file, cases, results=journal, resume=True)

    def test_a_journal_of_other_case_files_is_refused(
            self, tmp_path: Path, spec_file: Path) -> None:
        cases = twins(tmp_path)
        journal = tmp_path / "r.jsonl"
        judge(spec_file, cases, results=journal, inputs=(str(cases),))
        other = write_rows(tmp_path / "other.jsonl", [{"id": "a", "messages": GOOD}])
        with pytest.raises(CaseDataError, match=rf"r\.jsonl:1: the journal of a run over "
                                                rf"`{cases}`, not `{other}`"):
            judge(spec_file, other, results=journal, resume=True, inputs=(str(other),))

    def test_a_journal_of_an_older_version_is_refused(self, tmp_path: Path,
                                                      spec_file: Path) -> None:
        cases = twins(tmp_path)
        journal = tmp_path / "r.jsonl"
        judge(spec_file, cases, results=journal)
        header, *rest = journal_lines(journal)
        old = {k: v for k, v in json.loads(header).items() if k != "inputs"} | {"version": 1}
        journal.write_text(json.dumps(old) + "\n" + "".join(rest), encoding="utf-8")
        with pytest.raises(JournalVersionError,
                           match=r"version 1 journal; this evaldsl reads version 2"):
            judge(spec_file, cases, results=journal, resume=True)


def test_a_line_repeated_in_the_journal_counts_once(tmp_path: Path, kit: Any,
                                                    spec_file: Path) -> None:
    cases = twins(tmp_path)
    whole = judge(spec_file, cases, results=tmp_path / "whole.jsonl")
    header, first, second, third = journal_lines(tmp_path / "whole.jsonl")
    journal = tmp_path / "part.jsonl"
    journal.write_text(header + first + second + first, encoding="utf-8")
    resumed = judge(spec_file, cases, results=journal, resume=True)
    assert (resumed.resumed, resumed.evaluated) == (2, 1)
    assert kit.without_run(resumed.report) == kit.without_run(whole.report)


def test_two_different_results_for_one_row_are_an_error(tmp_path: Path,
                                                        spec_file: Path) -> None:
    cases = twins(tmp_path)
    journal = tmp_path / "r.jsonl"
    judge(spec_file, cases, results=journal)
    header, first, second, _third = journal_lines(journal)
    forged = json.loads(second) | {"row": json.loads(first)["row"]}
    journal.write_text(header + first + json.dumps(forged) + "\n", encoding="utf-8")
    with pytest.raises(CaseDataError, match=r"r\.jsonl:3: another result for row .*line 2"):
        judge(spec_file, cases, results=journal, resume=True)
