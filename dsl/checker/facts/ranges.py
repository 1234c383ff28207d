"""The range a numeric expression can take, for threshold lints (E406).

Scores and rates lie in 0..1; a check's `.value` in whatever the primitive
declares for its params (`judge` with `scale: 10` gives 0..10); sums and
products of those by constants follow by interval arithmetic, so a weighted
0-100 score is known to be 0..100 without the author saying so.
"""

from __future__ import annotations

from collections.abc import Callable

from evaldsl.checker.facts.arguments import arguments
from evaldsl.checker.facts.consts import number_of
from evaldsl.checker.facts.context import Context
from evaldsl.syntax import nodes as n

Range = tuple[float, float]
UNIT: Range = (0.0, 1.0)


def value_range(e: n.Expr, ctx: Context) -> Range | None:
    """`(low, high)` bounds of `e` in numeric use, or None when unknown."""
    method = _METHODS.get(type(e))
    return method(e, ctx) if method is not None else None


def _constant(e: n.Expr, ctx: Context) -> Range | None:
    value = number_of(e, ctx)
    return (value, value) if value is not None else None


def _group(e: n.Group, ctx: Context) -> Range | None:
    return value_range(e.expr, ctx)


def _name(e: n.Name, ctx: Context) -> Range | None:
    symbols = ctx.symbols
    if e.name in symbols.checks:
        return UNIT
    if e.name in symbols.lets:
        return ctx.let_ranges.get(e.name, lambda let: value_range(symbols.lets[let].value, ctx),
                                  None)
    return None


def _attribute(e: n.Attribute, ctx: Context) -> Range | None:
    if not (isinstance(e.obj, n.Name) and e.obj.name in ctx.symbols.checks):
        return None
    if e.name == "score":
        return UNIT
    if e.name != "value":
        return None
    check = ctx.symbols.checks[e.obj.name]
    args = arguments(ctx, check)
    if args is None or args.params is None:
        return None
    try:
        found = args.primitive.value_range(args.params)
    except Exception:  # noqa: BLE001 - a primitive's range function is best effort here
        return None
    return (float(found[0]), float(found[1])) if found is not None else None


def _call(e: n.Call, ctx: Context) -> Range | None:
    if e.func in ("rate", "pass_hat", "pass_at", "number"):
        return UNIT
    if e.func in ("mean", "min", "max", "percentile") and e.args:
        return value_range(e.args[0], ctx)
    return None


def _unary(e: n.Unary, ctx: Context) -> Range | None:
    inner = value_range(e.operand, ctx)
    if e.op != "-" or inner is None:
        return None
    return (-inner[1], -inner[0])


def _binary(e: n.Binary, ctx: Context) -> Range | None:
    if e.op not in n.ARITH_OPS:
        return None
    left, right = value_range(e.left, ctx), value_range(e.right, ctx)
    if left is None or right is None:
        return None
    if e.op == "+":
        return (left[0] + right[0], left[1] + right[1])
    if e.op == "-":
        return (left[0] - right[1], left[1] - right[0])
    if e.op == "/":
        if right[0] <= 0 <= right[1]:
            return None
        right = (1 / right[1], 1 / right[0])
    corners = [a * b for a in left for b in right]
    return (min(corners), max(corners))


_METHODS: dict[type, Callable[..., Range | None]] = {
    n.Number: _constant,
    n.Percent: _constant,
    n.Group: _group,
    n.Name: _name,
    n.Attribute: _attribute,
    n.Call: _call,
    n.Unary: _unary,
    n.Binary: _binary,
}
