"""`contains_json`: some JSON value inside the reply's prose (valid against a schema, if given).

`json_schema` demands that the reply *is* JSON; many agents answer with a
sentence and then a fenced block, or put an object in the middle of a
sentence. This primitive finds those values (`evaldsl.stdlib.json_scan`) and
passes when one of them validates, or, with `all: true`, when every one does.
It is a primitive of its own, not an option of `json_schema`, because its
schema is optional and its value and score mean different things: which
values were found, and how many of them hold.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import field_validator

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import REPLY_SCOPES, Scope, Unit
from evaldsl.i18n import _
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.timed_match import timeout_reason
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib._common import Params, over
from evaldsl.stdlib.json_scan import MAX_CHARS, MAX_OPENINGS, Bound, Found, iter_json
from evaldsl.stdlib.schema_regex import timed_validator
from evaldsl.stdlib.structure import describe, valid_schema
from evaldsl.values import CheckResult

MAX_ERRORS = 10
"""Validation errors kept in `.errors`, over all the values found."""

with warnings.catch_warnings():
    # `schema` shadows pydantic's deprecated `BaseModel.schema()`, as in `json_schema`.
    warnings.filterwarnings("ignore", message='Field name "schema"', category=UserWarning)

    class ContainsJsonParams(Params):
        schema: dict[str, Any] | None = None  # type: ignore[assignment]
        """The JSON Schema a value must validate against; none: any object or array."""
        all: bool = False
        """Every value found must validate, not just one."""
        arrays: bool = True
        """Count arrays found in the prose; false: objects only (promptfoo's reading)."""

        @field_validator("schema")
        @classmethod
        def _valid_schema(cls, schema: dict[str, Any] | None) -> dict[str, Any] | None:
            return None if schema is None else valid_schema(schema)


@primitive("contains_json", params=ContainsJsonParams, scopes=REPLY_SCOPES,
           default_scope="last_reply",
           fields={"values": ValueType.LIST, "count": ValueType.NUMBER,
                   "errors": ValueType.LIST},
           cost=Cost.CHEAP, value_type=ValueType.ANY, dynamic={"schema"})
def contains_json(params: ContainsJsonParams) -> Any:
    """Some JSON object or array in the reply's text validates against `schema`.

    `.value` is the first valid value (with `all: true`, the list of values);
    `.values` lists every value found and `.count` how many; `.errors` the
    validation errors as `#n path: message`, n counting the values found.
    `.score` is 1 or 0, with `all: true` the share of values that validate.

        check 附带订单 = contains_json(schema: {type: "object", required: ["订单号"]})
    """
    validator = timed_validator(params.schema) if params.schema is not None else None

    def errors_of(data: Any) -> list[str]:
        return [] if validator is None else [describe(e) for e in validator.iter_errors(data)]

    def judge(unit: Unit) -> CheckResult:
        try:
            return _verdict(_judged(iter_json(unit.text, params.arrays), errors_of),
                            params.all)
        except TimeoutError:
            return CheckResult.error(timeout_reason())

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, judge)

    return evaluate


class _Judged:
    """The values found so far, their errors, and the bound that stopped the scan."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.valid: list[Any] = []
        self.errors: list[str] = []
        self.bound = ""


def _judged(items: Iterator[Found | Bound],
            errors_of: Callable[[Any], list[str]]) -> _Judged:
    """Validate every value found, so `.values` and `.errors` tell the whole reply."""
    judged = _Judged()
    for item in items:
        if isinstance(item, Bound):
            judged.bound = item.limit
            break
        judged.values.append(item.data)
        problems = errors_of(item.data)
        number = len(judged.values)
        judged.errors.extend(f"#{number} {p}" for p in problems)
        if not problems:
            judged.valid.append(item.data)
    return judged


def _verdict(judged: _Judged, every: bool) -> CheckResult:
    """Pass, fail, or an error when a bound stopped the scan before the verdict was known."""
    count = len(judged.values)
    passed = bool(judged.valid) and (not every or len(judged.valid) == count)
    if judged.bound and (every or not passed):
        return CheckResult.error(_bound_reason(judged.bound))
    fields = {"values": judged.values, "count": count, "errors": judged.errors[:MAX_ERRORS]}
    if every:
        score = len(judged.valid) / count if count else 0.0
        return CheckResult(passed, score, judged.values, fields, _reason(judged, passed))
    value = judged.valid[0] if passed else None
    return CheckResult(passed, 1.0 if passed else 0.0, value, fields, _reason(judged, passed))


def _reason(judged: _Judged, passed: bool) -> str:
    if passed:
        return ""
    if not judged.values:
        return _("the reply contains no JSON object or array")
    return "; ".join(judged.errors[:MAX_ERRORS])


def _bound_reason(limit: str) -> str:
    if limit == "chars":
        return _(
            "the reply is longer than {limit} characters and what comes before decides nothing"
        ).format(limit=MAX_CHARS)
    return _(
        "the reply has more than {limit} openings `{{` or `[` that are not JSON"
    ).format(limit=MAX_OPENINGS)
