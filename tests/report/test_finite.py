"""Reports and journal lines are standard JSON: a non-finite number is written as null."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from evaldsl.report.document import ReportDoc
from evaldsl.report.journal import encode
from evaldsl.report.writers import render_json


def _strict(text: str) -> Any:
    def refuse(word: str) -> Any:
        raise AssertionError(f"non-standard JSON constant {word}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_report_json_writes_non_finite_as_null(value: float, report: ReportDoc) -> None:
    report.metrics[0].value = value
    report.worst_cases[0].checks[0].value = {"cells": [1.5, value]}
    written = _strict(render_json(report))
    assert written["metrics"][0]["value"] is None
    assert written["worst_cases"][0]["checks"][0]["value"] == {"cells": [1.5, None]}
    assert written["metrics"][1]["value"] == 0.6


def test_journal_line_writes_non_finite_as_null() -> None:
    line = encode({"id": "c1", "score": math.nan, "values": (math.inf, 1)})
    assert _strict(line.decode("utf-8")) == {"id": "c1", "score": None, "values": [None, 1]}


def test_finite_report_is_unchanged(report: ReportDoc) -> None:
    plain = report.to_dict()
    assert render_json(report) == json.dumps(plain, ensure_ascii=False, indent=2) + "\n"
