"""Reports and journal lines are standard JSON: a non-finite number is written as null."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from evaldsl.report.journal import encode
from evaldsl.report.writers import render_json


def _strict(text: str) -> Any:
    def refuse(word: str) -> Any:
        raise AssertionError(f"non-standard JSON constant {word}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_report_json_writes_non_finite_as_null(value: float) -> None:
    report = {"metrics": {"mean": value, "cells": [1.5, value]}, "ok": 2.0}
    assert _strict(render_json(report)) == {
        "metrics": {"mean": None, "cells": [1.5, None]},
        "ok": 2.0,
    }


def test_journal_line_writes_non_finite_as_null() -> None:
    line = encode({"id": "c1", "score": math.nan, "values": (math.inf, 1)})
    assert _strict(line.decode("utf-8")) == {"id": "c1", "score": None, "values": [None, 1]}


def test_finite_report_is_unchanged() -> None:
    report = {"a": [1, 2.5, {"b": None}]}
    assert render_json(report) == json.dumps(report, ensure_ascii=False, indent=2) + "\n"
