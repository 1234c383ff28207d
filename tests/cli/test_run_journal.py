"""`evaldsl run --results`: an existing journal is never truncated silently; a run that is
stopped says how to continue it, and a resumed one says what it took from the journal."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def journaled(tmp_path: Path, kit: Any, spec_file: Path) -> tuple[Path, Path]:
    """Cases and the journal of a finished run over them."""
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 12)
    results = tmp_path / "results.jsonl"
    done = kit.evaldsl("run", spec_file, cases, "--results", results, "-q")
    assert done.returncode == 0, done.stderr
    return cases, results


class TestExistingJournal:
    def test_a_run_over_an_existing_journal_refuses_with_advice(
            self, kit: Any, spec_file: Path, journaled: tuple[Path, Path]) -> None:
        cases, results = journaled
        before = results.read_bytes()
        done = kit.evaldsl("run", spec_file, cases, "--results", results, "-q")
        assert done.returncode == 2
        assert f"`{results}` already holds the results of a run" in done.stderr
        assert "hint: add --resume to continue it, or --overwrite to start over" in done.stderr
        assert results.read_bytes() == before

    def test_overwrite_replaces_the_journal(self, kit: Any, spec_file: Path,
                                            journaled: tuple[Path, Path]) -> None:
        cases, results = journaled
        results.write_text(results.read_text("utf-8") + '{"id": "stale"}\n', encoding="utf-8")
        done = kit.evaldsl("run", spec_file, cases, "--results", results, "--overwrite", "-q")
        assert done.returncode == 0, done.stderr
        assert "stale" not in results.read_text("utf-8")
        assert results.read_text("utf-8").count("\n") == 13

    def test_resume_and_overwrite_together_are_a_usage_error(
            self, kit: Any, spec_file: Path, journaled: tuple[Path, Path]) -> None:
        cases, results = journaled
        done = kit.evaldsl("run", spec_file, cases, "--results", results, "--resume",
                           "--overwrite")
        assert done.returncode == 2 and "not allowed with argument" in done.stderr

    def test_an_empty_journal_file_may_be_written(self, tmp_path: Path, kit: Any,
                                                  spec_file: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 3)
        results = tmp_path / "results.jsonl"
        results.touch()
        assert kit.evaldsl("run", spec_file, cases, "--results", results, "-q").returncode == 0


class TestResumeNotices:
    def test_a_resumed_run_says_what_it_took_from_the_journal(
            self, kit: Any, spec_file: Path, journaled: tuple[Path, Path]) -> None:
        cases, results = journaled
        kit.write_cases(cases, 20)
        done = kit.evaldsl("run", spec_file, cases, "--results", results, "--resume", "-q")
        assert done.returncode == 0, done.stderr
        assert f"resumed: 12 cases from {results}, 8 to run" in done.stderr

    def test_ctrl_c_suggests_resume(self, tmp_path: Path, kit: Any, spec_file: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 200_000)
        results = tmp_path / "results.jsonl"
        process = kit.start_evaldsl("run", spec_file, cases, "--results", results, "-q")
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and process.poll() is None:
                if results.exists() and results.stat().st_size > 10_000:
                    break
                time.sleep(0.01)
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)
        assert process.returncode == 130, stderr
        assert "evaldsl: interrupted" in stderr
        assert f"hint: the results so far are in {results}; add --resume to continue" in stderr
        assert "Traceback" not in stderr

    def test_ctrl_c_without_a_journal_suggests_nothing(self, tmp_path: Path, kit: Any,
                                                       spec_file: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 200_000)
        process = kit.start_evaldsl("run", spec_file, cases, "-q")
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and process.poll() is None:
                if read_so_far(process.pid, cases) > 1 << 20:  # the run is into the cases
                    break
                time.sleep(0.01)
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)
        assert process.returncode == 130, stderr
        assert "--resume" not in stderr


def read_so_far(pid: int, path: Path) -> int:
    """How far process `pid` has read the file `path` it has open (Linux); 0 if it has not."""
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            if fd.readlink() == path:
                info = Path(f"/proc/{pid}/fdinfo/{fd.name}").read_text()
                return int(info.split("pos:")[1].split()[0])
    except OSError:  # the process or the descriptor is gone
        pass
    return 0


def _edit_line(results: Path, number: int, edit: Any) -> None:
    """Replace the journal's line `number` (1-based) with `edit(record)`, as JSON."""
    lines = results.read_text("utf-8").splitlines(keepends=True)
    lines[number - 1] = json.dumps(edit(json.loads(lines[number - 1])), ensure_ascii=False) + "\n"
    results.write_text("".join(lines), encoding="utf-8")


WRONG_TYPES = {
    "a check's passed as text": lambda r: {**r, "checks": {
        **r["checks"], "greets": {**r["checks"]["greets"], "passed": "yes"}}},
    "checks not an object": lambda r: {**r, "checks": ["greets"]},
    "labels not text": lambda r: {**r, "labels": {"outcome": 3}},
    "a metric input not a list": lambda r: {**r, "metrics": {**r["metrics"],
                                                             "avg_short": "0.5"}},
    "a check the spec lacks": lambda r: {**r, "checks": {**r["checks"], "nope": {
        "status": "passed", "passed": True, "score": 1.0, "reason": ""}}},
    "no row": lambda r: {k: v for k, v in r.items() if k != "row"},
}


class TestDamagedJournal:
    @pytest.mark.parametrize("edit", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
    def test_a_line_of_the_wrong_shape_is_a_data_error_naming_it(
            self, kit: Any, spec_file: Path, journaled: tuple[Path, Path], edit: Any) -> None:
        cases, results = journaled
        _edit_line(results, 4, edit)
        done = kit.evaldsl("run", spec_file, cases, "--results", results, "--resume", "-q")
        assert done.returncode == 3, done.stderr
        assert f"evaldsl run: error: {results}:4: " in done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr

    def test_a_line_for_a_row_not_in_the_input_is_a_data_error(
            self, kit: Any, spec_file: Path, journaled: tuple[Path, Path]) -> None:
        cases, results = journaled
        kit.write_cases(cases, 10)
        done = kit.evaldsl("run", spec_file, cases, "--results", results, "--resume", "-q")
        assert done.returncode == 3, done.stderr
        assert (f"{results}:12: the result of `{cases}:11` (case `case-00010`), a row not "
                "in the input") in done.stderr

    def test_a_journal_of_other_case_files_is_a_data_error(
            self, tmp_path: Path, kit: Any, spec_file: Path,
            journaled: tuple[Path, Path]) -> None:
        cases, results = journaled
        other = tmp_path / "other.jsonl"
        kit.write_cases(other, 12)
        done = kit.evaldsl("run", spec_file, other, "--results", results, "--resume", "-q")
        assert done.returncode == 3, done.stderr
        assert f"{results}:1: the journal of a run over `{cases}`, not `{other}`" in done.stderr

    def test_an_old_journal_is_refused_with_advice(
            self, kit: Any, spec_file: Path, journaled: tuple[Path, Path]) -> None:
        cases, results = journaled
        _edit_line(results, 1, lambda h: {**h, "version": 1})
        done = kit.evaldsl("run", spec_file, cases, "--results", results, "--resume", "-q")
        assert done.returncode == 2, done.stderr
        assert f"`{results}` is a version 1 journal; this evaldsl reads version 2" in done.stderr
        assert "hint: run the cases again with --overwrite" in done.stderr


class TestJournalThatIsNotAFile:
    """A journal is a regular file: a device or a FIFO at `--results` is refused, named,
    before anything is judged (as reports are: docs/running.md)."""

    @pytest.mark.parametrize("make", ["device", "fifo"])
    def test_refused_with_its_name(self, tmp_path: Path, kit: Any, spec_file: Path,
                                   make: str) -> None:
        import os

        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 3)
        if make == "device":
            target = Path("/dev/full")
        else:
            target = tmp_path / "journal.fifo"
            os.mkfifo(target)
        done = kit.evaldsl("run", spec_file, cases, "--results", target, "-q")
        assert done.returncode == 3, done.stderr
        assert f"`{target}`" in done.stderr and "not a regular file" in done.stderr
        assert "Invalid argument" not in done.stderr
