"""A one-process run on a full disk: the error names the file that could not be written.

The disk is real: a tmpfs of a few KiB mounted for the test (so it needs the right to
mount; elsewhere the test is skipped), filled by the run itself."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 32 KiB filesystem of its own, unmounted afterwards."""
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=32k", "tmpfs", str(mount)],
                          capture_output=True, text=True, timeout=30)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True, timeout=30)


class TestDiskFull:
    def test_a_journal_on_a_full_disk_is_named(self, kit: Any, tmp_path: Path,
                                               full_disk: Path) -> None:
        spec = tmp_path / "spec.eval"
        spec.write_text(kit.SPEC, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 1000)
        results = full_disk / "results.jsonl"
        done = kit.evaldsl("run", spec, cases, "--results", results,
                           "-o", tmp_path / "report.json", "-q")
        assert done.returncode == 3, done.stderr
        assert done.stderr.strip().splitlines()[-1] == (
            f"evaldsl run: error: `{results}`: No space left on device")

    def test_a_transcripts_file_or_report_on_a_full_disk_is_named(
            self, kit: Any, tmp_path: Path, full_disk: Path) -> None:
        spec = tmp_path / "spec.eval"
        spec.write_text(kit.SPEC, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 1000)
        report = full_disk / "report.html"
        done = kit.evaldsl("run", spec, cases, "--results", tmp_path / "results.jsonl",
                           "--html", report, "-q")
        assert done.returncode == 3, done.stderr
        assert f"`{report}`: No space left on device" in done.stderr
