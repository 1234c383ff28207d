"""Where aggregates may stand: E304 outside a metric, E305 bare per-case values, E308 nesting.

A metric is computed over all cases, everything else per case. Mixing the
two levels is the commonest conceptual mistake in a spec (`metric m =
completion` has no single value), so these rules say which level each
part of an expression is on.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaldsl.checker.facts.consts import number_of
from evaldsl.checker.facts.context import Context, expr_children, unwrap
from evaldsl.checker.facts.percase import is_per_case
from evaldsl.checker.facts.typer import AGGREGATES, infer_type, is_condition, type_env
from evaldsl.diagnostics import Diagnostic, error
from evaldsl.i18n import N_, _
from evaldsl.primitives.valuetypes import ValueType as T
from evaldsl.syntax import nodes as n


def misplaced_aggregates(ctx: Context) -> Iterator[Diagnostic]:
    """E304 for an aggregate outside a metric's value, E308 for one inside another."""
    for site, exprs in ctx.site_exprs:
        if not any(type(e) is n.Call and e.func in AGGREGATES for e in exprs):
            continue
        in_metric = site.role == "metric"
        stack: list[tuple[n.Expr, str | None]] = [(site.expr, None)]
        while stack:
            e, outer = stack.pop()
            inner = outer
            if isinstance(e, n.Call) and e.func in AGGREGATES:
                if outer is not None:
                    yield _nested(e, outer)
                elif not in_metric:
                    yield _outside(e, site.role)
                inner = e.func
            stack.extend((child, inner) for child in expr_children(e))


def _nested(call: n.Call, outer: str) -> Diagnostic:
    return error(
        "E308",
        _("the aggregate `{func}` is inside another aggregate `{outer}`").format(
            func=call.func, outer=outer
        ),
        call.span,
        _(
            "aggregates cannot be nested; compare per case inside "
            "one, e.g. `rate(completion >= 0.8)`"
        ),
    )


def _outside(call: n.Call, role: str) -> Diagnostic:
    places = {"where": N_("a `where` (it selects cases one by one)"),
              "condition": N_("an outcome condition (it judges one case)"),
              "let": N_("a `let` (lets are per case)"),
              "alert": N_("a per-case `alert` (give it `over` a window and compare a metric)"),
              "group": N_("a group key (it sorts cases one by one)")}
    where = _(places.get(role, N_("per-case parts of a spec")))
    return error(
        "E304",
        _("the aggregate `{func}` can only be used in a metric, not in {where}").format(
            func=call.func, where=where
        ),
        call.span,
        _("aggregates combine all cases; per case, use the value itself"),
    )


def bare_values_in_metrics(ctx: Context) -> Iterator[Diagnostic]:
    """E305: a per-case value inside a metric but outside any aggregate."""
    env = type_env(ctx)
    for metric in ctx.module.metrics():
        stack: list[n.Expr] = [metric.value]
        while stack:
            e = stack.pop()
            if isinstance(e, n.Call) and e.func in AGGREGATES:
                continue
            if isinstance(e, (n.Name, n.Attribute, n.Index)) and is_per_case(ctx, e):
                condition = is_condition(infer_type(e, env))
                wrapped = f"rate({_text(e)})" if condition else f"mean({_text(e)})"
                yield error(
                    "E305",
                    _("a metric cannot use a per-case value outside an aggregate"),
                    e.span,
                    _("aggregate it over the cases, e.g. `{wrapped}`").format(wrapped=wrapped),
                )
                continue
            stack.extend(expr_children(e))


def non_numbers_in_metrics(ctx: Context) -> Iterator[Diagnostic]:
    """E305: a constant part of a metric's formula that is not a number the checker can fold.

    The runtime computes a formula's constant parts from the checker's fold,
    so a part the fold cannot make a number is reported here, not at load.
    """
    env = type_env(ctx)
    for metric in ctx.module.metrics():
        for part in formula_parts(metric.value):
            if isinstance(unwrap(part), n.Call) or is_per_case(ctx, part):
                continue
            if infer_type(part, env) in (T.NUMBER, T.ANY) and number_of(part, ctx) is None:
                yield error(
                    "E305",
                    _(
                        "a metric combines aggregates such as `rate(...)` and "
                        "`mean(...)` with numbers; this part is not one"
                    ),
                    part.span,
                    _("write a number, or a `let` that is one"),
                )


def formula_parts(value: n.Expr) -> Iterator[n.Expr]:
    """The parts of a metric formula that are neither aggregates nor `+ - * /` over parts."""
    stack = [value]
    while stack:
        e = stack.pop()
        inner = unwrap(e)
        if isinstance(inner, n.Call) and inner.func in AGGREGATES:
            continue
        if isinstance(inner, n.Unary) and inner.op == "-":
            stack.append(inner.operand)
        elif isinstance(inner, n.Binary) and inner.op in n.ARITH_OPS:
            stack.extend((inner.right, inner.left))
        else:
            yield e


def _text(e: n.Expr) -> str:
    if isinstance(e, n.Name):
        return e.name
    if isinstance(e, n.Attribute):
        return f"{_text(e.obj)}.{e.name}"
    return "..."
