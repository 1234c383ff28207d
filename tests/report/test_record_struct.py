"""The fast shape check of a journal line accepts exactly what `record_shape` accepts."""

from __future__ import annotations

import copy
import json
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.api import loads
from evaldsl.report.record_shape import problem
from evaldsl.report.record_struct import convert, decoder
from tests.report.test_record_shape import GOOD
from tests.support import run_kit

PLAN = loads(run_kit.SPEC).new_report().plan

DELETE = object()
"""A mutation that removes the field."""

VALUES: list[Any] = [
    DELETE, None, True, False, 0, 1, -1, 2.5, 1e300, "x", "", "success", "partial", "error",
    "passed", "failed", "greets", "short", [], [True], [True, False], [1, "a"], [None, 0.5],
    ["short"], ["nope"], [[1]], {}, {"error": "e"}, {"error": 1}, {"error": "e", "x": 1},
    {"status": "passed"}, {"status": "bad"}, {"sampled": True}, {"sampled": True, "draw": True},
    {"k": "v"}, {"k": 1},
]

PATHS: list[tuple[str, ...]] = [
    ("id",), ("row",), ("labels",), ("labels", "outcome"), ("labels", "other"),
    ("branches",), ("branches", "outcome"), ("errors",), ("errors", "k"), ("checks",),
    ("checks", "greets"), ("checks", "greets", "status"), ("checks", "greets", "passed"),
    ("checks", "greets", "score"), ("checks", "greets", "reason"), ("checks", "nope"),
    ("checks", "fast", "passed"), ("skipped",), ("metrics",), ("metrics", "success_rate"),
    ("metrics", "fast_rate"), ("metrics", "avg_short"), ("metrics", "nope"), ("review",),
    ("review", "sampled"), ("review", "draw"), ("review", "priority"), ("review", "error"),
    ("trace",), ("lets",), ("lets", "score"), ("groups",), ("groups", "success_rate"),
    ("groups", "nope"),
]


def _mutated(changes: list[tuple[tuple[str, ...], Any]]) -> dict[str, Any]:
    record = copy.deepcopy(GOOD)
    for path, value in changes:
        parent: Any = record
        for key in path[:-1]:
            parent = parent.get(key) if isinstance(parent, dict) else None
        if not isinstance(parent, dict):
            continue
        if value is DELETE:
            parent.pop(path[-1], None)
        else:
            parent[path[-1]] = copy.deepcopy(value)
    return record


def _fast_accepts(record: dict[str, Any]) -> bool:
    try:
        decoder(PLAN).decode(json.dumps(record).encode())
    except msgspec.ValidationError:
        return False
    return True


class TestSameAnswers:
    @settings(max_examples=600, deadline=None)
    @given(st.lists(st.tuples(st.sampled_from(PATHS), st.sampled_from(VALUES)), max_size=3))
    def test_the_fast_path_accepts_exactly_the_lines_the_full_check_accepts(
            self, changes: list[tuple[tuple[str, ...], Any]]) -> None:
        record = _mutated(changes)
        assert _fast_accepts(record) == (problem(record, PLAN) is None), record

    def test_a_line_as_a_run_writes_it_is_accepted(self) -> None:
        assert _fast_accepts(GOOD) and problem(GOOD, PLAN) is None

    def test_an_accepted_line_converts_to_what_decoding_gives(self) -> None:
        line = decoder(PLAN).decode(json.dumps(GOOD).encode())
        assert convert(GOOD, PLAN) == line
        assert (line.id, line.metrics.m0, line.checks.c0.status) == (
            "c1", (True, False), "passed")

    def test_a_number_json_reads_but_msgspec_cannot_is_left_to_the_full_check(self) -> None:
        """`NaN` is JSON to Python only: the fast path refuses, the full check accepts and the
        line converts."""
        raw = json.dumps({**GOOD, "review": {**GOOD["review"], "draw": float("nan")}})
        record = json.loads(raw)
        assert not _fast_accepts_raw(raw) and problem(record, PLAN) is None
        assert convert(record, PLAN) is not None


def _fast_accepts_raw(raw: str) -> bool:
    try:
        decoder(PLAN).decode(raw.encode())
    except (msgspec.ValidationError, msgspec.DecodeError):
        return False
    return True
