"""One writer per journal: a second run on the same --results is refused before it writes."""

from __future__ import annotations

import json
import os
import signal
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


def writing(run: Any, results: Path, timeout: float = 60) -> None:
    """Wait (bounded) until `run` holds the journal and has written a case past the header.

    The race is made real by this condition, not by a case count large enough to
    probably outlast the other process's start-up."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and run.poll() is None:
        if results.exists() and results.read_bytes().count(b"\n") >= 2:
            return
        time.sleep(0.005)
    raise AssertionError(f"the run wrote no case while running (exit {run.poll()})")


def test_two_concurrent_runs_one_refused_and_the_journal_intact(
        tmp_path: Path, kit: Any, spec_file: Path) -> None:
    """A second run on one --results starts while the first is writing it (the first is
    stopped mid-journal so the overlap is certain): it is refused with the writer's pid,
    and the journal is the writer's, whole, without NUL bytes."""
    count = 2_000
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, count)
    results = tmp_path / "results.jsonl"
    args = (spec_file, cases, "--results", results, "--overwrite", "-q")
    winner = kit.start_evaldsl("run", *args, "-o", tmp_path / "report0.json")
    try:
        writing(winner, results)
        os.kill(winner.pid, signal.SIGSTOP)
        assert winner.poll() is None, "the first run ended before the second could start"
        written = results.read_bytes()
        loser = kit.evaldsl("run", *args, "-o", tmp_path / "report1.json", timeout=60)
        assert winner.poll() is None
        assert results.read_bytes() == written
        os.kill(winner.pid, signal.SIGCONT)
        error = winner.communicate(timeout=120)[1]
    finally:
        if winner.poll() is None:
            os.kill(winner.pid, signal.SIGCONT)
            winner.kill()
            winner.wait(timeout=30)
    assert winner.returncode == 0, error
    assert loser.returncode == 2, loser.stderr
    assert (f"another run is writing `{results}` (pid {winner.pid})"
            in loser.stderr), loser.stderr
    assert not (tmp_path / "report1.json").exists()
    data = results.read_bytes()
    assert b"\0" not in data
    assert json.loads(data.split(b"\n", 1)[0])["format"] == "evaldsl-results"
    assert len({e.row for e in read_entries(results)}) == count
    report = json.loads((tmp_path / "report0.json").read_text("utf-8"))
    assert report["cases"]["evaluated"] == count


def test_the_lock_goes_with_a_killed_run(tmp_path: Path, kit: Any, spec_file: Path) -> None:
    """`kill -9` mid-journal leaves no stale lock: `--resume` takes the journal at once."""
    count = 2_000
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, count)
    results = tmp_path / "results.jsonl"
    run = kit.start_evaldsl("run", spec_file, cases, "--results", results)
    try:
        writing(run, results)
    finally:
        run.kill()
        run.wait(timeout=30)
        if run.stderr is not None:
            run.stderr.close()
    assert run.returncode == -signal.SIGKILL, "the run ended before it was killed"
    assert len({e.row for e in read_entries(results)}) < count
    lock(results).close()
    done = kit.evaldsl("run", spec_file, cases, "--results", results, "--resume", "-q",
                       timeout=120)
    assert done.returncode == 0, done.stderr
    assert len({e.row for e in read_entries(results)}) == count
