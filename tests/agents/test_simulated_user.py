"""Simulated users: the test model server plays the user, the agent server the agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from tests.agents.conftest import env, http_target, read_jsonl, write_rows

FACTS = {"姓名": "张三"}
SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "report.schema.json")
                    .read_text("utf-8"))


def brief(**extra: Any) -> dict[str, Any]:
    return {"goal": "预约空调维修", "persona": "上班族", "language": "zh", "max_turns": 4,
            "min_turns": 2, "stop": "客服确认了预约", "facts": FACTS, **extra}


def settings(tmp_path: Path, agent: Any, simulator: Any) -> Path:
    path = tmp_path / "evaldsl.toml"
    path.write_text(f'[judge]\nbase_url = "{simulator.base_url}"\n' + http_target(agent.port),
                    encoding="utf-8")
    return path


def drive(kit: Any, tmp_path: Path, spec: Path, agent: Any, simulator: Any,
          rows: list[dict[str, Any]], *extra: str) -> Any:
    scenarios = tmp_path / "scenarios.jsonl"
    write_rows(scenarios, rows)
    return kit.evaldsl("run", spec, scenarios, "--target", "agent", "--config",
                       settings(tmp_path, agent, simulator), "--transcripts",
                       tmp_path / "t.jsonl", "--overwrite", "--results",
                       tmp_path / "results.jsonl", "-o", tmp_path / "report.json",
                       "--simulator", "user-model", "--cache-dir", tmp_path / "cache", *extra,
                       env=env())


def play(simulator: Any, contains: str, **answer: Any) -> list[dict[str, Any]]:
    return [{"contains": contains, "key": key, "value": value} for key, value in answer.items()]


GOOD = {"id": "good", "intent": "booking", "messages": ["空调坏了 good"], "user": brief()}


class TestASimulatedConversation:
    def script(self, judge_server: Any) -> None:
        judge_server.control(script=[*play(judge_server, "good", message="我叫张三", done=False),
                                     *play(judge_server, "<turn 3>", done=True)])

    def test_the_simulator_speaks_after_the_scripted_turns_until_it_is_done(
            self, judge_server: Any, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        self.script(judge_server)
        done = drive(kit, tmp_path, spec, agent, judge_server, [GOOD], "--no-cache")
        assert done.returncode == 0, done.stderr
        (saved,) = read_jsonl(tmp_path / "t.jsonl")
        said = [m["content"] for m in saved["messages"] if m["role"] == "user"]
        assert said == ["空调坏了 good", "我叫张三", "我叫张三"]
        assert all(m["latency_ms"] > 0 for m in saved["messages"] if m["role"] == "assistant")
        assert judge_server.stats()["models"] == ["user-model"] * 3
        target = json.loads((tmp_path / "report.json").read_text("utf-8"))["target"]
        assert target["errors"] == 0 and target["conversations"] == 1
        assert target["simulator"] == {"conversations": 1, "failures": 0, "rate": 0.0,
                                       "by_kind": {"early": 0, "off_goal": 0, "format": 0,
                                                   "unavailable": 0}}

    def test_a_seeded_run_sends_the_same_seeds_and_another_seed_others(
            self, judge_server: Any, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        seeds = []
        for seed in ("7", "7", "8"):
            judge_server.reset()
            self.script(judge_server)
            done = drive(kit, tmp_path, spec, agent, judge_server, [GOOD], "--no-cache",
                         "--seed", seed)
            assert done.returncode == 0, done.stderr
            seeds.append(judge_server.stats()["seeds"])
        assert seeds[0] == seeds[1] and len(set(seeds[0])) == 3
        assert not set(seeds[0]) & set(seeds[2])

    def test_the_simulated_turns_are_cached_like_judge_answers(
            self, judge_server: Any, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        self.script(judge_server)
        first = drive(kit, tmp_path, spec, agent, judge_server, [GOOD])
        assert first.returncode == 0, first.stderr
        judge_server.reset()
        again = drive(kit, tmp_path, spec, agent, judge_server, [GOOD])
        assert again.returncode == 0, again.stderr
        assert judge_server.stats()["chat"] == 0
        said = [m["content"] for m in read_jsonl(tmp_path / "t.jsonl")[0]["messages"]
                if m["role"] == "user"]
        assert said == ["空调坏了 good", "我叫张三", "我叫张三"]


class TestSimulatorFailures:
    ROWS = [
        {"id": "early", "intent": "booking", "messages": ["空调 early"], "user": brief()},
        {"id": "off", "intent": "booking", "messages": ["空调 offgoal"],
         "user": brief(max_turns=2)},
        {"id": "format", "intent": "booking", "messages": ["空调 format"], "user": brief()},
        {"id": "notjson", "intent": "booking", "messages": ["空调 notjson"], "user": brief()},
    ]

    def test_each_failure_is_the_simulators_and_never_the_agents(
            self, judge_server: Any, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        judge_server.control(script=[
            *play(judge_server, "early", done=True),
            *play(judge_server, "offgoal", message="好的，谢谢", done=False),
            *play(judge_server, "format", message="hello there", done=False),
            {"contains": "notjson", "raw": "I am not JSON"}])
        done = drive(kit, tmp_path, spec, agent, judge_server, self.ROWS, "--no-cache",
                     "--html", tmp_path / "report.html", "--md", tmp_path / "report.md")
        assert done.returncode == 4, done.stderr
        report = json.loads((tmp_path / "report.json").read_text("utf-8"))
        jsonschema.validate(report, SCHEMA)
        target = report["target"]
        assert target["errors"] == 0 and target["conversations"] == 4
        assert target["simulator"]["failures"] == 4
        assert target["simulator"]["by_kind"] == {"early": 1, "off_goal": 1, "format": 2,
                                                  "unavailable": 0}
        assert not (tmp_path / "t.jsonl").read_text("utf-8")
        notes = {r["id"]: r["target"] for r in read_jsonl(tmp_path / "results.jsonl")
                 if "id" in r}
        assert all(n["error"] is None for n in notes.values())
        assert notes["early"]["simulator"]["reason"] == (
            "the simulated user ended too early after turn 1: it ended after 1 of at least 2 "
            "replies")
        assert notes["off"]["simulator"]["reason"] == (
            "the simulated user left its goal after turn 2: it never gave `姓名`")
        assert notes["format"]["simulator"]["failure"] == "format"
        assert ("simulated user: 4 conversations · 4 failures (100.0%): 1 ended too early · "
                "1 left its goal · 2 broke its format · 0 did not answer") in done.stdout
        assert "4 failures (100.0%): 1 ended too early" in (tmp_path / "report.md").read_text(
            "utf-8")
        page = (tmp_path / "report.html").read_text("utf-8")
        assert '<table id="simulator-table">' in page and "4 / 4 (100.0%)" in page
        assert "<td>agent errors</td><td class=\"num\">0</td>" in page


class TestScenarioRows:
    def test_a_bad_brief_is_a_bad_row_naming_file_and_line(
            self, judge_server: Any, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        rows = [GOOD, {"id": "bad", "intent": "booking", "user": {"goal": "x",
                                                                   "language": "fr"}}]
        done = drive(kit, tmp_path, spec, agent, judge_server, rows, "--no-cache")
        assert "scenarios.jsonl:2" in done.stderr and "user.language" in done.stderr

    def test_without_a_simulator_a_simulated_scenario_stops_the_run(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        scenarios = tmp_path / "scenarios.jsonl"
        write_rows(scenarios, [GOOD])
        (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
        done = kit.evaldsl("run", spec, scenarios, "--target", "agent", "--config",
                           tmp_path / "evaldsl.toml", env=env())
        assert done.returncode == 2 and "--simulator" in done.stderr


class TestCollect:
    def test_collect_names_the_simulators_failure_and_counts_it_apart(
            self, judge_server: Any, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        judge_server.control(script=[*play(judge_server, "good", message="我叫张三", done=False),
                                     *play(judge_server, "<turn 3>", done=True),
                                     *play(judge_server, "early", done=True)])
        scenarios = tmp_path / "scenarios.jsonl"
        write_rows(scenarios, [GOOD, TestSimulatorFailures.ROWS[0]])
        done = kit.evaldsl("collect", spec, scenarios, "--target", "agent", "--config",
                           settings(tmp_path, agent, judge_server), "--transcripts",
                           tmp_path / "t.jsonl", "--simulator", "user-model",
                           env={**env(), "EVALDSL_CACHE_DIR": str(tmp_path / "cache")})
        assert done.returncode == 0, done.stderr
        assert ("error: early: the simulated user ended too early after turn 1: it ended "
                "after 1 of at least 2 replies") in done.stderr
        assert [t["id"] for t in read_jsonl(tmp_path / "t.jsonl")] == ["good"]
        assert "agent agent: 2 conversations · 0 errors" in done.stdout
        assert "simulated user: 2 conversations · 1 failures (50.0%)" in done.stdout
