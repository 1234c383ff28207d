"""The closures expressions compile to: one small function per operator.

Each builder takes its operands' closures and returns a closure over them;
`compiler` wires them together once per spec. They decide nothing about
non-values themselves: they read operands (stopping where `evaldsl.runtime.logic`
says one decides: `false` for `and`, `true` for `or`, an error for a strict
operator) and combine what they read with that module's functions. A check's
result fields are read with `CheckResult.get`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaldsl.runtime.frame import MISSING, Fn, Frame
from evaldsl.runtime.logic import (
    SPECIAL,
    and_pair,
    arith,
    compare,
    contains,
    first_unknown,
    not_value,
    or_pair,
)
from evaldsl.values import CheckResult, ErrorValue


def slot(i: int) -> Fn:
    def read(fr: Frame) -> Any:
        v = fr.vals[i]
        return fr.force(i) if v is MISSING else v

    return read


def check_field(i: int, name: str, check: str) -> Fn:
    """A field of the check `check` in slot `i`: `.passed`, `.score`, `.value` or its own.
    A check's slot holds a `CheckResult`, whose three common fields are read as attributes
    (what `CheckResult.get` returns for them, without the call)."""
    if name == "passed":
        def passed(fr: Frame) -> Any:
            v = fr.vals[i]
            if v is MISSING:
                v = fr.force(i)
            return v.passed
        return passed

    def field_value(fr: Frame) -> Any:
        v = fr.vals[i]
        if v is MISSING:
            v = fr.force(i)
        return v.get(name, check)
    return field_value


def get_attr(obj: Fn, name: str) -> Fn:
    def attribute(fr: Frame) -> Any:
        v = obj(fr)
        if type(v) is dict:  # a case's map field, the common reader
            return v[name] if name in v else ErrorValue(f"the map has no key `{name}`")
        if type(v) in SPECIAL:
            return v
        if isinstance(v, CheckResult):
            return v.get(name)
        if isinstance(v, dict):
            return v[name] if name in v else ErrorValue(f"the map has no key `{name}`")
        return ErrorValue(f"{name!r} is not a field of {type(v).__name__}")
    return attribute


def case_map_key(field: str, name: str, general: Fn) -> Fn:
    """`case.field.name` where the case's field holds a map, the common reader, in one call;
    anything else (no such field, not a map) read by `general`, its `get_attr`."""
    def map_key(fr: Frame) -> Any:
        v = fr.case.fields.get(field)
        if type(v) is dict:
            return v[name] if name in v else ErrorValue(f"the map has no key `{name}`")
        return general(fr)
    return map_key


def get_index(obj: Fn, index: Fn) -> Fn:
    def item(fr: Frame) -> Any:
        o, k = obj(fr), index(fr)
        unknown = first_unknown(o, k)
        if unknown is not None:
            return unknown
        if isinstance(o, dict):
            return o[k] if isinstance(k, str) and k in o else ErrorValue(f"no key `{k}`")
        if isinstance(o, (list, tuple, str)) and isinstance(k, (int, float)) \
                and not isinstance(k, bool) and float(k).is_integer() and -len(o) <= k < len(o):
            return o[int(k)]
        return ErrorValue(f"cannot index {type(o).__name__} with {k!r}")
    return item


def and_chain(fns: tuple[Fn, ...]) -> Fn:
    return _chain(fns, False, and_pair)


def or_chain(fns: tuple[Fn, ...]) -> Fn:
    return _chain(fns, True, or_pair)


def _chain(fns: tuple[Fn, ...], decides: bool, pair: Callable[[Any, Any], Any]) -> Fn:
    """A logical chain that stops at the operand that `decides` it (`false` for `and`)."""
    if len(fns) == 2:
        f0, f1 = fns

        def chain2(fr: Frame) -> Any:
            a = f0(fr)
            return decides if a is decides else pair(a, f1(fr))
        return chain2

    unit = not decides  # `true` for `and`, `false` for `or`: the chain of no operands

    def chain_n(fr: Frame) -> Any:
        # `logic.and_values` / `or_values` inlined (their generator cost a call per
        # operand): `pair(unit, v)` is `v`, so the first operand is taken as it is
        result = unit
        for f in fns:
            v = f(fr)
            if v is decides:
                return decides
            result = v if result is unit else pair(result, v)
        return result
    return chain_n


def arithmetic(op: str, left: Fn, right: Fn) -> Fn:
    def arithmetic(fr: Frame) -> Any:
        a = left(fr)
        if type(a) is ErrorValue:
            return a
        b = right(fr)
        unknown = first_unknown(a, b)
        return arith(op, a, b) if unknown is None else unknown
    return arithmetic


def comparison(op: str, left: Fn, right: Fn) -> Fn:
    if op == ">=":
        def at_least(fr: Frame) -> Any:
            a = left(fr)
            if type(a) is ErrorValue:
                return a
            b = right(fr)
            if (type(a) is float or type(a) is int) and (type(b) is float or type(b) is int):
                return a >= b
            unknown = first_unknown(a, b)
            return compare(op, a, b) if unknown is None else unknown
        return at_least

    def comparison(fr: Frame) -> Any:
        a = left(fr)
        if type(a) is ErrorValue:
            return a
        b = right(fr)
        unknown = first_unknown(a, b)
        return compare(op, a, b) if unknown is None else unknown
    return comparison


def membership(negate: bool, item: Fn, container: Fn) -> Fn:
    def membership(fr: Frame) -> Any:
        a = item(fr)
        if type(a) is ErrorValue:
            return a
        b = container(fr)
        unknown = first_unknown(a, b)
        if unknown is not None:
            return unknown
        return not_value(contains(a, b)) if negate else contains(a, b)
    return membership


def collect_list(items: list[Fn]) -> Fn:
    def collect(fr: Frame) -> Any:
        values = [f(fr) for f in items]
        unknown = first_unknown(*values)
        return values if unknown is None else unknown
    return collect


def collect_map(entries: list[tuple[str, Fn]]) -> Fn:
    def collect(fr: Frame) -> Any:
        values = {k: f(fr) for k, f in entries}
        unknown = first_unknown(*values.values())
        return values if unknown is None else unknown
    return collect
