"""Pins: the full result of a deterministic check from the fields an example fixes.

`given fast.value = 5000` in an example must mean what the check would have
said about a 5-second reply (failed, score 0), not merely "value 5000, passed".
Each function derives the rest of the result from the pinned value with the
check's own params; explicitly pinned fields always win.
"""

from __future__ import annotations

from typing import Any

from evaldsl.values import CheckResult


def overlay(result: CheckResult, fields: dict[str, Any]) -> CheckResult:
    """`result` with every pinned field set as given."""
    for key, value in fields.items():
        if key == "passed":
            result.passed = value
        elif key == "score":
            result.score = float(value)
        elif key == "value":
            result.value = value
        else:
            result.fields[key] = value
    return result


def measured(fields: dict[str, Any], passes: Any, extra: str = "") -> CheckResult:
    """A pass/fail result from a pinned measure (`value`), when one is pinned."""
    if "value" not in fields:
        passed = bool(fields.get("passed", True))
        return overlay(CheckResult.of(passed), fields)
    value = fields["value"]
    passed = bool(passes(value))
    result = CheckResult.of(passed, None, value)
    if extra:
        result.fields[extra] = value
    return overlay(result, fields)


def scored(fields: dict[str, Any], threshold: float) -> CheckResult:
    """A result from a pinned share (`score`): passed at `threshold` or above."""
    if "score" not in fields:
        return overlay(CheckResult.of(bool(fields.get("passed", True))), fields)
    score = float(fields["score"])
    return overlay(CheckResult.of(score >= threshold, score), fields)
