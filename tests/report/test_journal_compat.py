"""The journal format read both ways across the typed results line (`evaldsl.record`).

`tests/corpus/journals/v2/` holds a run written before the line became a typed record:
its spec, cases, results.jsonl and report.json. Every field a line can hold is in it
(lets, an errored block, skipped checks, metric inputs outside their `where`, groups,
review draws). Read by this code, each line is the same record, written back byte for
byte; a run of the same cases writes the same journal; and a run resumed from it, or a
merge of it, reports what that run reported.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evaldsl.cli.main import main
from evaldsl.record import CaseRecord, decode_line, encode_line
from evaldsl.report.journal import encode, read_records
from evaldsl.results import CaseResult

FIXTURE = Path(__file__).resolve().parents[1] / "corpus" / "journals" / "v2"


def _case_lines() -> list[bytes]:
    return (FIXTURE / "results.jsonl").read_bytes().splitlines(keepends=True)[1:]


def _figures(path: Path) -> dict[str, Any]:
    """A report without what belongs to the process (`run`)."""
    report = json.loads(path.read_text("utf-8"))
    report.pop("run")
    return report


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    for name in ("spec.eval", "cases.jsonl"):
        shutil.copyfile(FIXTURE / name, tmp_path / name)
    return tmp_path


def _run(work: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    assert main([*args, "--lang", "en"]) == 0


def test_every_old_line_reads_as_a_record_and_is_written_back_byte_for_byte() -> None:
    lines = _case_lines()
    assert len(lines) == 14
    for line in lines:
        record = decode_line(line)
        assert encode_line(record) == line
        assert CaseRecord.of(json.loads(line)) == record
        result = CaseResult.from_dict(json.loads(line))
        assert encode(result.to_record(record.row)) == line  # type: ignore[arg-type]


def test_the_old_lines_hold_every_field_a_line_can_hold() -> None:
    records = [decode_line(line) for line in _case_lines()]
    assert any(r.errors for r in records) and any(r.skipped for r in records)
    assert any(r.lets for r in records) and all(r.groups for r in records)
    assert any(r.review is not None and r.review.sampled for r in records)
    assert any(v is None for r in records for v in r.metrics.values())


def test_a_run_today_writes_the_journal_written_then(work: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _run(work, "run", "spec.eval", "cases.jsonl", "--results", "results.jsonl", "-o",
         "report.json", "--no-progress", "-q", monkeypatch=monkeypatch)
    assert (work / "results.jsonl").read_bytes() == (FIXTURE / "results.jsonl").read_bytes()
    assert _figures(work / "report.json") == _figures(FIXTURE / "report.json")


def test_a_run_resumed_from_the_old_journal_reports_what_it_reported(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = (FIXTURE / "results.jsonl").read_bytes().splitlines(keepends=True)
    (work / "results.jsonl").write_bytes(b"".join(old[:9]) + old[9][:40])  # a torn last line
    _run(work, "run", "spec.eval", "cases.jsonl", "--results", "results.jsonl", "-o",
         "report.json", "--resume", "--no-progress", "-q", monkeypatch=monkeypatch)
    assert (work / "results.jsonl").read_bytes() == (FIXTURE / "results.jsonl").read_bytes()
    report = _figures(work / "report.json")
    assert report == _figures(FIXTURE / "report.json")


def test_a_merge_of_the_old_journal_reports_what_the_run_reported(
        work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copyfile(FIXTURE / "results.jsonl", work / "results.jsonl")
    _run(work, "merge", "spec.eval", "results.jsonl", "-o", "merged.json", "-q",
         monkeypatch=monkeypatch)
    merged, ran = _figures(work / "merged.json"), _figures(FIXTURE / "report.json")
    for report in (merged, ran):  # a merge reads no case files: no dialogs, no origins
        report["worst_cases"] = [{k: v for k, v in c.items() if k not in ("dialog", "origin")}
                                 for c in report["worst_cases"]]
    assert merged == ran


def test_the_records_read_back_are_the_lines_written() -> None:
    for (_, record), line in zip(read_records(FIXTURE / "results.jsonl"), _case_lines(),
                                 strict=True):
        assert record == json.loads(line)


def test_the_review_sample_of_the_old_journal_is_its_drawn_lines() -> None:
    """`review` reads the old lines as records: the drawn cases are the lines whose plain
    JSON says `sampled`, highest priority first."""
    from evaldsl.review.sample import read_layout, sample_rows

    drawn = [json.loads(line) for line in _case_lines()]
    drawn = [r for r in drawn if r["review"]["sampled"]]
    assert drawn
    rows = sample_rows(FIXTURE / "results.jsonl", read_layout(FIXTURE / "spec.eval"))
    wanted = sorted(drawn, key=lambda r: (-r["review"]["priority"], r["id"]))
    assert [(r["id"], r["labels"]) for r in rows] == [(r["id"], r["labels"]) for r in wanted]
