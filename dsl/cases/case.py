"""The data model of a case: one recorded conversation to be judged.

Messages follow the OpenAI chat format (roles system, user, assistant, tool;
tool calls whose arguments are JSON strings). Loading and validation of case
files live in `evaldsl.cases.loading`; this module is only the shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from evaldsl.cases.load_limits import MAX_ARGUMENT_DEPTH, json_text_depth, value_depth
from evaldsl.i18n import _
from evaldsl.values import ErrorValue

Setter = Callable[[Any, Any], None]


def slot_setters(cls: type, names: tuple[str, ...]) -> tuple[Setter, ...]:
    """The `__set__` of each field's slot of a frozen slots dataclass, for an `__init__`
    written out by hand: the generated one of a frozen class sets every field through
    `object.__setattr__`, which made building a message, a case or a scope's unit (each of
    every case of a run) about 1.6 times the work. `names` must be the fields in order,
    so a field added to the class but not to its `__init__` fails on import."""
    if names != tuple(f.name for f in fields(cls)):
        raise AssertionError(f"{cls.__name__}.__init__ must set {[f.name for f in fields(cls)]}")
    return tuple(cls.__dict__[name].__set__ for name in names)


def draft_of(cls: type) -> type:
    """A plain class of `cls`'s slots, for a reader that builds one object of `cls` per row:
    an object of it is filled by plain attribute stores (which the interpreter specialises
    for slots), then made a `cls` by assigning its `__class__` (the layouts are the same),
    about a quarter of the work of the hand-written `__init__`'s slot setters. The object is
    the one `__init__` builds; a builder that misses a field fails on import (`_checked`)."""
    return type(f"{cls.__name__}Draft", (), {"__slots__": vars(cls)["__slots__"]})


def _checked(built: Any, expected: Any) -> None:
    """Refuse, on import, a draft builder that gives another object than `__init__` (a
    field it does not set cannot even be read)."""
    if built != expected or type(built) is not type(expected):
        raise AssertionError(f"{type(expected).__name__}'s draft builder differs from __init__")


CALL_TYPES = {"function": "function", "mcp": "mcp", "mcp_call": "mcp"}
"""A call's `type` as transcripts spell it -> as evaldsl names it (the Responses API's
`mcp_call` is an MCP call); another type is kept as written."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call an assistant message asked for: a function, or a tool of an MCP server."""

    name: str
    arguments: dict[str, Any] | ErrorValue
    """The decoded arguments, or an error when the JSON string did not parse."""
    raw_arguments: str = "{}"
    id: str = ""
    type: str = "function"
    """`function`, `mcp`, or another type as the transcript gave it."""
    server: str = ""
    """The MCP server's label (`server_label`), for an MCP call."""

    @classmethod
    def from_openai(cls, data: Mapping[str, Any]) -> ToolCall:
        """A chat-format call (`{type: function, function: {name, arguments}}`) or a flat
        one, as MCP calls come (`{type: mcp, server_label, name, arguments}`)."""
        function = data.get("function", data)
        raw = function.get("arguments", "{}")
        name, call_id = str(function.get("name", "")), str(data.get("id", ""))
        kind = str(data.get("type") or "function")
        kind = CALL_TYPES.get(kind, kind)
        server = str(data.get("server_label") or data.get("server") or "")
        if raw is None:  # a trace that did not record them
            return cls(name, ErrorValue(_("no arguments recorded")), "", call_id, kind, server)
        if isinstance(raw, dict):
            if value_depth(raw, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH:
                return cls(name, _too_deep(), "{}", call_id, kind, server)
            return cls(name, raw, json.dumps(raw, ensure_ascii=False), call_id, kind, server)
        return cls(name, _decode_arguments(raw), str(raw), call_id, kind, server)

    @property
    def written(self) -> str:
        """The call as transcripts and prompts show it: `get_weather({...})`, or
        `mcp maps.geocode({...})` for an MCP tool."""
        if self.type == "function":
            return f"{self.name}({self.raw_arguments})"
        where = f"{self.server}." if self.server else ""
        return f"{self.type} {where}{self.name}({self.raw_arguments})"


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
    recorded: bool = True
    """False when the message's text was not recorded (a trace without content capture):
    text checks on it say so instead of judging an empty text."""

    def __init__(self, role: str, content: str, tool_calls: tuple[ToolCall, ...] = (),
                 latency_ms: float | None = None, name: str | None = None,
                 tool_call_id: str | None = None, recorded: bool = True) -> None:
        """The dataclass's `__init__`, each field set through its slot (`slot_setters`)."""
        _set_role(self, role)
        _set_content(self, content)
        _set_tool_calls(self, tool_calls)
        _set_latency(self, latency_ms)
        _set_name(self, name)
        _set_call_id(self, tool_call_id)
        _set_recorded(self, recorded)

    @property
    def speaker(self) -> str:
        """Who speaks, as a transcript line starts: `assistant`, or `tool (get_weather)`
        for a tool result, naming the call it answers."""
        if self.role == "tool" and self.name:
            return f"tool ({self.name})"
        return self.role

    @property
    def line(self) -> str:
        """`speaker: text`, the calls written after the text: `[calls f({...}), g({...})]`."""
        text = self.content
        if self.tool_calls:
            calls = ", ".join(c.written for c in self.tool_calls)
            text = f"{text} [calls {calls}]".strip()
        return f"{self.speaker}: {text}"

    @classmethod
    def from_openai(cls, data: Mapping[str, Any]) -> Message:
        return cls(
            role=str(data.get("role", "")),
            content=content_text(data.get("content")),
            tool_calls=tuple(ToolCall.from_openai(c) for c in data.get("tool_calls") or ()),
            latency_ms=_number_or_none(data.get("latency_ms")),
            name=data.get("name"),
            tool_call_id=data.get("tool_call_id"),
            recorded=data.get("recorded") is not False,
        )


(_set_role, _set_content, _set_tool_calls, _set_latency, _set_name, _set_call_id,
 _set_recorded) = slot_setters(Message, ("role", "content", "tool_calls", "latency_ms", "name",
                                         "tool_call_id", "recorded"))


_MessageDraft: Any = draft_of(Message)


def plain_message(role: str, content: str, latency_ms: float | None) -> Message:
    """`Message(role, content, (), latency_ms)` built as a draft (`draft_of`): the message of
    every common row (`evaldsl.cases.rows`)."""
    message = _MessageDraft()
    message.role = role
    message.content = content
    message.tool_calls = ()
    message.latency_ms = latency_ms
    message.name = None
    message.tool_call_id = None
    message.recorded = True
    message.__class__ = Message
    return message  # type: ignore[no-any-return]  # a Message now


_checked(plain_message("tool", "ok", 1.0), Message("tool", "ok", (), 1.0))


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


_NEW: Any = object()
"""`Case.fields` not given: a new empty dict, as `field(default_factory=dict)` gives."""


@dataclass(frozen=True, slots=True)
class Case:
    """One conversation with the fields a spec reads as `case.X`."""

    id: str
    messages: tuple[Message, ...]
    fields: Mapping[str, Any] = field(default_factory=dict)
    origin: str = ""
    """`file:line` the case was read from, for messages about it."""
    unrecorded: bool = False
    """Some message's text was not recorded (`Message.recorded`)."""

    def __init__(self, id: str, messages: tuple[Message, ...], fields: Mapping[str, Any] = _NEW,
                 origin: str = "", unrecorded: bool = False) -> None:
        """The dataclass's `__init__` (`fields` a new dict when not given), each field set
        through its slot (`slot_setters`)."""
        _set_id(self, id)
        _set_messages(self, messages)
        _set_fields(self, {} if fields is _NEW else fields)
        _set_origin(self, origin)
        _set_unrecorded(self, unrecorded)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], origin: str = "") -> Case:
        """A case from a plain mapping with `id`, `messages` and any other fields."""
        messages = _name_results(tuple(Message.from_openai(m) for m in data.get("messages") or ()))
        extra = {k: v for k, v in data.items() if k not in ("id", "messages")}
        unrecorded = not all(m.recorded for m in messages)
        return cls(str(data.get("id", "")), messages, extra, origin, unrecorded)


_set_id, _set_messages, _set_fields, _set_origin, _set_unrecorded = slot_setters(
    Case, ("id", "messages", "fields", "origin", "unrecorded"))


_CaseDraft: Any = draft_of(Case)


def read_case(id: str, messages: tuple[Message, ...], fields: Mapping[str, Any],
              origin: str) -> Case:
    """`Case(id, messages, fields, origin)` built as a draft (`draft_of`): the case of every
    common row (`evaldsl.cases.rows`)."""
    case = _CaseDraft()
    case.id = id
    case.messages = messages
    case.fields = fields
    case.origin = origin
    case.unrecorded = False
    case.__class__ = Case
    return case  # type: ignore[no-any-return]  # a Case now


_checked(read_case("a", (), {"k": 1}, "f:1"), Case("a", (), {"k": 1}, "f:1"))


def _name_results(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """Each tool result named after the call it answers (`tool_call_id` -> the call's
    name), unless the transcript named it: scopes and prompts then say `tool (f): ...`."""
    names = {c.id: c.name for m in messages for c in m.tool_calls if c.id}
    if not names:
        return messages
    return tuple(
        replace(m, name=names[m.tool_call_id])
        if m.role == "tool" and not m.name and m.tool_call_id in names else m
        for m in messages)
