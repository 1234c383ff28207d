"""Tool calls in transcripts as they come: the call's type (a function or an MCP tool),
tool results (`role: tool`) that name the call they answer, parallel calls in one message,
and what each scope and the judge prompt show of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import evaldsl
from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.cases.loading import read_cases
from evaldsl.cases.scopes import Scope, select
from evaldsl.model.prompts import render_unit

WEATHER = {"id": "w1", "type": "function",
           "function": {"name": "get_weather", "arguments": "{\"city\": \"北京\"}"}}
TRAINS = {"id": "w2", "type": "function",
          "function": {"name": "search_trains", "arguments": "{\"to\": \"上海\"}"}}
GEOCODE = {"id": "m1", "type": "mcp", "server_label": "maps", "name": "geocode",
           "arguments": "{\"q\": \"故宫\"}"}

ROW: dict[str, Any] = {"id": "t1", "messages": [
    {"role": "user", "content": "北京天气怎么样？有去上海的火车吗？故宫在哪？"},
    {"role": "assistant", "content": None, "tool_calls": [WEATHER, TRAINS]},
    {"role": "tool", "tool_call_id": "w1", "content": "晴，25°C"},
    {"role": "tool", "tool_call_id": "w2", "content": "G1 08:00"},
    {"role": "assistant", "content": "", "tool_calls": [GEOCODE]},
    {"role": "tool", "tool_call_id": "m1", "content": "东城区景山前街4号"},
    {"role": "assistant", "content": "北京晴，25°C；G1 次 08:00 出发；故宫在东城区景山前街4号。"},
]}


def case() -> Case:
    return Case.from_dict(ROW)


def test_a_call_keeps_its_type_and_an_mcp_call_its_server() -> None:
    calls = [c for m in case().messages for c in m.tool_calls]
    assert [(c.type, c.server, c.name) for c in calls] == [
        ("function", "", "get_weather"), ("function", "", "search_trains"),
        ("mcp", "maps", "geocode")]
    assert calls[2].arguments == {"q": "故宫"}


def test_a_responses_api_mcp_call_is_an_mcp_call() -> None:
    row = {**ROW, "messages": [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "m9", "type": "mcp_call", "server_label": "docs", "name": "search",
         "arguments": {"q": "refund"}}]}]}
    (call,) = Case.from_dict(row).messages[0].tool_calls
    assert (call.type, call.server, call.name, call.arguments) == (
        "mcp", "docs", "search", {"q": "refund"})


def test_a_tool_result_names_the_call_it_answers() -> None:
    results = [m for m in case().messages if m.role == "tool"]
    assert [m.name for m in results] == ["get_weather", "search_trains", "geocode"]


def test_parallel_calls_are_all_seen_by_the_tool_primitives(tmp_path: Path) -> None:
    path = tmp_path / "tools.eval"
    path.write_text(
        "check weather = tool_called(name: \"get_weather\")\n"
        "check trains = tool_called(name: \"search_trains\")\n"
        "check geo = tool_called(name: \"geocode\")\n", encoding="utf-8")
    result = evaldsl.load(path).evaluate(ROW)
    assert [result.checks[k].passed for k in ("weather", "trains", "geo")] == [True] * 3


def test_the_tool_results_scope_reads_the_results_and_nothing_else() -> None:
    (unit,) = select(case(), Scope("tool_results"))
    assert unit.text == "晴，25°C\nG1 08:00\n东城区景山前街4号"
    assert [m.role for m in unit.messages] == ["tool"] * 3


def test_reply_scopes_do_not_read_tool_results(tmp_path: Path) -> None:
    path = tmp_path / "k.eval"
    path.write_text(
        "check in_results = keyword(scope: tool_results, any: [\"G1 08:00\"])\n"
        "check in_replies = keyword(scope: replies, any: [\"G1 08:00\"])\n", encoding="utf-8")
    result = evaldsl.load(path).evaluate(ROW)
    assert (result.checks["in_results"].passed, result.checks["in_replies"].passed) == (
        True, False)


def test_the_judge_prompt_shows_calls_their_type_and_what_each_result_answers() -> None:
    (unit,) = select(case(), Scope("dialog"))
    text = render_unit(unit)
    assert text.splitlines() == [
        "[1] user: 北京天气怎么样？有去上海的火车吗？故宫在哪？",
        '[2] assistant: [calls get_weather({"city": "北京"}), search_trains({"to": "上海"})]',
        "[3] tool (get_weather): 晴，25°C",
        "[4] tool (search_trains): G1 08:00",
        '[5] assistant: [calls mcp maps.geocode({"q": "故宫"})]',
        "[6] tool (geocode): 东城区景山前街4号",
        "[7] assistant: 北京晴，25°C；G1 次 08:00 出发；故宫在东城区景山前街4号。",
    ]
    assert unit.text.splitlines()[2] == "tool (get_weather): 晴，25°C"


def test_an_mcp_call_row_loads_and_a_call_of_no_name_is_a_bad_row(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    nameless = {**ROW, "id": "bad", "messages": [
        {"role": "assistant", "content": None, "tool_calls": [
            {"type": "mcp", "server_label": "maps", "arguments": "{}"}]}]}
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in (ROW, nameless)) + "\n",
                    encoding="utf-8")
    good, bad = read_cases(path, on_bad_row="skip")
    assert isinstance(good, Case)
    assert isinstance(bad, BadRow) and bad.field == "messages[0].tool_calls[0].function.name"
