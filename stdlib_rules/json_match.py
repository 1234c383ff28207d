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
    if listed != isinstance(actual, list) or not _objects(actual if listed else [actual]):
        shape = _("a list of objects") if listed else _("an object")
        return CheckResult.of(False, 0.0, 0.0, _("the reply's JSON is not {shape}").format(
            shape=shape), keys={}, items=[])
    skip = frozenset(params.exclude_keys)
    pairs = _pairs(actual, expected, params.mode, skip) if listed else [(actual, expected)]
    rows = [r for r in (_keys(a, e, skip, params.tables) for a, e in pairs) if r]
    items = [_combine(list(r.values()), params.aggregate) for r in rows]
    total = (_combine(items, params.list_aggregate) if listed else items[0]) if rows else 0.0
    keys = _per_key(rows, params.list_aggregate if listed else "average")
    if total >= params.min:
        return CheckResult(True, total, total, {"keys": keys, "items": items})
    reason = _("score {score:.2f} is below {min}; keys {keys}").format(
        score=total, min=params.min, keys=", ".join(f"{k} {v:.2f}" for k, v in keys.items()))
    return CheckResult(False, total, total, {"keys": keys, "items": items}, reason)


def _objects(values: list[Any]) -> bool:
    """Whether every value is a JSON object (a dict, as decoded, or another mapping)."""
    for value in values:
        if type(value) is not dict and not isinstance(value, Mapping):
            return False
    return True


def _pairs(actual: list[Mapping[str, Any]], expected: list[Mapping[str, Any]], mode: Mode,
           skip: frozenset[str]) -> list[Pair]:
    """Items paired the way openevals pairs them: by position, or each item (of the
    reply; of the expected list for `superset`) in turn with the free item on the other
    side that has the most equal keys (excluded keys aside), the first of those on a tie."""
    if mode == "ordered":
        size = max(len(actual), len(expected))
        return [(actual[i] if i < len(actual) else None,
                 expected[i] if i < len(expected) else None) for i in range(size)]
    if mode == "superset":
        return [(a, e) for e, a in _greedy(expected, actual, skip) if e is not None]
    pairs = _greedy(actual, expected, skip)
    if mode != "same_elements":
        return pairs
    taken = {id(e) for _, e in pairs if e is not None}
    return pairs + [(None, e) for e in expected if id(e) not in taken]


def _greedy(left: list[Mapping[str, Any]], right: list[Mapping[str, Any]],
            skip: frozenset[str]) -> list[Pair]:
    free = list(range(len(right)))
    out: list[Pair] = []
    for item in left:
        if not free:
            out.append((item, None))
            continue
        best, most = free[0], -1
        for j in free:  # the most equal keys; the first such on a tie
            equal = _equal_keys(item, right[j], skip)
            if equal > most:
                best, most = j, equal
        free.remove(best)
        out.append((item, right[best]))
    return out


def _equal_keys(a: Mapping[str, Any], b: Mapping[str, Any], skip: frozenset[str]) -> int:
    equal = 0
    for k in a:
        if k in b and k not in skip and a[k] == b[k]:
            equal += 1
    return equal


def _keys(actual: Mapping[str, Any] | None, expected: Mapping[str, Any] | None,
          skip: frozenset[str], tables: Mapping[str, NormalizationTable]) -> dict[str, float]:
    """Each key of either side (but the excluded ones), the reply's first: 1 when both
    hold equal values."""
    a, e = actual or {}, expected or {}
    out: dict[str, float] = {}
    for k in a:
        if k not in skip:
            out[k] = float(k in e and (bool(a[k] == e[k]) if not tables
                                       else _same(a[k], e[k], tables.get(k))))
    for k in e:
        if k not in out and k not in skip:
            out[k] = 0.0  # not in the reply's object
    return out


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
        for s in scores:
            if s != 1:
                return 0.0
        return 1.0
    return sum(scores) / len(scores)


def _per_key(rows: list[dict[str, float]], how: Aggregate) -> dict[str, float]:
    by_key: dict[str, list[float]] = {}
    for row in rows:
        for key, value in row.items():
            by_key.setdefault(key, []).append(value)
    return {k: _combine(v, how) for k, v in by_key.items()}


_JSON_STARTS = frozenset('{["-0123456789tfnNI')
"""The characters a JSON value can start with (`NaN` and `Infinity` as Python reads them)."""


def _reply_json(text: str) -> Any:
    """The reply as JSON, else the first object or array in its text; None when there is none."""
    if text.lstrip(" \t\n\r")[:1] in _JSON_STARTS:  # else `json.loads` fails, and raising costs
        try:
            return json.loads(text)
        except ValueError:
            pass
    for item in iter_json(text):
        return item.data if isinstance(item, Found) else None
    return None
