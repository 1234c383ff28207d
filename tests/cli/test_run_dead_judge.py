"""`evaldsl run` against a judge that never answers: bounded, and said in the summary and the
report."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.dead_judges import SilentServer

CASES = 40


@pytest.fixture
def judged_spec(tmp_path: Path, kit: Any) -> tuple[Path, Path]:
    spec = tmp_path / "judged.eval"
    spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, CASES)
    return spec, cases


class TestSilentJudge:
    def test_the_breaker_stops_the_run_from_asking(self, tmp_path: Path, kit: Any,
                                                   judged_spec: tuple[Path, Path]) -> None:
        """Forty cases against a judge that accepts and never answers, 0.3 s a request: the
        breaker opens after five timeouts and the rest of the run asks nothing."""
        spec, cases = judged_spec
        report = tmp_path / "report.json"
        env = {"EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_JUDGE_TIMEOUT": "0.3",
               "EVALDSL_JUDGE_CONCURRENCY": "2"}
        with SilentServer() as silent:
            started = time.monotonic()
            done = kit.evaldsl("run", spec, cases, "--judge", silent.base_url, "--no-cache",
                               "-o", report, env=env, timeout=60)
            elapsed = time.monotonic() - started
            connections = silent.connections
        assert done.returncode == 4, done.stderr
        assert elapsed < 40, elapsed
        assert connections <= 8
        data = json.loads(report.read_text("utf-8"))
        reason = ("the judge did not answer 5 times in a row: the judge did not answer within "
                  "0.3 s; the remaining model checks were not asked")
        assert data["cost"]["stopped_asking"] == reason
        assert data["cost"]["not_asked"] >= CASES - 4
        assert data["cases"]["errored"] == CASES
        assert f"stopped asking: {reason}" in done.stdout


def journal_ids(path: Path) -> list[str]:
    """The case lines' ids (the header and a run's closing cost line have none)."""
    return [r["id"] for r in map(json.loads, path.read_text("utf-8").splitlines()[1:])
            if "id" in r]


class TestDeadline:
    def test_a_silent_judge_is_cut_off_at_the_deadline(self, tmp_path: Path, kit: Any,
                                                       judged_spec: tuple[Path, Path]) -> None:
        """With the breaker off and a 30 s timeout (three tries: 90 s a case, eight at a
        time), only the deadline ends the wait: every case errors with `deadline passed`,
        and the run ends soon after it (exit 4)."""
        spec, cases = judged_spec
        report = tmp_path / "report.json"
        env = {"EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_JUDGE_CIRCUIT_BREAKER": "0"}
        with SilentServer() as silent:
            started = time.monotonic()
            done = kit.evaldsl("run", spec, cases, "--judge", silent.base_url, "--no-cache",
                               "--deadline", "20s", "-o", report, env=env, timeout=180)
            elapsed = time.monotonic() - started
        data = json.loads(report.read_text("utf-8"))
        assert done.returncode == 4, (elapsed, data["run"], data["cost"], done.stderr)
        assert elapsed < 60, (elapsed, data["run"])
        assert data["cost"]["stopped_asking"] == "deadline passed"
        assert data["run"]["deadline_passed"] is True
        assert data["cases"]["errored"] == data["cases"]["evaluated"] > 0
        assert data["errors"] and all("deadline passed" in e["reason"] for e in data["errors"])
        assert "deadline passed" in done.stdout

    def test_the_deadline_keeps_what_finished_and_resume_judges_the_rest(
            self, tmp_path: Path, kit: Any, judge_server: Any) -> None:
        """A slow judge and a deadline well short of the run (400 cases at 0.3 s, two at a
        time, take 60 s): exit 5, the journal holds only
        finished cases (none cut by the deadline), and --resume ends with every case judged."""
        spec = tmp_path / "judged.eval"
        spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        kit.write_cases(cases, 400)
        judge_server.control(latency_ms=300)
        journal, report = tmp_path / "results.jsonl", tmp_path / "report.json"
        env = {"EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_JUDGE_CONCURRENCY": "2"}
        args = ("run", spec, cases, "--judge", judge_server.base_url, "--no-cache",
                "--results", journal, "-o", report)
        done = kit.evaldsl(*args, "--deadline", "15s", env=env, timeout=120)
        assert done.returncode == 5, done.stderr
        first = json.loads(report.read_text("utf-8"))
        assert first["run"]["deadline_passed"] is True
        assert 0 < first["cases"]["evaluated"] < 400
        assert "deadline passed" in done.stdout
        kept = journal_ids(journal)
        assert 0 < len(kept) <= first["cases"]["evaluated"]
        records = [json.loads(line) for line in journal.read_text("utf-8").splitlines()[1:]]
        assert not any(c.get("status") == "error" for r in records
                       for c in r.get("checks", {}).values())
        judge_server.control(latency_ms=0)
        again = kit.evaldsl(*args, "--resume", env=env, timeout=180)
        assert again.returncode in (0, 1), again.stderr
        final = json.loads(report.read_text("utf-8"))
        assert final["cases"]["evaluated"] == 400 and final["cases"]["errored"] == 0
        assert sorted(journal_ids(journal)) == [f"case-{i:05d}" for i in range(400)]
        assert final["run"]["deadline_passed"] is False

    @pytest.mark.parametrize("text", ["soon", "10", "-5m", "0s", "1.5x"])
    def test_a_deadline_that_is_no_duration_is_a_usage_error(
            self, tmp_path: Path, kit: Any, judged_spec: tuple[Path, Path], text: str) -> None:
        spec, cases = judged_spec
        done = kit.evaldsl("run", spec, cases, "--deadline", text)
        assert done.returncode == 2
        assert "--deadline" in done.stderr


class TestDurations:
    @pytest.mark.parametrize(("text", "seconds"), [("90s", 90), ("30m", 1800), ("2h", 7200),
                                                   ("1.5h", 5400), ("1h30m", 5400)])
    def test_units(self, text: str, seconds: float) -> None:
        from evaldsl.cli.flags import parse_duration

        assert parse_duration(text) == seconds

    def test_with_workers_it_is_refused(self, kit: Any, judged_spec: tuple[Path, Path]) -> None:
        spec, cases = judged_spec
        done = kit.evaldsl("run", spec, cases, "--deadline", "1m", "--workers", "2")
        assert done.returncode == 2
        assert "--deadline works with one process only" in done.stderr
