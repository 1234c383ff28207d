"""The shipped example data (examples/) read through the loader and judged by its spec."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import evaldsl
from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.loading import read_cases
from evaldsl.cases.rows import CaseSchema

REPO = Path(__file__).resolve().parents[2]


def run(name: str) -> tuple[evaldsl.Spec, dict[str, Any], dict[str, dict[str, str]]]:
    spec = evaldsl.load(REPO / "specs" / f"{name}.eval")
    items = list(read_cases(REPO / "examples" / f"{name}.jsonl", CaseSchema.of(spec), "skip"))
    assert not [i for i in items if isinstance(i, BadRow)]
    labels = {c.id: spec.evaluate(c).labels for c in items if not isinstance(c, BadRow)}
    return spec, spec.run(items).to_dict(), labels  # type: ignore[arg-type]


def counts(report: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {n: (m["numerator"], m["denominator"]) for n, m in report["metrics"].items()}


def test_hospital_registration() -> None:
    _, report, labels = run("hospital_registration")
    assert report["outcomes"]["outcome"] == {"success": 5, "partial": 1, "failure": 2,
                                             "error": 0}
    assert labels["hosp-002"]["outcome"] == "partial"
    c = counts(report)
    assert c["挂号成功率"] == (5, 8) and c["证件脱敏率"] == (7, 8)
    assert c["成功时的完整度"][1] == 6
    assert report["metrics"]["平均完整度"]["value"] == pytest.approx(19 / 24)


def test_quality_monitoring() -> None:
    _, report, labels = run("quality_monitoring")
    assert report["outcomes"]["level"] == {"excellent": 7, "acceptable": 2, "poor": 1,
                                           "error": 0}
    assert labels["qm-004"]["level"] == "poor"
    assert counts(report)["差评中的违规"] == (1, 1)
    sampled = {s["id"]: s for s in report["review"]["sampled"]}
    assert "qm-004" in sampled
    assert sampled["qm-004"]["priority"] == pytest.approx(45)
    by_channel = report["metrics"]["各渠道合格率"]
    assert by_channel["by"] == ["case.channel"]
    assert [(g["key"], g["numerator"], g["denominator"], g["small"])
            for g in by_channel["groups"]] == [
        (["app"], 6.0, 6, True), (["web"], 3.0, 4, True)]  # qm-004, the poor one, is web


def test_tool_agent() -> None:
    _, report, _ = run("tool_agent")
    c = counts(report)
    assert c["end_to_end_completion"] == (4, 8)
    assert c["solvable_completion"] == (3, 6)
    assert c["refusal_handling"] == (1, 2)
    assert (c["strict_arg_accuracy"], c["normalized_arg_accuracy"]) == ((1, 6), (3, 6))


def test_bfcl() -> None:
    _, report, labels = run("bfcl")
    assert report["outcomes"]["outcome"] == {"valid": 4, "invalid": 2, "error": 0}
    assert labels["bfcl-ex-002"]["outcome"] == "invalid"


def test_sgd_service_calls() -> None:
    _, report, labels = run("sgd_service_calls")
    assert report["outcomes"]["outcome"] == {"consistent": 2, "inconsistent": 1, "error": 0}
    assert counts(report)["multi_service"] == (None, 0)
    assert labels["sgd-ex-003"]["outcome"] == "inconsistent"
