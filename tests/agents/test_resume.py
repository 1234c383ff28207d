"""A driven run killed with SIGKILL, then `--resume`d: nothing saved is sent again, and the
report is the uninterrupted run's."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import env, http_target, read_jsonl, write_scenarios

SPEC = """\
spec "driven, timeless"
case { intent: text }
check second_turn = keyword(scope: replies, any: ["<turn 2>"])
check mentions_one = keyword(scope: replies, any: ["1.1", "2.1", "3.1"])
outcome {
  good if second_turn and mentions_one
  fair if second_turn
  bad otherwise
}
metric good_rate = rate(good)
"""
COUNT = 40


def lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def args(tmp_path: Path, out: Path) -> list[str | Path]:
    return ["run", tmp_path / "timeless.eval", tmp_path / "scenarios.jsonl", "--target",
            "agent", "--config", tmp_path / "evaldsl.toml", "--transcripts",
            out / "transcripts.jsonl", "--results", out / "results.jsonl",
            "-o", out / "report.json"]


def timeless(report: dict[str, Any]) -> dict[str, Any]:
    """A report without what is measured rather than judged: the process, the latencies."""
    out = {k: v for k, v in report.items() if k != "run"}
    out["target"] = {k: v for k, v in report["target"].items() if k != "latency_ms"}
    for case in out["worst_cases"]:
        for message in case.get("dialog", []):
            message.pop("latency_ms", None)
    return out


@pytest.fixture
def setup(agent: Any, tmp_path: Path) -> Path:
    agent.control(latency_ms=40)
    (tmp_path / "timeless.eval").write_text(SPEC, encoding="utf-8")
    (tmp_path / "evaldsl.toml").write_text(http_target(agent.port, concurrency=4),
                                           encoding="utf-8")
    write_scenarios(tmp_path / "scenarios.jsonl", COUNT)
    return tmp_path


class TestKilledAndResumed:
    def test_each_saved_conversation_is_sent_once_and_the_report_is_whole(
            self, agent: Any, kit: Any, setup: Path) -> None:
        whole = setup / "whole"
        done = kit.evaldsl(*args(setup, whole), env=env())
        assert done.returncode == 0, done.stderr
        agent.reset()
        agent.control(latency_ms=40)
        out = setup / "killed"
        out.mkdir()
        process = kit.start_evaldsl(*args(setup, out), env=env())
        stop = time.monotonic() + 120
        while time.monotonic() < stop and process.poll() is None and lines(
                out / "transcripts.jsonl") < 12:
            time.sleep(0.005)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        process.stderr.close()
        assert process.returncode == -signal.SIGKILL, "the run ended before it could be killed"
        written = (out / "transcripts.jsonl").read_bytes()
        complete = written[:written.rfind(b"\n") + 1]  # a torn last line is not saved
        saved = {json.loads(line)["id"] for line in complete.splitlines()}
        assert len(saved) >= 12
        resumed = kit.evaldsl(*args(setup, out), "--resume", env=env())
        assert resumed.returncode == 0, resumed.stderr
        sessions = agent.stats()["sessions"]
        assert sorted(sessions) == sorted(f"s-{i:03d}" for i in range(COUNT))
        assert all(sessions[case] == 1 for case in saved)
        assert sum(sessions.values()) <= COUNT + 4  # at most the 4 in flight were started over
        final = json.loads((out / "report.json").read_text("utf-8"))
        expected = json.loads((whole / "report.json").read_text("utf-8"))
        assert timeless(final) == timeless(expected)
        assert final["target"]["conversations"] == COUNT
        assert len(read_jsonl(out / "transcripts.jsonl")) == COUNT

    def test_a_saved_transcript_the_journal_lacks_is_judged_not_sent(
            self, agent: Any, kit: Any, setup: Path) -> None:
        out = setup / "out"
        assert kit.evaldsl(*args(setup, out), env=env()).returncode == 0
        before = json.loads((out / "report.json").read_text("utf-8"))
        requests = agent.stats()["requests"]
        (out / "results.jsonl").unlink()  # killed after the transcripts, before any journal line
        again = kit.evaldsl(*args(setup, out), "--resume", env=env())
        assert again.returncode == 0, again.stderr
        assert agent.stats()["requests"] == requests
        after = json.loads((out / "report.json").read_text("utf-8"))
        assert timeless(after) == timeless(before)
        assert after["target"]["latency_ms"] == before["target"]["latency_ms"]

    def test_without_resume_a_transcripts_file_with_conversations_is_refused(
            self, agent: Any, kit: Any, setup: Path) -> None:
        out = setup / "out"
        assert kit.evaldsl(*args(setup, out), env=env()).returncode == 0
        (out / "results.jsonl").unlink()
        again = kit.evaldsl(*args(setup, out), env=env())
        assert again.returncode == 2
        assert f"`{out / 'transcripts.jsonl'}` already holds transcripts" in again.stderr
