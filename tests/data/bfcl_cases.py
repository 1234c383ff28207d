"""BFCL cases as evaldsl sees them, built in memory from ../shared/data.

Each case is an OpenAI-format transcript: BFCL's question, then one assistant
message carrying the recorded model's native tool calls (arguments as JSON
text, exactly as recorded), with the case fields `gold`, `category` and
`functions` that specs/bfcl.eval declares. Nothing is copied to disk.
"""

from __future__ import annotations

import json
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


def to_case(source: dict[str, Any], output: dict[str, Any], model: str) -> dict[str, Any]:
    gold = dict(source["gold"])
    if "gold_at_run" in output:
        gold["calls"] = output["gold_at_run"]
    calls = [{"id": f"call_{i}", "type": "function",
              "function": {"name": name, "arguments": arguments}}
             for i, item in enumerate(output["raw"]) for name, arguments in item.items()]
    reply: dict[str, Any] = {"role": "assistant", "content": "" if calls else "(no call)"}
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
