"""A span read by the OpenTelemetry GenAI semantic conventions.

A model call (`gen_ai.operation.name` `chat`, `generate_content` or `text_completion`)
records its messages in `gen_ai.input.messages` and `gen_ai.output.messages` (JSON text or
structured values) as parts: `text`, `tool_call` (`id`, `name`, `arguments`) and
`tool_call_response` (`id` and `response`, which some examples of the conventions call
`result`: both are read); `gen_ai.system_instructions` is the system prompt. An
`execute_tool` span is one tool run (`gen_ai.tool.name`, `gen_ai.tool.call.id`, and the
opt-in `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`); `invoke_agent` is an
agent, whose messages a trace may keep instead of the model calls'. Tokens are
`gen_ai.usage.input_tokens` / `output_tokens`, the model `gen_ai.response.model` or
`gen_ai.request.model`, the conversation `gen_ai.conversation.id`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from evaldsl.cases.otlp import decode
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

MODEL_OPERATIONS = frozenset({"chat", "generate_content", "text_completion"})
AGENT_OPERATIONS = frozenset({"invoke_agent"})
INPUT, OUTPUT = "gen_ai.input.messages", "gen_ai.output.messages"
SYSTEM = "gen_ai.system_instructions"


def view(attrs: Mapping[str, Any]) -> SpanView:
    """What a span says by the GenAI conventions; raises `SpanError` for malformed messages."""
    operation = attrs.get("gen_ai.operation.name")
    if operation in MODEL_OPERATIONS:
        kind = MODEL
    elif operation == "execute_tool":
        kind = TOOL
    elif operation in AGENT_OPERATIONS:
        kind = AGENT
    else:
        kind = OTHER
    inputs = messages(attrs.get(INPUT), INPUT)
    system = _system(attrs.get(SYSTEM))
    if system is not None:
        inputs = [system, *(inputs or [])]
    tool = None
    if kind == TOOL:
        tool = ToolRun(str(attrs.get("gen_ai.tool.name") or ""),
                       str(attrs.get("gen_ai.tool.call.id") or ""),
                       arguments_text(attrs.get("gen_ai.tool.call.arguments")),
                       _result(attrs))
    return SpanView(
        kind, inputs, messages(attrs.get(OUTPUT), OUTPUT), tool,
        int_or_none(attrs.get("gen_ai.usage.input_tokens",
                              attrs.get("gen_ai.usage.prompt_tokens"))),
        int_or_none(attrs.get("gen_ai.usage.output_tokens",
                              attrs.get("gen_ai.usage.completion_tokens"))),
        text_or_none(attrs.get("gen_ai.response.model"))
        or text_or_none(attrs.get("gen_ai.request.model")),
        text_or_none(attrs.get("gen_ai.conversation.id")),
        text_or_none(attrs.get("session.id")))


def _result(attrs: Mapping[str, Any]) -> str | None:
    result = attrs.get("gen_ai.tool.call.result")
    return None if result is None else text_of(result)


def messages(value: Any, key: str) -> list[Message] | None:
    """A messages attribute as chat messages; None when the span has none."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = decode(value)
        except RecursionError:
            raise SpanError(_("`{key}` is nested too deeply").format(key=key)) from None
        except ValueError as exc:
            raise SpanError(_("`{key}` is not valid JSON: {exc}").format(key=key, exc=exc)) \
                from None
    if not isinstance(value, list):
        raise SpanError(_("`{key}` is not a list of messages").format(key=key))
    out: list[Message] = []
    for item in value:
        if not isinstance(item, dict):
            raise SpanError(_("`{key}` holds a message that is not an object").format(key=key))
        out.extend(_message(item))
    return out


def _message(item: Mapping[str, Any]) -> list[Message]:
    """One message of parts: its text and tool calls, and each tool response as a message
    of its own (the chat form has one result a message)."""
    role = role_of(item.get("role"))
    parts = item.get("parts")
    if parts is None and isinstance(item.get("content"), str):
        parts = [{"type": "text", "content": item["content"]}]
    if not isinstance(parts, list):
        raise SpanError(_("a message has no list of `parts`"))
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    results: list[Message] = []
    for part in parts:
        if not isinstance(part, dict):
            raise SpanError(_("a message part is not an object"))
        kind = part.get("type")
        if kind == "text":
            texts.append(text_of(part.get("content")))
        elif kind == "tool_call":
            calls.append(tool_call(part.get("name"), part.get("id"), part.get("arguments")))
        elif kind == "tool_call_response":
            answer = part["response"] if "response" in part else part.get("result")
            results.append({"role": "tool", "tool_call_id": str(part.get("id") or ""),
                            "content": text_of(answer)})
    out: list[Message] = []
    if texts or calls or not results:
        message: Message = {"role": "tool" if role == "tool" and not results else role,
                            "content": "\n".join(texts)}
        if calls:
            message["tool_calls"] = calls
        if role != "tool" or not results:
            out.append(message)
    out.extend(results)
    return out


def _system(value: Any) -> Message | None:
    """`gen_ai.system_instructions` (parts, or a plain text) as a system message."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {"role": "system", "content": value}
    if isinstance(value, str):
        return {"role": "system", "content": value}
    if not isinstance(value, list):
        raise SpanError(_("`{key}` is not a list of parts").format(key=SYSTEM))
    texts = [text_of(p.get("content")) for p in value
             if isinstance(p, dict) and p.get("type", "text") == "text"]
    return {"role": "system", "content": "\n".join(texts)}


__all__ = ["AGENT", "MODEL", "OTHER", "TOOL", "messages", "view"]
