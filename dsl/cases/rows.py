"""One data row -> one `Case`, or the reason it cannot be one.

A row is a JSON object with `id`, `messages` in the OpenAI chat format and any
other fields, which a spec reads as `case.X`. Rows are checked against the
spec's `case {}` block: every declared field must be present (unless marked
`?`) and of its declared type. Problems are `RowProblem`s naming the field
(`messages[2].tool_calls[0].function.arguments`) and the reason in plain
words; `evaldsl.cases.loading` turns them into bad-row reports.

A tool call's `arguments` must be a string (JSON text, as the OpenAI format
has it) or an object; text that is not valid JSON is kept as an error value
on the call rather than rejected, because a model that emits broken JSON is
exactly what an evaluation must be able to see.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from evaldsl.cases.case import Case, Message, plain_message, read_case
from evaldsl.cases.fieldmap import FieldMap, Unmapped
from evaldsl.cases.unwritable import unwritable
from evaldsl.i18n import N_, _
from evaldsl.syntax import nodes as n

ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
_TYPE_CHECKS: dict[str, tuple[type, ...]] = {
    "text": (str,), "number": (int, float), "bool": (bool,), "list": (list,),
    "map": (dict,),
}
_EXACT = {"text": frozenset({str}), "number": frozenset({int, float}), "bool": frozenset({bool}),
          "list": frozenset({list}), "map": frozenset({dict})}
"""The exact types that pass `_has_type` for each kind (a `bool` is no number)."""
_TYPE_WORDS = {"text": N_("a text"), "number": N_("a number"), "bool": N_("true or false"),
               "list": N_("a list"), "map": N_("a map")}


class RowProblem(NamedTuple):
    field: str | None
    reason: str


@dataclass(frozen=True)
class CaseSchema:
    """How a row becomes a case: the fields a spec's `case {}` block declares (name ->
    (type, optional)) and, for a team's own log format, the field map that reads the row
    first. It travels with every reader, worker and Ray actor, so one map serves them all."""

    fields: Mapping[str, tuple[str, bool]]
    mapping: FieldMap | None = None

    @classmethod
    def of(cls, source: Any, mapping: FieldMap | None = None) -> CaseSchema:
        """From a `Spec`, a symbol table, case fields by name, or an iterable of them."""
        graph = getattr(source, "graph", None)
        symbols = getattr(graph, "symbols", None) or source
        fields = getattr(symbols, "case_fields", symbols)
        if isinstance(fields, Mapping):
            fields = fields.values()
        return cls({f.name: (f.type, f.optional) for f in _case_fields(fields)}, mapping)

    @cached_property
    def _exact(self) -> tuple[tuple[str, frozenset[type] | None, bool], ...]:
        """Each field with the exact types that surely have its declared type (None: any
        value has it) and whether it may be absent: what `first_problem` tells at a glance."""
        return tuple((name, _EXACT.get(kind), optional)
                     for name, (kind, optional) in self.fields.items())

    def first_problem(self, row: Mapping[str, Any]) -> RowProblem | None:
        """`problems(row)[0]`, or None: a field present with a value of an exact JSON type
        of its own, or absent and optional, is fine without a word built; at the first other
        one the full `problems` decide."""
        for name, exact, optional in self._exact:
            value = row.get(name)
            if value is None:
                if optional:
                    continue
            elif exact is None or type(value) in exact:
                continue
            problems = self.problems(row)
            return problems[0] if problems else None
        return None

    def problems(self, row: Mapping[str, Any]) -> list[RowProblem]:
        out = []
        for name, (kind, optional) in self.fields.items():
            value = row.get(name)
            if value is None:
                if not optional:
                    out.append(RowProblem(name, _("missing (the spec's `case` block requires it)")))
                continue
            if not _has_type(value, kind):
                out.append(
                    RowProblem(
                        name,
                        _("expected {TYPE_WORDS}, got {describe}").format(
                            TYPE_WORDS=_(_TYPE_WORDS[kind]), describe=_describe(value)
                        ),
                    )
                )
        return out


EMPTY_SCHEMA = CaseSchema({})


def _case_fields(items: Iterable[Any]) -> list[n.CaseField]:
    return [f for f in items if isinstance(f, n.CaseField)]


def _has_type(value: Any, kind: str) -> bool:
    if kind not in _TYPE_CHECKS:
        return True
    if isinstance(value, bool) and kind != "bool":
        return False
    return isinstance(value, _TYPE_CHECKS[kind])


def to_case(row: Any, schema: CaseSchema = EMPTY_SCHEMA, origin: str = "",
            screened: bool = False, owned: bool = False) -> Case | RowProblem:
    """The case a row describes, or the first problem with it. `screened`: the row was
    decoded from JSON text proven free of anything `unwritable` names, so it is not walked.
    `owned`: the row is a dict no one else holds (just decoded), so the case's fields are
    that dict with `id` and `messages` taken out rather than a copy of the rest."""
    if schema.mapping is not None:
        row, owned = schema.mapping.apply(row), False
        if isinstance(row, Unmapped):
            return RowProblem(row.field, row.reason)
    if type(row) is not dict and not isinstance(row, Mapping):  # a JSON row: no ABC check
        return RowProblem(
            None, _("a case must be an object, got {describe}").format(describe=_describe(row))
        )
    bad = None if screened else unwritable(row)
    if bad is not None:
        return RowProblem(bad.field, bad.reason)
    plain = _plain_messages(row.get("messages"))
    row_id = row.get("id")
    problem = (None if type(row_id) is str and row_id else _id_problem(row_id)) or (
        None if plain is not None else _messages_problem(row.get("messages")))
    if problem is None:
        problem = schema.first_problem(row)
    if problem is not None:
        return problem
    if plain is not None:
        if owned and type(row) is dict:
            del row["id"], row["messages"]
            return read_case(str(row_id), plain, row, origin)
        fields = {k: v for k, v in row.items() if k != "id" and k != "messages"}
        return read_case(str(row_id), plain, fields, origin)
    data = dict(row)
    data["id"] = str(row["id"])
    return Case.from_dict(data, origin)


_PLAIN_KEYS = frozenset({"role", "content", "latency_ms"})
_NUMBERS = (int, float)


def _plain_messages(messages: Any) -> tuple[Message, ...] | None:
    """The messages of the common row, checked and built in one pass: each an object of a
    role, a text and maybe a latency, as `Message.from_openai` reads it; None when any is of
    another shape (tool calls, content parts, a problem), which the full path reads."""
    if type(messages) is not list:
        return None
    out = []
    for message in messages:
        if type(message) is not dict:
            return None
        role, content = message.get("role"), message.get("content")
        if type(content) is not str or role not in ROLES:
            return None
        latency = message.get("latency_ms")
        if latency is None:
            # no other keys than `_PLAIN_KEYS`, counted: a role and a text are there
            if len(message) != (3 if "latency_ms" in message else 2):
                return None
        else:
            if len(message) != 3 or type(latency) not in _NUMBERS or latency < 0:
                return None
            latency = float(latency)
        out.append(plain_message(role, content, latency))
    return tuple(out)


def _id_problem(value: Any) -> RowProblem | None:
    if value is None:
        return RowProblem("id", "missing")
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        return RowProblem(
            "id",
            _("expected a non-empty text or an integer, got {describe}").format(
                describe=_describe(value)
            ),
        )
    return None


def _messages_problem(messages: Any) -> RowProblem | None:
    if messages is None:
        return RowProblem("messages", "missing")
    if not isinstance(messages, list):
        return RowProblem(
            "messages",
            _("expected a list of messages, got {describe}").format(describe=_describe(messages)),
        )
    for i, message in enumerate(messages):
        problem = _message_problem(message, f"messages[{i}]")
        if problem is not None:
            return problem
    return None


def _message_problem(message: Any, where: str) -> RowProblem | None:
    if not isinstance(message, Mapping):
        return RowProblem(
            where,
            _("a message must be an object, got {describe}").format(describe=_describe(message)),
        )
    role = message.get("role")
    if role not in ROLES:
        return RowProblem(
            f"{where}.role",
            _("expected one of system, user, assistant, tool, got {describe}").format(
                describe=_describe(role)
            ),
        )
    problem = _content_problem(message.get("content"), f"{where}.content")
    if problem is None and "latency_ms" in message:
        problem = _latency_problem(message["latency_ms"], f"{where}.latency_ms")
    if problem is None and message.get("tool_calls") is not None:
        problem = _tool_calls_problem(message["tool_calls"], f"{where}.tool_calls")
    return problem


def _content_problem(content: Any, where: str) -> RowProblem | None:
    if content is None or isinstance(content, str):
        return None
    if not isinstance(content, list):
        return RowProblem(
            where,
            _("expected a text or a list of content parts, got {describe}").format(
                describe=_describe(content)
            ),
        )
    for i, part in enumerate(content):
        if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
            return RowProblem(f"{where}[{i}]", _("a content part must be an object with a `type`"))
    return None


def _latency_problem(value: Any, where: str) -> RowProblem | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return RowProblem(
            where,
            _("expected a number of milliseconds, got {describe}").format(
                describe=_describe(value)
            ),
        )
    return None


def _tool_calls_problem(calls: Any, where: str) -> RowProblem | None:
    if not isinstance(calls, list):
        return RowProblem(
            where,
            _("expected a list of tool calls, got {describe}").format(describe=_describe(calls)),
        )
    for i, call in enumerate(calls):
        at = f"{where}[{i}]"
        function = call.get("function", call) if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping):
            return RowProblem(at, _("a tool call must be an object with a `function`"))
        if not isinstance(function.get("name"), str) or not function["name"]:
            return RowProblem(f"{at}.function.name", "missing")
        arguments = function.get("arguments", "{}")
        if arguments is not None and not isinstance(arguments, (str, Mapping)):
            return RowProblem(
                f"{at}.function.arguments",
                _("expected JSON text, got {describe}").format(describe=_describe(arguments)),
            )
    return None


def _describe(value: Any) -> str:
    """How a wrong value is quoted in a message: its kind and a short excerpt."""
    if value is None:
        return "null"
    kinds = {bool: N_("a bool"), int: N_("a number"), float: N_("a number"), str: N_("a text"),
             list: N_("a list"), dict: N_("a map")}
    kind = _(kinds[type(value)]) if type(value) in kinds else type(value).__name__
    text = repr(value)
    return f"{kind} `{text if len(text) <= 30 else text[:29] + '…'}`"
