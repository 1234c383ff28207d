"""One writer per journal: a second run on the same --results is refused before it writes."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from evaldsl.errors import JournalBusyError
from evaldsl.report.journal import Header, ResultsWriter
from evaldsl.report.journal_lock import lock
from evaldsl.report.journal_read import read_entries

HEADER = Header("repair", "ab" * 32)


class TestLock:
    def test_a_second_lock_is_refused_naming_the_holder(self, tmp_path: Path) -> None:
        path = tmp_path / "r.jsonl"
        with lock(path):
            with pytest.raises(JournalBusyError) as raised:
                lock(path)
        assert str(raised.value) == f"another run is writing `{path}` (pid {os.getpid()})"
        assert raised.value.hint == "wait for that run to end, or give this one another --results"

    def test_closing_the_journal_frees_it(self, tmp_path: Path) -> None:
        path = tmp_path / "r.jsonl"
        with ResultsWriter(path, HEADER) as writer:
            writer.write({"id": "a"})
        lock(path).close()

    def test_a_writer_does_not_truncate_a_journal_it_cannot_lock(self, tmp_path: Path) -> None:
        path = tmp_path / "r.jsonl"
        with ResultsWriter(path, HEADER) as writer:
            writer.write({"id": "a"})
            before = path.read_bytes()
            with pytest.raises(JournalBusyError):
                ResultsWriter(path, HEADER)
            assert path.read_bytes() == before


def test_a_run_on_a_locked_journal_is_refused_and_writes_nothing(
        tmp_path: Path, kit: Any, spec_file: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 5)
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"held by another run\n")
    with lock(results):
        done = kit.evaldsl("run", spec_file, cases, "--results", results, "--overwrite",
                           "-o", tmp_path / "report.json", timeout=60)
    assert done.returncode == 2, done.stderr
    assert (f"evaldsl run: error: another run is writing `{results}` (pid {os.getpid()})"
            in done.stderr)
    assert "hint: wait for that run to end" in done.stderr
    assert results.read_bytes() == b"held by another run\n"
    assert not (tmp_path / "report.json").exists()


def test_two_concurrent_runs_one_refused_and_the_journal_intact(
        tmp_path: Path, kit: Any, spec_file: Path) -> None:
    """Both start at once on one --results: one wins the lock and finishes, the other is
    refused with the winner's pid; the journal is the winner's, whole, without NUL bytes."""
    count = 20_000
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, count)
    results = tmp_path / "results.jsonl"
    runs = [kit.start_evaldsl("run", spec_file, cases, "--results", results, "--overwrite",
                              "-q", "-o", tmp_path / f"report{i}.json") for i in range(2)]
    errors = []
    try:
        for run in runs:
            errors.append(run.communicate(timeout=120)[1])
    finally:
        for run in runs:
            if run.poll() is None:
                run.kill()
                run.wait(timeout=30)
    codes = [run.returncode for run in runs]
    assert sorted(codes) == [0, 2], errors
    winner, loser = (0, 1) if codes[0] == 0 else (1, 0)
    assert (f"another run is writing `{results}` (pid {runs[winner].pid})"
            in errors[loser]), errors[loser]
    assert not (tmp_path / f"report{loser}.json").exists()
    data = results.read_bytes()
    assert b"\0" not in data
    assert json.loads(data.split(b"\n", 1)[0])["format"] == "evaldsl-results"
    assert len({e.row for e in read_entries(results)}) == count
    report = json.loads((tmp_path / f"report{winner}.json").read_text("utf-8"))
    assert report["cases"]["evaluated"] == count


def test_the_lock_goes_with_a_killed_run(tmp_path: Path, kit: Any, spec_file: Path) -> None:
    """`kill -9` leaves no stale lock: `--resume` takes the journal at once."""
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 20_000)
    results = tmp_path / "results.jsonl"
    run = kit.start_evaldsl("run", spec_file, cases, "--results", results)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and run.poll() is None:
            if results.exists() and results.stat().st_size > 5_000:
                break
            time.sleep(0.01)
    finally:
        run.kill()
        run.wait(timeout=30)
        if run.stderr is not None:
            run.stderr.close()
    lock(results).close()
    done = kit.evaldsl("run", spec_file, cases, "--results", results, "--resume", "-q",
                       timeout=120)
    assert done.returncode == 0, done.stderr


