"""Which expressions differ from case to case, and which are the same for every case.

A value is per case when it reads, outside any aggregate, a check, a label,
an outcome block, `case`, or a let that is itself per case. Everything else
is constant: the runtime folds it once, and a primitive's parameter must be
constant unless the primitive declares it dynamic.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaldsl.checker.facts.context import Context, expr_children
from evaldsl.checker.facts.symbols import CASE
from evaldsl.checker.facts.typer import AGGREGATES
from evaldsl.syntax import nodes as n

PER_CASE_KINDS = frozenset({"check", "label", "outcome"})
"""Kinds of names whose value is computed for each case."""


def is_per_case(ctx: Context, e: n.Expr) -> bool:
    """Whether `e` reads something that differs from case to case (outside aggregates)."""
    for sub in _outside_aggregates(e):
        if isinstance(sub, n.Name) and name_per_case(ctx, sub.name):
            return True
    return False


def name_per_case(ctx: Context, name: str) -> bool:
    """Whether the bare name `name` stands for a value that differs between cases."""
    kind = ctx.symbols.kind_of(name)
    if kind in PER_CASE_KINDS or (name == CASE and kind is None):
        return True
    return kind == "let" and ctx.per_case_lets.get(name, lambda let: _let_per_case(ctx, let),
                                                   False)


def _let_per_case(ctx: Context, let: str) -> bool:
    return is_per_case(ctx, ctx.symbols.lets[let].value)


def _outside_aggregates(e: n.Expr) -> Iterator[n.Expr]:
    stack = [e]
    while stack:
        current = stack.pop()
        if isinstance(current, n.Call) and current.func in AGGREGATES:
            continue
        yield current
        stack.extend(expr_children(current))
