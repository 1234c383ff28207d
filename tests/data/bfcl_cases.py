"""BFCL cases as evaldsl sees them, built in memory from ../shared/data.

Each case is an OpenAI-format transcript: BFCL's question, then one assistant
message carrying the recorded model's native tool calls (arguments as JSON
text, exactly as recorded), with the case fields `gold`, `category` and
`functions` that specs/bfcl.eval declares. Nothing is copied to disk.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

MODELS = ("gpt-oss-20b", "gpt-oss-120b")
CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple",
              "live_multiple", "live_parallel", "irrelevance")


class Recorded(NamedTuple):
    case: dict[str, Any]
    """The evaldsl case (id, messages, gold, category, functions)."""
    bfcl_valid: bool
    """BFCL's own verdict, recorded with the output."""
    error_type: str


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def bfcl_cases(data: Path) -> dict[str, dict[str, Any]]:
    """BFCL's cases by id."""
    out: dict[str, dict[str, Any]] = {}
    for category in CATEGORIES:
        for row in read_jsonl(data / "bfcl" / f"{category}.jsonl"):
            out[row["id"]] = row
    return out


def recorded(data: Path, model: str) -> Iterator[Recorded]:
    """Every recorded output of `model` joined with its case."""
    cases = bfcl_cases(data)
    for out in read_jsonl(data / "bfcl_outputs_gpt_oss" / f"outputs_{model}.jsonl"):
        source = cases[out["case_id"]]
        verdict = out["bfcl_verdict"]
        yield Recorded(to_case(source, out, model), bool(verdict["valid"]),
                       str(verdict.get("error_type", "")))


V1_MODELS = ("gpt-4o-2024-05-13-FC", "claude-3-5-sonnet-20240620-FC")
"""The native tool-calling (FC) runs of the 2024 leaderboard snapshot."""


def recorded_v1(data: Path, model: str) -> Iterator[Recorded]:
    """The 2024 leaderboard's FC outputs joined with their BFCL v1 cases."""
    folder = data / "bfcl_v1_leaderboard_2024"
    cases = {row["id"]: row for row in read_jsonl(folder / "cases.jsonl")}
    for out in read_jsonl(folder / f"outputs_{model}.jsonl"):
        verdict = out["bfcl_verdict"]
        yield Recorded(to_case(v1_source(cases[out["case_id"]]), out, model),
                       bool(verdict["valid"]), str(verdict.get("error_type", "")))


def v1_source(source: dict[str, Any]) -> dict[str, Any]:
    """v1 golds number repeated calls (`spotify.play_1`, `calculate_bmi 2`); the checker of
    the time dropped that suffix before matching names, and so does this conversion."""
    names = {f.get("name") for f in source["functions"]}
    calls = [dict(c, name=_unnumbered(c["name"], names)) for c in source["gold"]["calls"]]
    return dict(source, gold=dict(source["gold"], calls=calls))


def _unnumbered(name: str, known: set[Any]) -> str:
    if name in known:
        return name
    stripped = re.sub(r"[ _]\d+$", "", name)
    return stripped if stripped in known else name


def to_case(source: dict[str, Any], output: dict[str, Any], model: str) -> dict[str, Any]:
    gold = dict(source["gold"])
    if "gold_at_run" in output:
        gold["calls"] = output["gold_at_run"]
    raw = output["raw"]
    calls = [{"id": f"call_{i}", "type": "function",
              "function": {"name": name, "arguments": arguments}}
             for i, item in enumerate(raw if isinstance(raw, list) else [])
             for name, arguments in item.items()]
    text = raw if isinstance(raw, str) else ("" if calls else "(no call)")
    reply: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        reply["tool_calls"] = calls
    return {
        "id": f"{model}/{source['id']}",
        "messages": [*source["messages"], reply],
        "gold": gold,
        "category": source["category"],
        "functions": source["functions"],
        "solvable": not gold.get("expect_no_call", False),
    }
