"""`evaldsl run` over a damaged answer cache: every verdict still comes from the judge,
the exit status is the one a run without the cache gives, and the report counts the
failures."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

CASES = 12


@pytest.fixture
def judged(tmp_path: Path, kit: Any, judge_server: Any) -> Any:
    """`run(cache_dir)`: the model spec over the same cases against the test server, the
    completed process and the report back."""
    spec = tmp_path / "judged.eval"
    spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, CASES)
    env = {"EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_JUDGE_BACKOFF": "0.01"}

    def run(cache_dir: Path | None, name: str = "report.json") -> tuple[Any, dict[str, Any]]:
        where = ("--cache-dir", cache_dir) if cache_dir is not None else ("--no-cache",)
        report = tmp_path / name
        done = kit.evaldsl("run", spec, cases, "--judge", judge_server.base_url, *where,
                           "-o", report, env=env, timeout=120)
        assert report.is_file(), done.stderr
        return done, json.loads(report.read_text("utf-8"))

    return run


def verdicts(report: dict[str, Any]) -> tuple[Any, Any]:
    return report["outcomes"], [(c["name"], c["passed"], c["failed"], c["errors"])
                                for c in report["checks"]]


def warm_cache(judged: Any, directory: Path) -> dict[str, Any]:
    """A real cache file with every answer of the run in it, closed."""
    done, report = judged(directory, "warm.json")
    assert done.returncode in (0, 1), done.stderr
    assert (directory / "answers.sqlite3").stat().st_size > 0
    return report


class TestDamagedCache:
    def test_random_bytes_for_a_cache_file(self, tmp_path: Path, judged: Any) -> None:
        """A file that is no database at all: one warning, every answer asked."""
        baseline_done, baseline = judged(None, "baseline.json")
        directory = tmp_path / "cache"
        directory.mkdir()
        (directory / "answers.sqlite3").write_bytes(os.urandom(64 * 1024))
        done, report = judged(directory)
        assert done.returncode == baseline_done.returncode, done.stderr
        assert verdicts(report) == verdicts(baseline)
        assert report["cases"]["errored"] == 0
        assert done.stderr.count("warning:") == 1 and "answer cache" in done.stderr
        assert report["cost"]["cache_read_failures"] == CASES
        assert report["cost"]["model_calls"] == CASES
        assert "answer cache: 12 reads failed" in done.stdout

    def test_a_truncated_database(self, tmp_path: Path, judged: Any) -> None:
        """Half of a real cache file: what cannot be read is asked again."""
        directory = tmp_path / "cache"
        warm = warm_cache(judged, directory)
        path = directory / "answers.sqlite3"
        size = path.stat().st_size
        with path.open("r+b") as f:
            f.truncate(size // 2)
        done, report = judged(directory)
        assert done.returncode in (0, 1), done.stderr
        assert verdicts(report) == verdicts(warm)
        assert report["cases"]["errored"] == 0
        failed = report["cost"]["cache_read_failures"] + report["cost"]["cache_write_failures"]
        assert failed > 0
        assert done.stderr.count("warning:") == 1

    def test_a_flipped_byte_in_the_key_index(self, tmp_path: Path, judged: Any) -> None:
        """A bit flip in the page that looks keys up: a malformed database, read as misses."""
        directory = tmp_path / "cache"
        warm = warm_cache(judged, directory)
        path = directory / "answers.sqlite3"
        page = _index_root_page(path)
        data = bytearray(path.read_bytes())
        data[(page - 1) * 4096] ^= 0xFF  # the b-tree page's type byte
        path.write_bytes(bytes(data))
        done, report = judged(directory)
        assert done.returncode in (0, 1), done.stderr
        assert verdicts(report) == verdicts(warm)
        assert report["cases"]["errored"] == 0
        assert report["cost"]["cache_read_failures"] == CASES
        assert done.stderr.count("warning:") == 1

    def test_a_cache_that_cannot_be_written(self, tmp_path: Path, judged: Any) -> None:
        """The cache directory is a file: no cache can be made there, the run judges on."""
        baseline_done, baseline = judged(None, "baseline.json")
        blocked = tmp_path / "not-a-directory"
        blocked.write_text("a file where the cache directory should be", encoding="utf-8")
        done, report = judged(blocked)
        assert done.returncode == baseline_done.returncode, done.stderr
        assert verdicts(report) == verdicts(baseline)
        assert report["cases"]["errored"] == 0
        assert report["cost"]["cache_write_failures"] == CASES
        assert done.stderr.count("warning:") == 1
        assert "writes failed" in done.stdout

    def test_a_healthy_cache_reports_no_failure(self, tmp_path: Path, judged: Any) -> None:
        directory = tmp_path / "cache"
        warm_cache(judged, directory)
        done, report = judged(directory)
        assert report["cost"]["cached"] == CASES
        assert (report["cost"]["cache_read_failures"], report["cost"]["cache_write_failures"]) \
            == (0, 0)
        assert "answer cache:" not in done.stdout and "warning:" not in done.stderr


def _index_root_page(path: Path) -> int:
    """The root page of the primary-key index, where every lookup starts."""
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT rootpage FROM sqlite_master WHERE type = 'index' "
                           "AND tbl_name = 'answers'").fetchone()
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()
    assert page_size == 4096
    return int(row[0])
