"""The data model of a case: one recorded conversation to be judged.

Messages follow the OpenAI chat format (roles system, user, assistant, tool;
tool calls whose arguments are JSON strings). Loading and validation of case
files live in `evaldsl.cases.loading`; this module is only the shape.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evaldsl.cases.limits import MAX_ARGUMENT_DEPTH, json_text_depth, value_depth
from evaldsl.i18n import _
from evaldsl.values import ErrorValue


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A function call an assistant message asked for."""

    name: str
    arguments: dict[str, Any] | ErrorValue
    """The decoded arguments, or an error when the JSON string did not parse."""
    raw_arguments: str = "{}"
    id: str = ""

    @classmethod
    def from_openai(cls, data: Mapping[str, Any]) -> ToolCall:
        function = data.get("function", data)
        raw = function.get("arguments", "{}")
        name, call_id = str(function.get("name", "")), str(data.get("id", ""))
        if isinstance(raw, dict):
            if value_depth(raw, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH:
                return cls(name, _too_deep(), "{}", call_id)
            return cls(name, raw, json.dumps(raw), call_id)
        return cls(name, _decode_arguments(raw), str(raw), call_id)


def _too_deep() -> ErrorValue:
    return ErrorValue(
        _("tool-call arguments are nested more than {limit} levels deep").format(
            limit=MAX_ARGUMENT_DEPTH
        )
    )


def _decode_arguments(raw: Any) -> dict[str, Any] | ErrorValue:
    """The arguments as a dict; broken or too deeply nested JSON is an error value to judge."""
    if isinstance(raw, str) and json_text_depth(raw) > MAX_ARGUMENT_DEPTH:
        return _too_deep()  # scanned first: the C decoder would recurse once per level
    try:
        decoded = json.loads(raw) if isinstance(raw, str) else raw
    except (TypeError, ValueError) as exc:
        return ErrorValue(f"tool-call arguments are not JSON: {exc}")
    if not isinstance(decoded, dict):
        return ErrorValue("tool-call arguments are not a JSON object")
    return decoded


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    latency_ms: float | None = None
    name: str | None = None
    tool_call_id: str | None = None

    @classmethod
    def from_openai(cls, data: Mapping[str, Any]) -> Message:
        return cls(
            role=str(data.get("role", "")),
            content=content_text(data.get("content")),
            tool_calls=tuple(ToolCall.from_openai(c) for c in data.get("tool_calls") or ()),
            latency_ms=_number_or_none(data.get("latency_ms")),
            name=data.get("name"),
            tool_call_id=data.get("tool_call_id"),
        )


def content_text(content: Any) -> str:
    """The text of an OpenAI `content`: a string, or the text parts of a list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = (p.get("text", "") for p in content if isinstance(p, dict))
        return "\n".join(p for p in parts if isinstance(p, str))
    return str(content)


def _number_or_none(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


@dataclass(frozen=True, slots=True)
class Case:
    """One conversation with the fields a spec reads as `case.X`."""

    id: str
    messages: tuple[Message, ...]
    fields: Mapping[str, Any] = field(default_factory=dict)
    origin: str = ""
    """`file:line` the case was read from, for messages about it."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], origin: str = "") -> Case:
        """A case from a plain mapping with `id`, `messages` and any other fields."""
        messages = tuple(Message.from_openai(m) for m in data.get("messages") or ())
        extra = {k: v for k, v in data.items() if k not in ("id", "messages")}
        return cls(str(data.get("id", "")), messages, extra, origin)
