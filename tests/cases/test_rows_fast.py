"""The common row (messages of a role, a text and a latency) is read in one pass: the same
case, or the same problem, as the full reading of any row."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.cases.case import Case
from evaldsl.cases.rows import CaseSchema, _messages_problem, to_case

_ABSENT = object()

ROWS: list[dict[str, Any]] = [
    {"id": 7, "messages": [{"role": "user", "content": "hi"},
                           {"role": "assistant", "content": "你好", "latency_ms": 812}],
     "lang": "zh", "expect": {"k": [1, 2]}},
    {"id": "a", "messages": [{"role": "assistant", "content": "", "latency_ms": 0.5}]},
    {"id": "a", "messages": [{"role": "assistant", "content": "x", "latency_ms": None}]},
    {"id": "b", "messages": []},
    {"id": "c", "messages": [{"role": "assistant", "content": "x", "latency_ms": True}]},
    {"id": "c", "messages": [{"role": "assistant", "content": "x", "latency_ms": -1}]},
    {"id": "c", "messages": [{"role": "robot", "content": "x"}]},
    {"id": "c", "messages": [{"role": "user", "content": None}]},
    {"id": "c", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
    {"id": "d", "messages": [{"role": "assistant", "content": "x", "recorded": False}]},
    {"id": "d", "messages": [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "t1", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "content": "ok", "tool_call_id": "t1"}]},
    {"id": "d", "messages": [{"role": "user", "content": "x", "name": "bob"}]},
    {"id": "d", "messages": [{"role": "assistant", "content": "x", "latency_ms": 5,
                              "name": "bot"}]},
    {"id": "d", "messages": [{"role": "assistant", "content": "x", "latency_ms": None,
                              "tool_call_id": None}]},
    {"id": "d", "messages": [{"content": "x", "latency_ms": 5, "name": "bot"}]},
    {"id": "e", "messages": "hi"},
    {"id": "e", "messages": [["user", "hi"]]},
]


def _full(row: dict[str, Any]) -> Any:
    """The full reading: every message checked, then built by `Case.from_dict`."""
    problem = _messages_problem(row.get("messages"))
    if problem is not None:
        return problem
    return Case.from_dict({**row, "id": str(row["id"])}, "f.jsonl:1")


@pytest.mark.parametrize("row", ROWS, ids=range(len(ROWS)))
def test_a_row_reads_as_the_full_reading_reads_it(row: dict[str, Any]) -> None:
    assert to_case(row, origin="f.jsonl:1") == _full(row)


KINDS = ["text", "number", "bool", "list", "map", "any"]
VALUES = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=2) | st.lists(
    st.integers(), max_size=1) | st.dictionaries(st.text(max_size=1), st.integers(), max_size=1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.booleans()), max_size=4),
       st.lists(st.one_of(st.just(_ABSENT), VALUES), min_size=4, max_size=4))
def test_the_first_problem_is_the_first_of_the_problems(kinds: list[tuple[str, bool]],
                                                         values: list[Any]) -> None:
    schema = CaseSchema({f"f{i}": kind for i, kind in enumerate(kinds)})
    row = {f"f{i}": value for i, value in enumerate(values) if value is not _ABSENT}
    assert schema.first_problem(row) == next(iter(schema.problems(row)), None)
