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
        assert elapsed < 20, elapsed
        assert connections <= 8
        data = json.loads(report.read_text("utf-8"))
        reason = ("the judge did not answer 5 times in a row: the judge did not answer within "
                  "0.3 s; the remaining model checks were not asked")
        assert data["cost"]["stopped_asking"] == reason
        assert data["cost"]["not_asked"] >= CASES - 4
        assert data["cases"]["errored"] == CASES
        assert f"stopped asking: {reason}" in done.stdout
