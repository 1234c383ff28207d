"""The `openai` target against the project's test server playing a tool-calling model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.agents.conftest import read_jsonl, write_rows

TOOLS = ('tools = [{type = "function", function = {name = "book_repair", description = '
         '"book a repair visit", parameters = {type = "object", properties = {day = '
         '{type = "string"}}}}}]')
"""The agent's tools as OpenAI tool definitions, written in TOML."""


def settings(port: int) -> str:
    return ("[targets.bot]\nkind = \"openai\"\n"
            f"base_url = \"http://127.0.0.1:{port}/v1\"\nmodel = \"agent-model\"\n"
            "system = \"你是维修预约助手\"\napi_key_env = \"BOT_API_KEY\"\n"
            f"{TOOLS}\n")


def collect(kit: Any, port: int, tmp_path: Path, spec: Path, rows: list[dict[str, Any]]
            ) -> Any:
    (tmp_path / "evaldsl.toml").write_text(settings(port), encoding="utf-8")
    scenarios = tmp_path / "scenarios.jsonl"
    write_rows(scenarios, rows)
    return kit.evaldsl("run", spec, scenarios, "--target", "bot", "--config",
                       tmp_path / "evaldsl.toml", "--transcripts", tmp_path / "t.jsonl",
                       "--results", tmp_path / "results.jsonl", "-o", tmp_path / "report.json",
                       env={"BOT_API_KEY": "sk-bot-key-000111"})


class TestToolCalls:
    ROW = {"id": "book", "intent": "booking", "messages": ["空调坏了", "请预约周五"],
           "tool_results": [{"name": "book_repair", "arguments": {"day": "周五"},
                             "result": {"ok": True, "ticket": "T-42"}}]}

    def test_a_tool_call_gets_its_canned_result_and_the_model_answers(
            self, judge_server: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        judge_server.control(tool_calls=[{"contains": "预约", "name": "book_repair",
                                          "arguments": {"day": "周五"}}])
        done = collect(kit, judge_server.port, tmp_path, spec, [self.ROW])
        assert done.returncode in (0, 1), done.stderr
        (saved,) = read_jsonl(tmp_path / "t.jsonl")
        roles = [m["role"] for m in saved["messages"]]
        assert roles == ["user", "assistant", "user", "assistant", "tool", "assistant"]
        call = saved["messages"][3]["tool_calls"][0]["function"]
        assert call["name"] == "book_repair" and json.loads(call["arguments"]) == {"day": "周五"}
        assert json.loads(saved["messages"][4]["content"]) == {"ok": True, "ticket": "T-42"}
        assert saved["messages"][5]["content"] == 'tool said: {"ok": true, "ticket": "T-42"}'
        assert "latency_ms" not in saved["messages"][3]
        assert saved["messages"][5]["latency_ms"] > 0 and saved["messages"][1]["latency_ms"] > 0
        assert judge_server.stats()["keys"] == ["sk-bot-key-000111"]
        assert judge_server.stats()["models"] == ["agent-model"] * 3

    def test_a_call_without_a_canned_result_is_an_error_naming_the_call(
            self, judge_server: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        judge_server.control(tool_calls=[{"contains": "预约", "name": "book_repair",
                                          "arguments": {"day": "周六"}}])
        other = {**self.ROW, "id": "other", "messages": ["你好", "谢谢"]}
        done = collect(kit, judge_server.port, tmp_path, spec, [self.ROW, other])
        assert done.returncode == 0, done.stderr
        journal = {r["id"]: r for r in read_jsonl(tmp_path / "results.jsonl")[1:]}
        assert journal["book"]["errors"]["outcome"] == (
            'the agent failed at turn 2 of 2: no canned result for the tool call '
            'book_repair({"day": "周六"}) in the scenario\'s `tool_results`')
        assert not (tmp_path / "t.jsonl").read_text("utf-8").count('"book"')
        report = json.loads((tmp_path / "report.json").read_text("utf-8"))
        assert report["target"]["errors"] == 1 and report["target"]["kind"] == "openai"
        assert "sk-bot-key-000111" not in done.stdout + done.stderr


class TestFailures:
    def test_a_server_error_makes_the_case_an_error_with_the_reason(
            self, judge_server: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        judge_server.control(faults=[{"kind": "500", "count": 1}])
        row = {"id": "a", "intent": "x", "messages": ["你好", "谢谢"]}
        done = collect(kit, judge_server.port, tmp_path, spec, [row])
        assert done.returncode == 4
        (record,) = read_jsonl(tmp_path / "results.jsonl")[1:]
        assert record["errors"]["outcome"] == ("the agent failed at turn 1 of 2: the agent "
                                               "server failed (HTTP 500): injected failure")
        assert (tmp_path / "t.jsonl").read_text("utf-8") == ""
