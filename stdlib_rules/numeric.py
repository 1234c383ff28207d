"""`numeric`: read a number from the reply and compare it with the expected one as a number.

Answers to arithmetic, prices, counts and dates are numbers written many ways:
`1,000`, `1000.0`, `1e3`, `一千`, `0.1万`. Comparing texts fails them all;
`numeric` reads the numbers of the reply (`evaldsl.stdlib.numerals`), takes
the last one (or the first, any, or the whole reply as one number), and
compares it with the target by value, within a tolerance, and with a table's
`units` in that unit (`5000 m` is `5 km`).
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import TEXT_SCOPES, Scope, Unit
from evaldsl.i18n import _
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.tables import IDENTITY, NormalizationTable, Tolerance
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib._common import Params, Table, over
from evaldsl.stdlib._pins import measured
from evaldsl.stdlib.numerals import Number, numbers_in, whole_number
from evaldsl.values import CheckResult

Target = float | str
"""A number, or a text that is one (`"60%"`, `"1e3"`, `"三百"`, `"5 km"` with a units table)."""

_UNIT_AFTER = re.compile(r"\s*([^\W\d_][^\s\d,.;:!?。，；：！？()（）]{0,7})")


class NumericParams(Params):
    expect: Target | list[Target]
    """The right number, or several acceptable ones."""
    location: Literal["last", "first", "any", "exact"] = "last"
    """Which number of the reply answers: the `last`, the `first`, `any` of them, or the
    whole reply as one number (`exact`)."""
    tolerance: float = Field(default=0.0, ge=0.0)
    """How far the number may be from the target (absolute); a table's tolerance also counts."""
    table: Table | None = None
    """A table whose `units` convert quantities (`5000 m` to km) and whose `tolerance` applies."""

    @field_validator("expect")
    @classmethod
    def _numbers(cls, expect: Target | list[Target]) -> Target | list[Target]:
        for target in expect if isinstance(expect, list) else [expect]:
            if isinstance(target, bool):
                raise ValueError(_("`{target}` is not a number").format(target=target))
        return expect

    @model_validator(mode="after")
    def _targets_read(self) -> NumericParams:
        targets(self)
        return self


def targets(params: NumericParams) -> list[Number]:
    """The expected numbers; a text that is not a number is a parameter error."""
    table = params.table or IDENTITY
    out = []
    for target in params.expect if isinstance(params.expect, list) else [params.expect]:
        number = _target(target, table)
        if number is None:
            raise ValueError(_("`{target}` is not a number").format(target=target))
        out.append(number)
    if not out:
        raise ValueError(_("give at least one expected number"))
    return out


def _target(target: Target, table: NormalizationTable) -> Number | None:
    if isinstance(target, (int, float)):
        return Number(float(target), False, 0, 0, str(target)) if math.isfinite(target) else None
    quantity = table.quantity(target)
    if quantity is not None:
        return Number(quantity, False, 0, len(target), target)
    return whole_number(target)


@primitive("numeric", params=NumericParams, scopes=TEXT_SCOPES, default_scope="last_reply",
           fields={"number": ValueType.NUMBER, "numbers": ValueType.LIST},
           cost=Cost.FREE, dynamic={"expect"},
           pin=lambda p, f: measured(f, lambda v: any(
               t.value == v for t in targets(p)), "number"))
def numeric(params: NumericParams) -> Any:
    """The reply's number (by default the last one) equals the expected number.

    Numbers are compared by value: `1,000`, `1000.0`, `1e3`, `一千` and `0.1万`
    are one number; `60%` answers only a percentage. `.number` (and `.value`)
    is the number compared, `.numbers` every number read from the reply.

        check 总价 = numeric(expect: case.total, tolerance: 0.01)
    """
    table = params.table or IDENTITY
    wanted = targets(params)
    tolerance, location = params.tolerance, params.location
    exact_only = not table.units and table.tolerance == Tolerance()
    close = None if exact_only else table.close  # with no tolerance, `close` is `==`
    expected = " / ".join(t.text for t in wanted)
    alone = wanted[0] if len(wanted) == 1 and location in ("last", "first") else None

    def equal(found: Number, target: Number) -> bool:
        if found.percent != target.percent:
            return False
        a, b = found.value, target.value
        return a == b or abs(a - b) <= tolerance or (close is not None and close(a, b))

    def judge(unit: Unit) -> CheckResult:
        found = _read(unit.text, table, location)
        if alone is not None:  # one target: the number of its kind at the location
            picked = _nearest(found, alone, location)
        else:
            picked = _pick(found, wanted, location, equal)
        numbers = [n.value for n in found]
        if picked is None:
            return CheckResult(False, 0.0, None, {"number": None, "numbers": numbers},
                               _no_number(location))
        fields = {"number": picked.value, "numbers": numbers}
        if equal(picked, alone) if alone is not None else any(equal(picked, t) for t in wanted):
            return CheckResult(True, 1.0, picked.value, fields)
        reason = _("read {found}, expected {expected}").format(found=picked.text.strip(),
                                                               expected=expected)
        return CheckResult(False, 0.0, picked.value, fields, reason)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, judge)

    return evaluate


def _read(text: str, table: NormalizationTable, location: str) -> list[Number]:
    """The numbers of `text` (with `exact`, the whole text as one number, or none)."""
    if location == "exact":
        quantity = table.quantity(text.strip()) if table.units else None
        if quantity is not None:
            return [Number(quantity, False, 0, len(text), text)]
        whole = whole_number(text)
        return [] if whole is None else [whole]
    found = numbers_in(text)
    return [_with_unit(n, text, table) for n in found] if table.units else found


def _with_unit(number: Number, text: str, table: NormalizationTable) -> Number:
    """`number` converted to the table's unit when a unit the table knows follows it."""
    if number.percent:
        return number
    after = _UNIT_AFTER.match(text, number.end)
    if after is None:
        return number
    word = after.group(1)
    for size in range(len(word), 0, -1):
        quantity = table.quantity(f"{number.value!r} {word[:size]}")
        if quantity is not None:
            end = after.start(1) + size
            return Number(quantity, False, number.start, end, text[number.start:end])
    return number


def _nearest(found: list[Number], target: Number, location: str) -> Number | None:
    """The last (or the first) number of `target`'s kind: what `_pick` gives for one target."""
    for number in reversed(found) if location == "last" else found:
        if number.percent == target.percent:
            return number
    return None


def _pick(found: list[Number], wanted: list[Number], location: str,
          equal: Any) -> Number | None:
    """The number that answers: one equal to a target if the location allows, else the
    number at the location for the first target's kind."""
    if location in ("any", "exact"):
        hit = next((n for n in found for t in wanted if equal(n, t)), None)
        return hit or next((n for n in found if n.same_kind(wanted[0])), None)
    ordered = found if location == "first" else found[::-1]
    candidates = [next((n for n in ordered if n.same_kind(t)), None) for t in wanted]
    pairs = zip(candidates, wanted, strict=True)
    hit = next((c for c, t in pairs if c is not None and equal(c, t)), None)
    return hit or next((c for c in candidates if c is not None), None)


def _no_number(location: str) -> str:
    if location == "exact":
        return _("the reply is not one number")
    return _("no number in the reply")
