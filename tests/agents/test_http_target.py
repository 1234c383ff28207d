"""`evaldsl run --target` against a real HTTP agent: turns, latency, failures, secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from tests.agents.conftest import (
    SECRET,
    env,
    http_target,
    read_jsonl,
    write_rows,
    write_scenarios,
)

REPO = Path(__file__).resolve().parents[2]


def drive(kit: Any, tmp_path: Path, spec: Path, scenarios: Path, *extra: str) -> Any:
    out = tmp_path / "out"
    return kit.evaldsl("run", spec, scenarios, "--target", "agent", "--config",
                       tmp_path / "evaldsl.toml", "--transcripts", out / "transcripts.jsonl",
                       "--results", out / "results.jsonl", "-o", out / "report.json",
                       "--md", out / "summary.md", *extra, env=env())


class TestScriptedTurns:
    def test_each_turn_is_sent_and_recorded_with_its_latency(self, agent: Any, kit: Any,
                                                             tmp_path: Path, spec: Path) -> None:
        agent.control(latency_ms=40)
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        write_scenarios(scenarios, 3, turns=3)
        done = drive(kit, tmp_path, spec, scenarios)
        assert done.returncode == 0, done.stderr
        saved = sorted(read_jsonl(tmp_path / "out" / "transcripts.jsonl"), key=lambda t: t["id"])
        assert [t["id"] for t in saved] == ["s-000", "s-001", "s-002"]
        first = saved[0]
        assert first["intent"] == "booking" and first["row"] == f"{scenarios}:1"
        assert [m["role"] for m in first["messages"]] == ["user", "assistant"] * 3
        assert [m["content"] for m in first["messages"][1::2]] == [
            "<turn 1> 我家空调坏了 0.0", "<turn 2> 我家空调坏了 0.1", "<turn 3> 我家空调坏了 0.2"]
        assert all(m["latency_ms"] >= 40 for m in first["messages"][1::2])
        assert agent.stats()["sessions"] == {"s-000": 1, "s-001": 1, "s-002": 1}

    def test_the_report_counts_the_agent_and_judges_each_dialog(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        agent.control(latency_ms=20)
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        write_scenarios(scenarios, 4, turns=2)
        done = drive(kit, tmp_path, spec, scenarios)
        assert done.returncode == 0, done.stderr
        report = json.loads((tmp_path / "out" / "report.json").read_text("utf-8"))
        schema = json.loads((REPO / "docs" / "report.schema.json").read_text("utf-8"))
        jsonschema.validate(report, schema)
        target = report["target"]
        assert (target["name"], target["kind"], target["conversations"], target["errors"],
                target["replies"]) == ("agent", "http", 4, 0, 8)
        assert 20 <= target["latency_ms"]["p50"] <= target["latency_ms"]["p99"]
        assert report["outcomes"][0]["counts"]["good"] == 4
        assert "agent agent: 4 conversations · 0 errors · 8 replies · p50" in done.stdout
        assert "**agent `agent`**: 4 conversations" in (
            tmp_path / "out" / "summary.md").read_text("utf-8")

    def test_saved_transcripts_are_judged_offline_to_the_same_report(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        write_scenarios(scenarios, 5)
        assert drive(kit, tmp_path, spec, scenarios).returncode == 0
        requests = agent.stats()["requests"]
        offline = kit.evaldsl("run", spec, tmp_path / "out" / "transcripts.jsonl",
                              "-o", tmp_path / "offline.json")
        assert offline.returncode == 0, offline.stderr
        assert agent.stats()["requests"] == requests
        driven = json.loads((tmp_path / "out" / "report.json").read_text("utf-8"))
        judged = json.loads((tmp_path / "offline.json").read_text("utf-8"))
        for report in (driven, judged):
            report.pop("run"), report.pop("target", None), report["spec"].pop("path")
            for case in report["worst_cases"]:
                case.pop("row", None)
        assert judged["outcomes"] == driven["outcomes"]
        assert judged["metrics"] == driven["metrics"]
        assert judged["checks"] == driven["checks"]


class TestFailures:
    FAULTS = {"s-001": {"kind": "500", "turn": 2}, "s-002": {"kind": "timeout", "turn": 1},
              "s-003": {"kind": "drop", "turn": 2}, "s-004": {"kind": "malformed", "turn": 1}}

    def failed_run(self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> Any:
        agent.control(faults=self.FAULTS)
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port, timeout=1),
                                               encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        write_scenarios(scenarios, 6)
        return drive(kit, tmp_path, spec, scenarios)

    def test_a_failed_turn_makes_the_case_an_error_with_the_reason(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        done = self.failed_run(agent, kit, tmp_path, spec)
        assert done.returncode == 0, done.stderr
        journal = {r["id"]: r for r in read_jsonl(tmp_path / "out" / "results.jsonl")[1:]}
        reasons = {case: record["errors"].get("outcome") for case, record in journal.items()}
        assert reasons["s-000"] is None and reasons["s-005"] is None
        assert reasons["s-001"].startswith(
            "the agent failed at turn 2 of 2: the agent answered HTTP 500: ")
        assert reasons["s-002"] == ("the agent failed at turn 1 of 2: the agent did not "
                                    "answer within 1 s")
        assert reasons["s-003"] == ("the agent failed at turn 2 of 2: the connection to the "
                                    "agent failed: ClientPayloadError")
        assert reasons["s-004"] == ("the agent failed at turn 1 of 2: the agent's answer is "
                                    "malformed: nothing at `reply`")
        assert all(journal[c]["labels"] == {"outcome": "error"} for c in self.FAULTS)
        report = json.loads((tmp_path / "out" / "report.json").read_text("utf-8"))
        assert report["target"]["errors"] == 4 and report["cases"]["errored"] == 4

    def test_a_failed_conversation_is_never_saved_as_a_transcript(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        self.failed_run(agent, kit, tmp_path, spec)
        saved = read_jsonl(tmp_path / "out" / "transcripts.jsonl")
        assert sorted(t["id"] for t in saved) == ["s-000", "s-005"]

    def test_no_header_secret_reaches_any_output(self, agent: Any, kit: Any, tmp_path: Path,
                                                 spec: Path) -> None:
        done = self.failed_run(agent, kit, tmp_path, spec)
        assert agent.stats()["authorization"] == [f"Bearer {SECRET}"]
        outputs = [done.stdout, done.stderr,
                   *(p.read_text("utf-8") for p in (tmp_path / "out").iterdir())]
        assert all(SECRET not in text for text in outputs)
        assert any("upstream refused ***" in text for text in outputs)


class TestScenarioRows:
    def test_a_row_whose_messages_are_not_texts_is_a_bad_row(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        write_rows(scenarios, [{"id": "a", "intent": "x", "messages": ["hi", "there"]},
                               {"id": "b", "intent": "x", "messages": [{"role": "user"}]}])
        done = drive(kit, tmp_path, spec, scenarios, "--on-bad-row", "skip")
        assert done.returncode == 0, done.stderr
        assert (f"skipped: {scenarios}:2: field `messages`: a scenario's `messages` is a "
                "non-empty list of the user's messages, as texts") in done.stderr


class TestRefusedSettings:
    def test_a_rejected_header_stops_the_run(self, agent: Any, kit: Any, tmp_path: Path,
                                             spec: Path) -> None:
        agent.control(faults={"s-000": {"kind": "401", "turn": 1}})
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        write_scenarios(scenarios, 1)
        done = drive(kit, tmp_path, spec, scenarios)
        assert done.returncode == 2
        assert "the agent answered HTTP 401: " in done.stderr and SECRET not in done.stderr


class TestSelection:
    def test_where_and_sample_select_scenarios(self, agent: Any, kit: Any, tmp_path: Path,
                                               spec: Path) -> None:
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        rows = write_scenarios(scenarios, 6)
        for row in rows[:2]:
            row["intent"] = "complaint"
        write_rows(scenarios, rows)
        done = drive(kit, tmp_path, spec, scenarios, "--where", 'case.intent == "booking"',
                     "--sample", "3", "--seed", "1")
        assert done.returncode == 0, done.stderr
        sent = agent.stats()["sessions"]
        assert len(sent) == 3 and not {"s-000", "s-001"} & set(sent)


class TestCollect:
    def test_collect_resumed_sends_only_what_the_transcripts_lack(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        rows = write_scenarios(scenarios, 3)
        transcripts = tmp_path / "t.jsonl"
        collect = ["collect", spec, scenarios, "--target", "agent", "--config",
                   tmp_path / "evaldsl.toml", "--transcripts", transcripts]
        assert kit.evaldsl(*collect, env=env()).returncode == 0
        write_scenarios(scenarios, 5)
        again = kit.evaldsl(*collect, "--resume", env=env())
        assert again.returncode == 0, again.stderr
        assert agent.stats()["sessions"] == {f"s-{i:03d}": 1 for i in range(5)}
        assert [t["id"] for t in read_jsonl(transcripts)][:3] == [r["id"] for r in rows]
        assert "agent agent: 5 conversations · 0 errors · 10 replies" in again.stdout

    def test_collect_exits_4_when_every_conversation_failed(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        agent.control(faults={"s-000": {"kind": "malformed"}})
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        write_scenarios(scenarios, 1)
        done = kit.evaldsl("collect", spec, scenarios, "--target", "agent", "--config",
                           tmp_path / "evaldsl.toml", "--transcripts", tmp_path / "t.jsonl",
                           env=env())
        assert done.returncode == 4
        assert "error: s-000: the agent failed at turn 1 of 2" in done.stderr
        assert (tmp_path / "t.jsonl").read_text("utf-8") == ""


class TestBreaker:
    def test_an_agent_failing_alike_in_a_row_is_not_sent_the_rest(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        agent.control(faults={f"s-{i:03d}": {"kind": "drop"} for i in range(6)})
        (tmp_path / "evaldsl.toml").write_text(
            http_target(agent.port, concurrency=1, circuit_breaker=2), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        write_scenarios(scenarios, 6)
        done = drive(kit, tmp_path, spec, scenarios, "--concurrency", "1")
        assert done.returncode == 4
        assert agent.stats()["requests"] == 2
        journal = read_jsonl(tmp_path / "out" / "results.jsonl")[1:]
        assert journal[-1]["errors"]["outcome"] == (
            "the agent failed at turn 1 of 2: the agent did not answer 2 times in a row: the "
            "connection to the agent failed: ClientPayloadError; the remaining conversations "
            "were not sent")


class TestRecorded:
    def test_tool_calls_the_agent_reports_are_recorded_in_the_chat_format(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        write_rows(scenarios, [{"id": "a", "intent": "x", "messages": ["CALL 张三"]}])
        assert drive(kit, tmp_path, spec, scenarios).returncode in (0, 1)
        (saved,) = read_jsonl(tmp_path / "out" / "transcripts.jsonl")
        (call,) = saved["messages"][1]["tool_calls"]
        assert call["type"] == "function" and call["function"]["name"] == "lookup"
        assert json.loads(call["function"]["arguments"]) == {"q": "CALL 张三"}

    def test_an_agent_repeating_its_header_is_recorded_masked(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        write_rows(scenarios, [{"id": "a", "intent": "x", "messages": ["ECHO", "ECHO"]}])
        done = drive(kit, tmp_path, spec, scenarios)
        (saved,) = read_jsonl(tmp_path / "out" / "transcripts.jsonl")
        assert saved["messages"][1]["content"] == "<turn 1> ECHO (you sent ***)"
        outputs = [done.stdout, done.stderr,
                   *(p.read_text("utf-8") for p in (tmp_path / "out").iterdir())]
        assert all(SECRET not in text for text in outputs)

    def test_a_message_spelling_a_placeholder_is_sent_as_written(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        scenarios = tmp_path / "scenarios.jsonl"
        write_rows(scenarios, [{"id": "a", "intent": "x", "messages": ["my {session} id"]}])
        assert drive(kit, tmp_path, spec, scenarios).returncode in (0, 1)
        (saved,) = read_jsonl(tmp_path / "out" / "transcripts.jsonl")
        assert saved["messages"][1]["content"] == "<turn 1> my {session} id"
