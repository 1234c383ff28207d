"""A table's value options read once: the settings the runtime builds it with, or the problem.

`remove`, `replace`, `tolerance` and `units` each have a reader that turns
the option's expression into the `NormalizationTable` setting, or into an
`OptionProblem` the table rule reports (E208) with its span. The runtime's
table and the checker's lint read options through the same readers, so a
value the checker accepts is exactly the value that runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from evaldsl.checker.facts.consts import fold
from evaldsl.checker.facts.context import Context, unwrap
from evaldsl.i18n import _
from evaldsl.primitives.tables import FLAG_OPTIONS, Tolerance
from evaldsl.primitives.units import dimension, unit_problem
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Span


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
