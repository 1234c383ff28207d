"""Constant folding: the Python value of an expression that needs no case.

Primitive arguments that are not per-case (`criteria:`, `scale:`, `labels:`)
are validated once, at check time, against the primitive's params model. For
that they must be folded to plain values: literals, lets made of literals,
and table names (which become `NormalizationTable`s). Anything that depends
on a case folds to `NOT_CONSTANT`.

A table's value options are read here too, once: the settings the runtime builds it with, or
the problem. `remove`, `replace`, `tolerance` and `units` each have a reader that turns
the option's expression into the `NormalizationTable` setting, or into an
`OptionProblem` the table rule reports (E208) with its span. The runtime's
table and the checker's lint read options through the same readers, so a
value the checker accepts is exactly the value that runs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, NamedTuple

from evaldsl.checker.facts.context import Context, unwrap
from evaldsl.i18n import _
from evaldsl.primitives.tables import FLAG_OPTIONS, NormalizationTable, Tolerance
from evaldsl.primitives.units import dimension, unit_problem
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Span


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


class OptionProblem(NamedTuple):
    """Why an option's value cannot be used, and where."""

    message: str
    hint: str
    span: Span


Reader = Callable[[n.Expr, Context], Any]


def table_settings(table: n.Table, ctx: Context) -> dict[str, Any]:
    """`NormalizationTable` keyword settings from the table's options (bad values left out)."""
    settings: dict[str, Any] = {
        "flags": frozenset(o.name for o in table.options
                           if o.value is None and o.name in FLAG_OPTIONS)}
    for option in table.options:
        reader = READERS.get(option.name)
        if reader is not None and option.value is not None:
            value = reader(option.value, ctx)
            if not isinstance(value, OptionProblem):
                settings[option.name] = value
    return settings


def option_problem(option: n.Option, ctx: Context) -> OptionProblem | None:
    """The problem with a value option's value, if any (None for other options)."""
    reader = READERS.get(option.name)
    if reader is None:
        return None
    if option.value is None:
        return _needs(option.name, option.span)
    value = reader(option.value, ctx)
    return value if isinstance(value, OptionProblem) else None


def read_remove(expr: n.Expr, ctx: Context) -> str | OptionProblem:
    value = fold(expr, ctx)
    return value if isinstance(value, str) else _needs("remove", expr.span)


def read_replace(expr: n.Expr, ctx: Context) -> dict[str, str] | OptionProblem:
    value = fold(expr, ctx)
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        return _needs("replace", expr.span)
    if "" in value:
        return OptionProblem(_("`replace` cannot replace the empty text"), _HINTS["replace"](),
                             expr.span)
    return {str(k): v for k, v in value.items()}


def read_tolerance(expr: n.Expr, ctx: Context) -> Tolerance | OptionProblem:
    """A number is absolute, a percentage relative; a list may give one of each."""
    node = unwrap(expr)
    items = node.items if isinstance(node, n.ListLit) else (node,)
    bounds: dict[str, float] = {}
    for item in (unwrap(i) for i in items):
        kind = "relative" if isinstance(item, n.Percent) else "absolute"
        value = item.value if isinstance(item, (n.Number, n.Percent)) else None
        if value is None or not 0 <= value < float("inf"):
            return _needs("tolerance", item.span)
        if kind in bounds:
            return OptionProblem(_("`tolerance` takes at most one number and one percentage"),
                                 _HINTS["tolerance"](), item.span)
        bounds[kind] = value
    return Tolerance(**bounds) if bounds else _needs("tolerance", expr.span)


def read_units(expr: n.Expr, ctx: Context) -> tuple[str, ...] | OptionProblem:
    """Unit names pint knows, no two of one dimension."""
    node = unwrap(expr)
    items = node.items if isinstance(node, n.ListLit) else (node,)
    seen: dict[str, str] = {}
    for item in items:
        name = fold(item, ctx)
        if not isinstance(name, str):
            return _needs("units", item.span)
        problem = _unit_problem(name, item.span)
        if problem is not None:
            return problem
        kind = dimension(name)
        if kind in seen:
            return OptionProblem(
                _("`{first}` and `{second}` measure the same quantity ({kind})").format(
                    first=seen[kind], second=name, kind=kind),
                _("keep one: the table converts every such quantity to it"), item.span)
        seen[kind] = name
    return tuple(seen.values()) if seen else _needs("units", expr.span)


def _unit_problem(name: str, span: Span) -> OptionProblem | None:
    problem = unit_problem(name)
    if problem == "currency":
        return OptionProblem(
            _("`{name}` is a currency, not a unit").format(name=name),
            _('no fixed factor converts currencies; map their spellings in the table\'s entries, '
              'e.g. `"100元" -> "100"`'), span)
    if problem is not None:
        return OptionProblem(
            _("pint does not know the unit `{name}`").format(name=name),
            _("write a unit such as `km`, `m/s`, `h`, `kg` or `degC`, or a Chinese name such "
              "as `公里`, `小时`, `公斤`"), span)
    return None


READERS: dict[str, Reader] = {
    "remove": read_remove, "replace": read_replace, "tolerance": read_tolerance,
    "units": read_units,
}
"""Value option -> its reader; the keys are `VALUE_OPTIONS`."""

_HINTS: dict[str, Callable[[], str]] = {
    "remove": lambda: _('write e.g. `{name}: ",./-_"` to remove those characters').format(
        name="remove"),
    "replace": lambda: _('write e.g. `replace: {"\'": "\\""}` to turn each `\'` into `"`'),
    "tolerance": lambda: _("write `tolerance: 0.01` (absolute), `tolerance: 0.1%` (relative) "
                           "or one of each: `tolerance: [0.01, 0.1%]`"),
    "units": lambda: _('write e.g. `units: "km"`, or one unit per quantity: '
                       '`units: ["km", "kg"]`'),
}

_WANTS: dict[str, Callable[[], str]] = {
    "remove": lambda: _("the option `{name}` needs a text").format(name="remove"),
    "replace": lambda: _("the option `replace` needs a map of texts to texts"),
    "tolerance": lambda: _("the option `tolerance` needs a number or a percentage, not below 0"),
    "units": lambda: _("the option `units` needs a unit name or a list of them"),
}


def _needs(name: str, span: Span) -> OptionProblem:
    return OptionProblem(_WANTS[name](), _HINTS[name](), span)
