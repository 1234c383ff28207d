"""Pinned fields in examples (`given fast.value = 5000`) give the result the check would."""

from __future__ import annotations

from typing import Any

import pytest

from evaldsl.primitives.registry import default_registry
from evaldsl.values import CheckResult


def pin(name: str, fields: dict[str, Any], /, **params: Any) -> CheckResult:
    primitive = default_registry().get(name)
    assert primitive is not None and primitive.pin is not None
    return primitive.pin(primitive.params.model_validate(params), fields)


@pytest.mark.parametrize(("name", "params", "fields", "passed"), [
    ("latency", {"max_ms": 3000}, {"value": 5000}, False),
    ("latency", {"max_ms": 3000}, {"value": 800}, True),
    ("length", {"max_chars": 100}, {"value": 150}, False),
    ("length", {"min_chars": 10}, {"value": 12}, True),
    ("turns", {"max": 8}, {"value": 9}, False),
    ("safety", {}, {"value": 2}, False),
    ("safety", {}, {"value": 0}, True),
    ("tool_called", {"name": "转人工", "max_times": 0}, {"value": 1}, False),
    ("tool_called", {"name": "查询"}, {"value": 2}, True),
    ("keyword", {"all": ["a", "b"], "min_ratio": 0.5}, {"score": 0.5}, True),
    ("keyword", {"all": ["a", "b"]}, {"score": 0.5}, False),
    ("signals", {"min": 0}, {"value": -0.5}, False),
])
def test_pinned_measure_decides_the_verdict(name: str, params: dict[str, Any],
                                            fields: dict[str, Any], passed: bool) -> None:
    assert pin(name, fields, **params).passed is passed


def test_signals_score_follows_value() -> None:
    assert pin("signals", {"value": 0.5}).score == pytest.approx(0.75)


def test_latency_keeps_the_pinned_value() -> None:
    result = pin("latency", {"value": 5000}, max_ms=3000)
    assert (result.value, result.fields["slowest_ms"], result.score) == (5000, 5000, 0.0)


def test_explicit_fields_win() -> None:
    assert pin("latency", {"value": 5000, "passed": True}, max_ms=3000).passed is True


class TestArgsMatchPins:
    def test_strict_implies_passed(self) -> None:
        result = pin("args_match", {"strict": True}, expected={"a": 1})
        assert (result.passed, result.get("strict")) == (True, True)

    def test_failed_is_never_strict(self) -> None:
        result = pin("args_match", {"passed": False, "strict": True}, expected={"a": 1})
        assert (result.passed, result.get("strict")) == (False, False)

    def test_normalized_pass_only(self) -> None:
        result = pin("args_match", {"strict": False}, expected={"a": 1})
        assert (result.passed, result.get("strict")) == (True, False)
