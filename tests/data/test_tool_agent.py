"""specs/tool_agent.eval on the BFCL cases: completion, refusal, strict vs normalized."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from evaldsl import Spec


@pytest.fixture(scope="module")
def report(shared_data: Path, bfcl: ModuleType, load: Callable[[str], Spec]) -> dict[str, Any]:
    cases = [rec.case for model in bfcl.MODELS for rec in bfcl.recorded(shared_data, model)]
    result: dict[str, Any] = load("tool_agent.eval").run(cases).to_dict()
    return result


def test_outcomes(report: dict[str, Any]) -> None:
    assert report["cases"] == 2848
    assert report["outcomes"]["outcome"] == {"completed": 1655, "failed": 1193, "error": 0}


@pytest.mark.parametrize(("metric", "numerator", "denominator", "where"), [
    ("end_to_end_completion", 1655, 2848, None),
    ("solvable_completion", 1485, 2648, "case.solvable"),
    ("refusal_handling", 170, 200, "not case.solvable"),
    ("strict_arg_accuracy", 1468, 2648, "case.solvable"),
    ("normalized_arg_accuracy", 1485, 2648, "case.solvable"),
    ("normalization_gain", None, 2648, "case.solvable"),  # a formula: its parts, below
])
def test_metric_denominators(report: dict[str, Any], metric: str, numerator: int | None,
                             denominator: int, where: str | None) -> None:
    m = report["metrics"][metric]
    assert (m["numerator"], m["denominator"], m["errors"], m["where"]) == (
        numerator, denominator, 0, where)


def test_all_cases_split_into_solvable_and_not(report: dict[str, Any]) -> None:
    m = report["metrics"]
    assert m["solvable_completion"]["denominator"] + m["refusal_handling"]["denominator"] == \
        m["end_to_end_completion"]["denominator"]
    assert m["solvable_completion"]["numerator"] + m["refusal_handling"]["numerator"] == \
        m["end_to_end_completion"]["numerator"]


def test_gain_is_the_difference(report: dict[str, Any]) -> None:
    m = report["metrics"]
    parts = m["normalization_gain"]["parts"]
    assert [(p["aggregate"], p["numerator"], p["denominator"]) for p in parts] == [
        ("rate(calls)", 1485, 2648), ("rate(calls.strict)", 1468, 2648)]
    assert m["normalization_gain"]["value"] == pytest.approx(
        m["normalized_arg_accuracy"]["value"] - m["strict_arg_accuracy"]["value"])
