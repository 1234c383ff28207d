"""Reading expected and actual tool calls from the forms a spec may give.

Expected calls may be one call `{name, args}` (or `arguments`), a list of
calls, BFCL's gold `{calls, expect_no_call, order_matters}`, or a bare map of
arguments for a call of any name. Actual calls come from the transcript's
`tool_calls`, or from `actual:` in the same forms, where `arguments` may be
the JSON text the OpenAI format uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from evaldsl.cases.case import ToolCall
from evaldsl.cases.scopes import Unit
from evaldsl.i18n import _
from evaldsl.stdlib.tools.argmatch import Call
from evaldsl.values import CheckResult

_CALL_KEYS = frozenset({"name", "args", "arguments", "id", "type", "function", "server",
                        "server_label"})


class Gold(NamedTuple):
    calls: list[Call]
    expect_no_call: bool
    order_matters: bool


def expected_calls(value: Any) -> Gold | CheckResult:
    """The expected calls, or an error result saying why they are unreadable."""
    if isinstance(value, Mapping) and "calls" in value:
        calls = _calls(value.get("calls") or [])
        if isinstance(calls, CheckResult):
            return calls
        return Gold(calls, bool(value.get("expect_no_call")), bool(value.get("order_matters")))
    calls = _calls(value)
    return calls if isinstance(calls, CheckResult) else Gold(calls, False, False)


def given_calls(value: Any) -> list[Call] | CheckResult:
    """Calls given with `actual:`: the same forms as expected calls."""
    return _calls(value)


def scope_calls(unit: Unit) -> list[Call]:
    """The assistant's tool calls in a unit, as `Call`s."""
    return [Call(c.name, c.arguments) for m in unit.messages if m.role == "assistant"
            for c in m.tool_calls]


def _calls(value: Any) -> list[Call] | CheckResult:
    if isinstance(value, list):
        out = []
        for item in value:
            call = read_call(item)
            if call is None:
                return CheckResult.error(
                    _("`{item}` is not a tool call").format(item=_short(item))
                )
            out.append(call)
        return out
    if isinstance(value, Mapping):
        call = read_call(value)
        return [call] if call is not None else [Call(None, dict(value))]
    return CheckResult.error(_("expected tool calls are neither a call, a list nor a map"))


def read_call(item: Any) -> Call | None:
    """`{name, args}`, OpenAI's `{function: {name, arguments}}` or BFCL's `{name: {args}}`."""
    if not isinstance(item, Mapping):
        return None
    if "function" in item and isinstance(item["function"], Mapping):
        item = item["function"]
    if isinstance(item.get("name"), str) and set(item) <= _CALL_KEYS:
        tool = ToolCall.from_openai({"name": item["name"],
                                     "arguments": item.get("args", item.get("arguments", {}))})
        return Call(tool.name, tool.arguments)
    if len(item) == 1:
        name, args = next(iter(item.items()))
        if isinstance(args, Mapping):
            return Call(str(name), dict(args))
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
