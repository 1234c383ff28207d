"""Constant folding: the Python value of an expression that needs no case.

Primitive arguments that are not per-case (`criteria:`, `scale:`, `labels:`)
are validated once, at check time, against the primitive's params model. For
that they must be folded to plain values: literals, lets made of literals,
and table names (which become `NormalizationTable`s). Anything that depends
on a case folds to `NOT_CONSTANT`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from evaldsl.checker.facts.context import Context
from evaldsl.primitives.tables import NormalizationTable
from evaldsl.syntax import nodes as n


class _NotConstant:
    """The marker for "this needs a case to compute"."""

    _instance: _NotConstant | None = None

    def __new__(cls) -> _NotConstant:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_CONSTANT"


NOT_CONSTANT: Any = _NotConstant()

_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
}
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}


def fold(expr: n.Expr, ctx: Context) -> Any:
    """The constant value of `expr`, or `NOT_CONSTANT`."""
    folder = _FOLDERS.get(type(expr))
    return folder(expr, ctx) if folder is not None else NOT_CONSTANT


def is_constant(expr: n.Expr, ctx: Context) -> bool:
    return fold(expr, ctx) is not NOT_CONSTANT


def number_of(expr: n.Expr, ctx: Context) -> float | None:
    """The value of a constant number expression (not a bool), else None."""
    value = fold(expr, ctx)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def let_value(name: str, ctx: Context) -> Any:
    """The folded value of the let `name` (a let in a cycle is not constant)."""
    return ctx.let_values.get(name, lambda let: fold(ctx.symbols.lets[let].value, ctx),
                              NOT_CONSTANT)


def table_value(table: n.Table, ctx: Context) -> NormalizationTable:
    """The table as the runtime will build it (the first target wins on a clash)."""
    # the option readers fold their values, so they import this module: import them late
    from evaldsl.checker.facts.table_options import table_settings

    settings = table_settings(table, ctx)
    entries: dict[str, str] = {}
    for entry in table.entries:
        for src in entry.sources:
            entries.setdefault(src.value, entry.target.value)
    return NormalizationTable.build(
        table.name, settings.pop("flags"), settings.pop("remove", ""), entries, **settings
    )


def number_value(e: n.Number | n.Percent) -> int | float:
    """A number literal's value: `3` an int (so `max: 3` validates as an integer), else a float.

    >>> from evaldsl.syntax.parser import parse
    >>> [number_value(parse(f"let a = {x}").module.statements[0].value) for x in ("3", "0.5")]
    [3, 0.5]
    """
    return int(e.text) if isinstance(e, n.Number) and e.text.isdigit() else e.value


def _number(e: n.Number, ctx: Context) -> Any:
    return number_value(e)


def _literal(e: n.Percent | n.String | n.Bool, ctx: Context) -> Any:
    return e.value


def _name(e: n.Name, ctx: Context) -> Any:
    symbols = ctx.symbols
    if e.name in symbols.checks:
        return NOT_CONSTANT
    if e.name in symbols.lets:
        return let_value(e.name, ctx)
    table = symbols.tables.get(e.name)
    if table is not None:
        if e.name not in ctx.tables:
            ctx.tables[e.name] = table_value(table, ctx)
        return ctx.tables[e.name]
    return NOT_CONSTANT


def _group(e: n.Group, ctx: Context) -> Any:
    return fold(e.expr, ctx)


def _unary(e: n.Unary, ctx: Context) -> Any:
    value = fold(e.operand, ctx)
    if e.op == "not" and isinstance(value, bool):
        return not value
    if e.op == "-" and _is_number(value):
        return -value
    return NOT_CONSTANT


def _binary(e: n.Binary, ctx: Context) -> Any:
    left = fold(e.left, ctx)
    if left is NOT_CONSTANT:
        return NOT_CONSTANT
    right = fold(e.right, ctx)
    if right is NOT_CONSTANT:
        return NOT_CONSTANT
    return _apply(e.op, left, right)


def _apply(op: str, left: Any, right: Any) -> Any:
    if op in _ARITH and _is_number(left) and _is_number(right):
        if op == "/" and right == 0:
            return NOT_CONSTANT
        return _ARITH[op](left, right)
    if op in ("and", "or") and isinstance(left, bool) and isinstance(right, bool):
        return (left and right) if op == "and" else (left or right)
    if op in ("==", "!=") and type(left) is type(right):
        return _COMPARE[op](left, right)
    if op in _COMPARE and _is_number(left) and _is_number(right):
        return _COMPARE[op](left, right)
    return NOT_CONSTANT


def _attribute(e: n.Attribute, ctx: Context) -> Any:
    """`weights.k` of a constant map."""
    obj = fold(e.obj, ctx)
    return obj[e.name] if type(obj) is dict and e.name in obj else NOT_CONSTANT


def _index(e: n.Index, ctx: Context) -> Any:
    """`names[0]` of a constant list, `weights["k"]` of a constant map."""
    obj = fold(e.obj, ctx)
    if obj is NOT_CONSTANT:
        return NOT_CONSTANT
    key = fold(e.index, ctx)
    if type(obj) is dict:
        return obj[key] if type(key) is str and key in obj else NOT_CONSTANT
    if type(obj) is list and type(key) is int and -len(obj) <= key < len(obj):
        return obj[key]
    return NOT_CONSTANT


def _list(e: n.ListLit, ctx: Context) -> Any:
    items = [fold(i, ctx) for i in e.items]
    return NOT_CONSTANT if any(i is NOT_CONSTANT for i in items) else items


def _map(e: n.MapLit, ctx: Context) -> Any:
    out: dict[str, Any] = {}
    for entry in e.entries:
        value = fold(entry.value, ctx)
        if value is NOT_CONSTANT:
            return NOT_CONSTANT
        out[entry.key] = value
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_FOLDERS: dict[type, Callable[[Any, Context], Any]] = {
    n.Number: _number,
    n.Percent: _literal,
    n.String: _literal,
    n.Bool: _literal,
    n.Name: _name,
    n.Group: _group,
    n.Unary: _unary,
    n.Binary: _binary,
    n.Attribute: _attribute,
    n.Index: _index,
    n.ListLit: _list,
    n.MapLit: _map,
}
