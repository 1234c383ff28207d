"""Three-valued logic (plus "not yet known"): how every non-value combines, written once.

Values in an evaluation are plain Python values or one of these non-values:

    non-value            what it means                          where it lives
    ErrorValue           could not be computed (has a reason)   any expression, any result field
    PENDING              a model check this round has not       any expression, until the round
                         resolved yet; never a truth value      that resolves it
    MISSING              a frame slot not computed yet          frame slots only, never an operand
    None (unknown)       an aggregate with nothing to count     metric formulas at report time
                         in its denominator, or `x / 0`
    MetricError          this case's metric input is an error   a metric's per-case input: the
                                                                case is left out, and counted

How they combine:

    operator                 rule                                              function
    `and`, `or` (CEL)        commutative; `false and x` is `false` and         and_pair, or_pair,
                             `true or x` is `true` whatever x is; otherwise    and_values,
                             PENDING beats an error (the pending operand may   or_values
                             still decide), else the first error
    `not`                    passes a non-value through                        not_value
    strict operators         arithmetic, comparison, `in`, indexing, list      first_unknown
    (and a metric's inputs)  and map literals: the first error decides (what
                             follows need not be read), else PENDING, else
                             the operation on known values
    conditions in order      outcome branches, review rules, a `where`: the    within
                             first value that is not `false` decides; an
                             error is attributed to where it arose
    metric formulas          None propagates through `+ - * /`; `/ 0` is None  formula_arith
    a result's fields        one reader, `CheckResult.get`: a result whose     CheckResult.get
                             `passed` is unknown has every field unknown

Evaluators may stop reading operands once one decides (`false` for `and`,
`true` for `or`, an error for a strict operator), so a model check is asked for
only when the cheap operands leave the result open; to combine the values
they did read, they call the functions here.

>>> and_values([True, ErrorValue("x"), False])
False
>>> or_values([ErrorValue("x"), True])
True
>>> and_values([True, ErrorValue("x")])
ErrorValue(reason='x', source='')
>>> and_pair(ErrorValue("x"), PENDING)
PENDING
>>> formula_arith("/", 1.0, 0.0) is None
True
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


def and_pair(a: Any, b: Any) -> Any:
    """CEL `a and b` over values already coerced to conditions."""
    if a is False or b is False:
        return False
    if a is True:
        return b
    if b is True:
        return a
    return b if b is PENDING else a


def or_pair(a: Any, b: Any) -> Any:
    """CEL `a or b` over values already coerced to conditions."""
    if a is True or b is True:
        return True
    if a is False:
        return b
    if b is False:
        return a
    return b if b is PENDING else a


def and_values(values: Iterable[Any]) -> Any:
    """CEL `and` over values already coerced to conditions; stops reading at `false`."""
    result: Any = True
    for v in values:
        if v is False:
            return False
        result = and_pair(result, v)
    return result


def or_values(values: Iterable[Any]) -> Any:
    """CEL `or` over values already coerced to conditions; stops reading at `true`."""
    result: Any = False
    for v in values:
        if v is True:
            return True
        result = or_pair(result, v)
    return result


def not_value(v: Any) -> Any:
    """`not v`: a non-value stays what it is."""
    if v is True:
        return False
    if v is False:
        return True
    return v


def within(v: Any, source: str) -> Any:
    """A condition's non-value as the decision of what reads conditions in order.

    PENDING stays pending; an error keeps its reason, prefixed with where it
    arose, and is attributed to `source` (the branch or rule as written).
    """
    if v is PENDING:
        return PENDING
    reason = f"{v.source}: {v.reason}" if v.source else v.reason
    return ErrorValue(reason, source)


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
    """For strict operators: the first error, else PENDING if any, else None."""
    pending = False
    for v in values:
        t = type(v)
        if t is ErrorValue:
            return v
        if t is _Pending:
            pending = True
    return PENDING if pending else None


def formula_arith(op: str, a: float | None, b: float | None) -> float | None:
    """`+ - * /` in a metric formula: unknown (None) propagates, and `x / 0` is unknown."""
    if a is None or b is None:
        return None
    result = arith(op, a, b)
    return None if type(result) is ErrorValue else result
