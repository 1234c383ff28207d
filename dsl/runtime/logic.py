"""Three-valued logic (plus "not yet known") and the operators built on it.

Values in an evaluation are plain Python values, `ErrorValue` (could not be
computed) or `PENDING` (a model check this round has not resolved yet).
`and`/`or` follow CEL and are commutative: `false and x` is `false` and
`true or x` is `true` whatever `x` is; otherwise an unknown operand makes the
result unknown, and `PENDING` beats an error because the pending operand may
still turn out to decide the result. Arithmetic and comparison propagate an
error (which decides the result) before `PENDING`.

>>> and_values([True, ErrorValue("x"), False])
False
>>> or_values([ErrorValue("x"), True])
True
>>> and_values([True, ErrorValue("x")])
ErrorValue(reason='x', source='')
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from evaldsl.values import CheckResult, ErrorValue


class _Pending:
    """The value of something a later round will know; never a Python truth value."""

    __slots__ = ()

    def __bool__(self) -> bool:
        raise TypeError("a pending value has no truth value yet")

    def __repr__(self) -> str:
        return "PENDING"


PENDING: Any = _Pending()
PENDING_RESULT = CheckResult(PENDING, PENDING, PENDING, {}, "not resolved yet")
"""The result of a model check while its request is outstanding."""

SPECIAL = frozenset({ErrorValue, _Pending})
"""Types of values that are not known: test with `type(v) in SPECIAL`."""


def and_values(values: Iterable[Any]) -> Any:
    """CEL `and` over values already coerced to conditions."""
    unknown: Any = None
    for v in values:
        if v is False:
            return False
        if v is not True and (unknown is None or v is PENDING):
            unknown = v
    return True if unknown is None else unknown


def or_values(values: Iterable[Any]) -> Any:
    """CEL `or` over values already coerced to conditions."""
    unknown: Any = None
    for v in values:
        if v is True:
            return True
        if v is not False and (unknown is None or v is PENDING):
            unknown = v
    return False if unknown is None else unknown


def not_value(v: Any) -> Any:
    if v is True:
        return False
    if v is False:
        return True
    return v


def describe(value: Any) -> str:
    """A value's kind in the words of the language, for error reasons."""
    if isinstance(value, bool):
        return "a condition"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a map"
    if value is None:
        return "nothing (null)"
    if isinstance(value, CheckResult):
        return "a check result"
    return type(value).__name__


def to_condition(v: Any) -> Any:
    """A value read where a condition is wanted: a check result means `.passed`."""
    if v is True or v is False or type(v) in SPECIAL:
        return v
    if type(v) is CheckResult:
        return v.passed
    return ErrorValue(f"expected a condition, got {describe(v)}")


def to_number(v: Any) -> Any:
    """A value read where a number is wanted: a check result means `.score`."""
    t = type(v)
    if t is float or t is int or t in SPECIAL:
        return v
    if t is CheckResult:
        return v.score
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    return ErrorValue(f"expected a number, got {describe(v)}")


def arith(op: str, a: Any, b: Any) -> Any:
    """`+ - * /` on two numbers (already checked to be numbers)."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        return ErrorValue("division by zero")
    return a / b


def compare(op: str, a: Any, b: Any) -> Any:
    """`== != < <= > >=` on two known values."""
    if op == "==":
        return equal(a, b)
    if op == "!=":
        return not equal(a, b)
    if _is_number(a) and _is_number(b) or type(a) is str and type(b) is str:
        if op == "<":
            return a < b
        if op == "<=":
            return a <= b
        if op == ">":
            return a > b
        return a >= b
    return ErrorValue(f"cannot order {describe(a)} and {describe(b)}")


def equal(a: Any, b: Any) -> bool:
    """Equality without Python's `True == 1`; numbers compare by value."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a is b
    if _is_number(a) and _is_number(b):
        return bool(a == b) or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


def contains(item: Any, container: Any) -> Any:
    """`item in container`: list membership, map key, or text within text."""
    if isinstance(container, (list, tuple)):
        return any(equal(item, x) for x in container)
    if isinstance(container, dict):
        return isinstance(item, str) and item in container
    if isinstance(container, str):
        if isinstance(item, str):
            return item in container
        return ErrorValue(f"cannot look for {describe(item)} in a text")
    return ErrorValue(f"`in` needs a list, a map or a text, got {describe(container)}")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def first_unknown(*values: Any) -> Any:
    """For propagating operators: the first error, else PENDING if any, else None."""
    pending = False
    for v in values:
        t = type(v)
        if t is ErrorValue:
            return v
        if t is _Pending:
            pending = True
    return PENDING if pending else None
