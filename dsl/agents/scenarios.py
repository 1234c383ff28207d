"""Scenario files: case rows whose `messages` are the user's turns, as plain strings.

    {"id": "ac-1", "messages": ["我家空调坏了，想预约维修", "我叫张三"], "intent": "booking",
     "tool_results": [{"name": "book", "arguments": {"day": "周五"}, "result": {"ok": true}}]}

Each row becomes a case whose messages are its user turns (role `user`), read and checked
as any case file's rows are (`evaldsl.cases.loading`: the same formats, bad rows reported
by file and line, the spec's `case {}` block enforced), so that `--where`, `--ids` and
`--sample` select scenarios as they select cases. `tool_results`, optional, are the canned
results the `openai` target hands back (`evaldsl.agents.canned`). A row may give `user`, a
simulated user's brief (`evaldsl.agents.user_brief`), instead of or after its `messages`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from evaldsl.agents import canned, user_brief
from evaldsl.agents.driver import TOOL_RESULTS
from evaldsl.agents.user_brief import USER
from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.loading import Item, RawRow, read_rows
from evaldsl.cases.rows import EMPTY_SCHEMA, CaseSchema
from evaldsl.i18n import _


def read_scenarios(paths: Iterable[str | Path], schema: CaseSchema = EMPTY_SCHEMA,
                   ) -> Iterator[Item]:
    """Every scenario row of the files as a case of user turns, or a bad row."""
    for row in read_rows(paths):
        data = _decoded(row)
        if data is None:
            continue
        if not isinstance(data, BadRow) and isinstance(data, dict):
            data = _as_turns(row, data)
        item = RawRow(row.file, row.line, data).item(schema)
        if item is not None:
            yield item


def _decoded(row: RawRow) -> Any:
    """A row's value: a JSONL line decoded (None when blank), anything else as read."""
    if not isinstance(row.data, bytes):
        return row.data
    try:
        text = row.data.decode("utf-8").lstrip("\ufeff")
        return json.loads(text) if text.strip() else None
    except ValueError as exc:
        return BadRow(row.file, row.line, _("not valid JSON: {exc}").format(exc=exc))


def _as_turns(row: RawRow, data: dict[str, Any]) -> dict[str, Any] | BadRow:
    """The row with its user strings as chat messages, or why it is no scenario."""
    simulated = USER in data
    messages = data.get("messages", [] if simulated else None)
    if not isinstance(messages, list) or not (messages or simulated) or not all(
            isinstance(m, str) for m in messages):
        return BadRow(row.file, row.line, _("a scenario's `messages` is a non-empty list of "
                                            "the user's messages, as texts (or give `user`, a "
                                            "simulated user)"), "messages")
    for name, check in ((TOOL_RESULTS, canned.problem), (USER, user_brief.problem)):
        problem = check(data[name]) if name in data else None
        if problem is not None:
            return BadRow(row.file, row.line, problem, name)
    return {**data, "messages": [{"role": "user", "content": m} for m in messages]}
