"""SGD dialogs as evaldsl cases, built in memory from ../shared/data/sgd.

The transcript holds the user and system turns; the system turn that made a
service call carries it as an OpenAI tool call (its canonical parameters as
JSON text), named `<service>_<method>`. `expected_calls` holds, for each call in order, the dialog's
annotated slot values at that moment: every wording SGD accepted for each
slot the method takes (`"dontcare"` becomes "may be omitted"). `functions`
are the services' schemas as function docs (required and optional slots).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FILES = ("dialogs_test.jsonl", "dialogs_train_uss.jsonl")


def schemas(data: Path) -> dict[str, dict[str, Any]]:
    rows = json.loads((data / "sgd" / "schemas.json").read_text(encoding="utf-8"))
    return {row["service_name"]: row for row in rows}


def dialogs(data: Path, files: tuple[str, ...] = FILES) -> Iterator[dict[str, Any]]:
    for name in files:
        with (data / "sgd" / name).open(encoding="utf-8") as handle:
            for line in handle:
                yield json.loads(line)


def sgd_cases(data: Path, files: tuple[str, ...] = FILES) -> Iterator[dict[str, Any]]:
    services = schemas(data)
    for dialog in dialogs(data, files):
        yield to_case(dialog, services)


def to_case(dialog: dict[str, Any], services: dict[str, dict[str, Any]]) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    expected: list[dict[str, Any]] = []
    state: dict[str, Any] = {}
    for turn in dialog["turns"]:
        if turn["role"] == "user":
            state = turn.get("state") or {}
            messages.append({"role": "user", "content": turn["text"]})
            continue
        message: dict[str, Any] = {"role": "assistant", "content": turn["text"]}
        calls = turn.get("service_calls") or []
        if calls:
            message["tool_calls"] = [_tool_call(c, i) for i, c in enumerate(calls)]
            expected.extend(_expected(c, state, services) for c in calls)
        messages.append(message)
    return {
        "id": dialog["id"],
        "messages": messages,
        "expected_calls": {"calls": expected, "order_matters": True},
        "functions": [_doc(s, i) for s in dialog["domains"] for i in services[s]["intents"]],
        "services": len(dialog["domains"]),
    }


def tool_name(service: str, method: str) -> str:
    """`Restaurants_2_ReserveRestaurant`: methods of different services share names."""
    return f"{service}_{method}"


def _tool_call(call: dict[str, Any], index: int) -> dict[str, Any]:
    return {"id": f"call_{index}", "type": "function",
            "function": {"name": tool_name(call["service"], call["method"]),
                         "arguments": json.dumps(call["parameters"], ensure_ascii=False)}}


def _intent(services: dict[str, dict[str, Any]], service: str, method: str) -> dict[str, Any]:
    return next(i for i in services[service]["intents"] if i["name"] == method)


def _expected(call: dict[str, Any], state: dict[str, Any],
              services: dict[str, dict[str, Any]]) -> dict[str, Any]:
    intent = _intent(services, call["service"], call["method"])
    takes = set(intent["required_slots"]) | set(intent["optional_slots"])
    args: dict[str, list[str]] = {}
    for slot, wordings in (state.get(call["service"]) or {}).items():
        if slot in takes:
            args[slot] = [*wordings, ""] if "dontcare" in wordings else list(wordings)
    return {"name": tool_name(call["service"], call["method"]), "args": args}


def _doc(service: str, intent: dict[str, Any]) -> dict[str, Any]:
    slots = [*intent["required_slots"], *intent["optional_slots"]]
    return {"name": tool_name(service, intent["name"]), "description": intent["description"],
            "parameters": {"type": "object", "required": list(intent["required_slots"]),
                           "properties": {s: {"type": "string"} for s in slots}}}
