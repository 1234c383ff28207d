"""Canned tool results: what a tool returns in a scenario, keyed by name and arguments.

A scenario row's `tool_results` lists `{name, arguments, result}`; when the agent under
test calls a tool, the result whose name matches and whose arguments equal the call's
(compared as JSON values, so key order and spacing do not matter) is handed back. A call
without a canned result is not guessed at: the conversation fails, naming the call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evaldsl.i18n import _
from evaldsl.model.errors import PermanentError


@dataclass(frozen=True)
class CannedResult:
    name: str
    arguments: Any
    """The arguments as a JSON value; None matches any arguments."""
    result: Any


class CannedResults:
    """The `tool_results` of one scenario, looked up call by call."""

    def __init__(self, results: Iterable[CannedResult]) -> None:
        self.results = tuple(results)

    @classmethod
    def of(cls, rows: Sequence[Mapping[str, Any]]) -> CannedResults:
        """From the rows a scenario gives (checked by `problem` when it was read)."""
        return cls(CannedResult(str(r["name"]), _decoded(r.get("arguments")), r.get("result"))
                   for r in rows)

    def result_for(self, name: str, raw_arguments: Any) -> str:
        """The canned result of a call, as the text of a tool message."""
        arguments = _decoded(raw_arguments)
        for canned in self.results:
            if canned.name == name and canned.arguments in (None, arguments):
                value = canned.result
                return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        raise PermanentError(_("no canned result for the tool call {name}({arguments}) in the "
                               "scenario's `tool_results`").format(
            name=name, arguments=json.dumps(arguments, ensure_ascii=False)))


def _decoded(arguments: Any) -> Any:
    """Arguments given as JSON text read as the value they spell; anything else as is."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def problem(value: Any) -> str | None:
    """What is wrong with a scenario's `tool_results`, or None."""
    if not isinstance(value, list):
        return _("expected a list of objects with `name`, `arguments` and `result`")
    for i, row in enumerate(value):
        if not isinstance(row, Mapping) or not isinstance(row.get("name"), str):
            return _("item {index} needs a `name`").format(index=i)
        if "result" not in row:
            return _("item {index} needs a `result`").format(index=i)
    return None
