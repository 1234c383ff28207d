"""Runtime values: the error value of three-valued logic and check results.

An `ErrorValue` stands for "this could not be computed" (a judge timed out, a
case field is absent). It is a value, not an exception, so `false and error`
can still be `false` (CEL semantics, LANGUAGE.md). It refuses to be used as a
Python truth value, which turns any accidental `if error:` into a loud bug.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ErrorValue:
    """A value that could not be computed, with the reason why."""

    reason: str
    source: str = ""
    """Where it came from: a check name, `case.field`, an expression."""

    def __bool__(self) -> bool:
        raise TypeError(f"an error value has no truth value: {self.reason}")

    def __str__(self) -> str:
        return f"error({self.source}: {self.reason})" if self.source else f"error({self.reason})"


def is_error(value: object) -> bool:
    return type(value) is ErrorValue


@dataclass(slots=True)
class CheckResult:
    """What one check gave for one case.

    `passed` and `score` are an `ErrorValue` when the check could not decide;
    `fields` holds a primitive's own result fields (`label`, `filled`,
    `mismatches`, ...). `reason` is a short human explanation for reports.
    """

    passed: bool | ErrorValue
    score: float | ErrorValue
    value: Any = None
    fields: dict[str, Any] = field(default_factory=dict)
    reason: str = ""

    @classmethod
    def of(cls, passed: bool, score: float | None = None, value: Any = None,
           reason: str = "", **fields: Any) -> CheckResult:
        """A decided result; `score` defaults to 1.0 or 0.0 and `value` to `score`."""
        if score is None:
            score = 1.0 if passed else 0.0
        return cls(passed, score, score if value is None else value, fields, reason)

    @classmethod
    def error(cls, reason: str, source: str = "", **fields: Any) -> CheckResult:
        """A result that could not be computed: every field is the same error."""
        err = ErrorValue(reason, source)
        return cls(err, err, err, fields, reason)

    @property
    def is_error(self) -> bool:
        return type(self.passed) is ErrorValue

    def get(self, name: str, source: str = "") -> Any:
        """A result field by name: the one way every part of evaldsl reads one.

        A result that is not decided (`passed` an error, or pending while a
        model check is outstanding) has that same non-value in every field it
        lacks; a decided result without the field gives an error naming `source`.
        """
        if name == "passed":
            return self.passed
        if name == "score":
            return self.score
        if name == "value":
            return self.value
        if name in self.fields:
            return self.fields[name]
        passed = self.passed
        if passed is not True and passed is not False:
            return passed
        return ErrorValue(f"the result has no field `{name}`", source)

    def to_dict(self) -> dict[str, Any]:
        out = {"passed": _plain(self.passed), "score": _plain(self.score),
               "value": _plain(self.value)}
        out.update({k: _plain(v) for k, v in self.fields.items()})
        if self.reason:
            out["reason"] = self.reason
        return out


def _plain(value: Any) -> Any:
    """A JSON-ready form: error values become `{"error": reason}`."""
    if type(value) is ErrorValue:
        return {"error": value.reason}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
