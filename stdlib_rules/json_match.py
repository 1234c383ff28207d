"""`json_match`: the JSON in a reply against expected JSON, key by key (openevals' `json_match`).

An agent that extracts records (the people in a document, the items of an
order) answers with an object or a list of objects. Each expected object is
paired with an object of the reply; each key of a pair scores 1 when both
sides have it with equal values (under the key's table, if one is given),
0 otherwise; the keys' scores make an item's score (`aggregate`), and the
items' scores the check's (`list_aggregate`). `.keys` holds each key's score
over the items, as openevals reports them without an aggregator.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import REPLY_SCOPES, Scope, Unit
from evaldsl.i18n import _
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.tables import NormalizationTable
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib._common import Params, Table, over, unit_range
from evaldsl.stdlib._pins import scored
from evaldsl.stdlib.json_scan import Found, iter_json
from evaldsl.values import CheckResult

Aggregate = Literal["average", "all"]
Mode = Literal["same_elements", "subset", "superset", "ordered"]
Pair = tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]
"""(an object of the reply, the expected object it was paired with); None: unpaired."""


class JsonMatchParams(Params):
    expected: dict[str, Any] | list[dict[str, Any]]
    """The expected object, or a list of expected objects."""
    actual: dict[str, Any] | list[dict[str, Any]] | None = None
    """The JSON to judge instead of the reply's (the reply as JSON, else the first object
    or array in its text)."""
    mode: Mode = "same_elements"
    """How lists pair: `same_elements` every item on both sides, `subset` the reply's items
    are among the expected ones, `superset` every expected item is in the reply, `ordered`
    item by item in order."""
    aggregate: Aggregate = "average"
    """An item's score from its keys': their `average`, or 1 only when `all` are 1."""
    list_aggregate: Aggregate = "all"
    """The score from the items': their `average`, or 1 only when `all` are 1."""
    exclude_keys: list[str] = Field(default_factory=list)
    """Keys left out of the comparison."""
    tables: dict[str, Table] = Field(default_factory=dict)
    """Key -> the table its values are compared under (texts normalized, numbers within
    its tolerance)."""
    min: float = Field(default=1.0, ge=0.0, le=1.0)
    """Lowest score that passes."""


@primitive("json_match", params=JsonMatchParams, scopes=REPLY_SCOPES,
           default_scope="last_reply", fields={"keys": ValueType.MAP, "items": ValueType.LIST},
           cost=Cost.CHEAP, value_range=unit_range, dynamic={"expected", "actual", "min"},
           pin=lambda p, f: scored(f, p.min))
def json_match(params: JsonMatchParams) -> Any:
    """The reply's JSON objects against the expected ones, key by key, at least `min`.

    `.score` (and `.value`) aggregates the keys of each item (`aggregate`) and
    then the items (`list_aggregate`); `.keys` maps each key to its score over
    the items, `.items` lists each item's score.

        check 抽取 = json_match(expected: case.people, aggregate: average, min: 0.8)
    """

    def judge(unit: Unit) -> CheckResult:
        actual = params.actual if params.actual is not None else _reply_json(unit.text)
        if actual is None:
            return CheckResult.error(_("the reply contains no JSON object or array"))
        return score(params, actual, params.expected)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, judge)

    return evaluate


def score(params: JsonMatchParams, actual: Any, expected: Any) -> CheckResult:
    """The verdict on `actual` against `expected` under `params`."""
    listed = isinstance(expected, list)
    if listed != isinstance(actual, list) or not all(
            isinstance(x, Mapping) for x in (actual if isinstance(actual, list) else [actual])):
        shape = _("a list of objects") if listed else _("an object")
        return CheckResult.of(False, 0.0, 0.0, _("the reply's JSON is not {shape}").format(
            shape=shape), keys={}, items=[])
    pairs = _pairs(actual, expected, params) if listed else [(actual, expected)]
    rows = [_keys(a, e, params) for a, e in pairs]
    rows = [r for r in rows if r]
    items = [_combine(list(r.values()), params.aggregate) for r in rows]
    total = (_combine(items, params.list_aggregate) if listed else items[0]) if rows else 0.0
    keys = _per_key(rows, params.list_aggregate if listed else "average")
    passed = total >= params.min
    reason = "" if passed else _("score {score:.2f} is below {min}; keys {keys}").format(
        score=total, min=params.min, keys=", ".join(f"{k} {v:.2f}" for k, v in keys.items()))
    return CheckResult.of(passed, total, total, reason, keys=keys, items=items)


def _pairs(actual: list[Mapping[str, Any]], expected: list[Mapping[str, Any]],
           params: JsonMatchParams) -> list[Pair]:
    """Items paired the way openevals pairs them: by position, or each item (of the
    reply; of the expected list for `superset`) in turn with the free item on the other
    side that has the most equal keys (excluded keys aside), the first of those on a tie."""
    mode, skip = params.mode, frozenset(params.exclude_keys)
    if mode == "ordered":
        size = max(len(actual), len(expected))
        return [(actual[i] if i < len(actual) else None,
                 expected[i] if i < len(expected) else None) for i in range(size)]
    if mode == "superset":
        return [(a, e) for e, a in _greedy(expected, actual, skip) if e is not None]
    pairs = _greedy(actual, expected, skip)
    free = [e for e in expected if not any(p[1] is e for p in pairs)]
    return pairs + ([(None, e) for e in free] if mode == "same_elements" else [])


def _greedy(left: list[Mapping[str, Any]], right: list[Mapping[str, Any]],
            skip: frozenset[str]) -> list[Pair]:
    free = list(range(len(right)))
    out: list[Pair] = []
    for item in left:
        if not free:
            out.append((item, None))
            continue
        best = max(free, key=lambda j: (_equal_keys(item, right[j], skip), -j))
        free.remove(best)
        out.append((item, right[best]))
    return out


def _equal_keys(a: Mapping[str, Any], b: Mapping[str, Any], skip: frozenset[str]) -> int:
    return sum(1 for k in a if k in b and k not in skip and a[k] == b[k])


def _keys(actual: Mapping[str, Any] | None, expected: Mapping[str, Any] | None,
          params: JsonMatchParams) -> dict[str, float]:
    """Each key of either side (but the excluded ones): 1 when both hold equal values."""
    a, e = actual or {}, expected or {}
    names = [k for k in dict.fromkeys([*a, *e]) if k not in params.exclude_keys]
    return {k: float(k in a and k in e and _same(a[k], e[k], params.tables.get(k)))
            for k in names}


def _same(a: Any, b: Any, table: NormalizationTable | None) -> bool:
    if table is None:
        return bool(a == b)
    if isinstance(a, str) and isinstance(b, str):
        return table.same(a, b)
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        return table.close(float(a), float(b))
    return bool(a == b)


def _combine(scores: list[float], how: Aggregate) -> float:
    if not scores:
        return 0.0
    if how == "all":
        return float(all(s == 1 for s in scores))
    return sum(scores) / len(scores)


def _per_key(rows: list[dict[str, float]], how: Aggregate) -> dict[str, float]:
    by_key: dict[str, list[float]] = {}
    for row in rows:
        for key, value in row.items():
            by_key.setdefault(key, []).append(value)
    return {k: _combine(v, how) for k, v in by_key.items()}


def _reply_json(text: str) -> Any:
    """The reply as JSON, else the first object or array in its text; None when there is none."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    for item in iter_json(text):
        return item.data if isinstance(item, Found) else None
    return None
