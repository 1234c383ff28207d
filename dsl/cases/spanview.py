"""What one span says about a conversation, whichever convention wrote it.

`evaldsl.cases.otel` (the OpenTelemetry GenAI conventions) and
`evaldsl.cases.openinference` (OpenInference) each read a span's attributes into a
`SpanView`: its part in the conversation (a model call, a tool run, an agent), the
messages it records in the OpenAI chat form cases use, and its tokens and model.
`evaldsl.cases.traces` puts the views of a conversation together. Messages whose text
the trace did not keep carry `"recorded": False`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from evaldsl.errors import SpanError
from evaldsl.i18n import _

MODEL, TOOL, AGENT, OTHER = "model", "tool", "agent", "other"

Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolRun:
    """A tool the agent ran: its call and, when recorded, its arguments and result."""

    name: str
    call_id: str
    arguments: str | None
    """JSON text, or None when the trace did not record them."""
    result: str | None


@dataclass(frozen=True, slots=True)
class SpanView:
    kind: str
    """`model`, `tool`, `agent` or `other`."""
    inputs: list[Message] | None = None
    """The messages sent in, or None when the span records none."""
    outputs: list[Message] | None = None
    tool: ToolRun | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str | None = None
    conversation: str | None = None
    """The conversation the span belongs to, by the convention's own attribute."""
    session: str | None = None
    """`session.id`: the conversation when none is named."""

    @property
    def records_messages(self) -> bool:
        return self.inputs is not None or self.outputs is not None


_DUMPS = json.JSONEncoder(ensure_ascii=False).encode
"""`json.dumps(value, ensure_ascii=False)` without building an encoder per call."""


def text_of(value: Any) -> str:
    """A part's content or a tool's result as text: JSON for anything but a text."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return _DUMPS(value)


def arguments_text(value: Any) -> str | None:
    """Tool-call arguments as JSON text (a decoded object is written back)."""
    if value is None:
        return None
    return value if isinstance(value, str) else _DUMPS(value)


def tool_call(name: Any, call_id: Any, arguments: Any) -> dict[str, Any]:
    """A tool call in the chat form; arguments None stay None (not recorded)."""
    if not isinstance(name, str) or not name:
        raise SpanError(_("a tool call has no name"))
    return {"id": str(call_id or ""), "type": "function",
            "function": {"name": name, "arguments": arguments_text(arguments)}}


def int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


ROLE_NAMES = {"system": "system", "developer": "developer", "user": "user", "human": "user",
              "assistant": "assistant", "model": "assistant", "ai": "assistant",
              "tool": "tool", "function": "tool", "ipython": "tool"}
"""Roles as instrumentations spell them -> the chat roles of a case."""


def role_of(value: Any) -> str:
    role = ROLE_NAMES.get(str(value).lower()) if isinstance(value, str) else None
    if role is None:
        raise SpanError(_("a message has an unknown role: {role}").format(
            role=json.dumps(value, ensure_ascii=False)[:40]))
    return role
