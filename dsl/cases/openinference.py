"""A span read by the OpenInference conventions (Arize Phoenix and its instrumentations).

`openinference.span.kind` says what a span is: `LLM` a model call, `TOOL` a tool run,
`AGENT` an agent. A model call's messages are flattened into attributes,
`llm.input_messages.N.message.role` / `.content` (or `.contents.M.message_content.text`),
`.tool_calls.K.tool_call.id` / `.function.name` / `.function.arguments`, and
`.tool_call_id` on a tool's result; `llm.output_messages.N...` the same. Tokens are
`llm.token_count.prompt` / `completion`, the model `llm.model_name`, the conversation
`session.id`. A tool span names its tool in `tool.name`, its arguments in
`tool.parameters` or `input.value`, its result in `output.value`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from evaldsl.cases.spanview import (
    AGENT,
    MODEL,
    OTHER,
    TOOL,
    Message,
    SpanView,
    ToolRun,
    arguments_text,
    int_or_none,
    role_of,
    text_of,
    text_or_none,
    tool_call,
)
from evaldsl.errors import SpanError
from evaldsl.i18n import _

KIND = "openinference.span.kind"
KINDS = {"LLM": MODEL, "TOOL": TOOL, "AGENT": AGENT}
MAX_MESSAGES = 10_000
"""Indices past this in a flattened list are refused: a hostile index must not allocate."""

_KEY = re.compile(r"llm\.(input|output)_messages\.(\d+)\.message\.(.+)")
_CALL = re.compile(r"tool_calls\.(\d+)\.tool_call\.(id|function\.name|function\.arguments)")
_CONTENT = re.compile(r"contents\.(\d+)\.message_content\.text")


def is_openinference(attrs: Mapping[str, Any]) -> bool:
    return KIND in attrs


def view(attrs: Mapping[str, Any]) -> SpanView:
    """What a span says by OpenInference; raises `SpanError` for malformed messages."""
    kind = KINDS.get(str(attrs.get(KIND, "")).upper(), OTHER)
    flat: dict[str, dict[int, dict[str, Any]]] = {"input": {}, "output": {}}
    for key, value in attrs.items():
        if key.startswith("llm.") and "_messages." in key:
            match = _KEY.fullmatch(key)
            if match is None:
                continue
            index = int(match.group(2))
            if index >= MAX_MESSAGES:
                raise SpanError(_("a message index is past {limit}").format(limit=MAX_MESSAGES))
            flat[match.group(1)].setdefault(index, {})[match.group(3)] = value
    tool = None
    if kind == TOOL:
        arguments = attrs.get("tool.parameters", attrs.get("input.value"))
        result = attrs.get("output.value")
        tool = ToolRun(str(attrs.get("tool.name") or ""), str(attrs.get("tool_call.id") or ""),
                       arguments_text(arguments), None if result is None else text_of(result))
    return SpanView(
        kind, _messages(flat["input"]), _messages(flat["output"]), tool,
        int_or_none(attrs.get("llm.token_count.prompt")),
        int_or_none(attrs.get("llm.token_count.completion")),
        text_or_none(attrs.get("llm.model_name")),
        text_or_none(attrs.get("gen_ai.conversation.id")),
        text_or_none(attrs.get("session.id")))


def _messages(flat: dict[int, dict[str, Any]]) -> list[Message] | None:
    if not flat:
        return None
    return [_message(flat[i]) for i in sorted(flat)]


def _message(fields: dict[str, Any]) -> Message:
    role = role_of(fields.get("role"))
    content = fields.get("content")
    texts: dict[int, str] = {}
    calls: dict[int, dict[str, Any]] = {}
    for key, value in fields.items():
        if key.startswith("tool_calls."):
            match = _CALL.fullmatch(key)
            if match is not None:
                calls.setdefault(int(match.group(1)), {})[match.group(2)] = value
        elif key.startswith("contents."):
            match = _CONTENT.fullmatch(key)
            if match is not None:
                texts[int(match.group(1))] = text_of(value)
    text = text_of(content) if content is not None else "\n".join(
        texts[i] for i in sorted(texts))
    message: Message = {"role": role, "content": text}
    if calls:
        message["tool_calls"] = [
            tool_call(c.get("function.name"), c.get("id"), c.get("function.arguments"))
            for _i, c in sorted(calls.items())]
    if fields.get("tool_call_id") is not None:
        message["tool_call_id"] = str(fields["tool_call_id"])
    if isinstance(fields.get("name"), str):
        message["name"] = fields["name"]
    return message


__all__ = ["is_openinference", "view"]
