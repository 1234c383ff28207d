"""`metric` statements compiled into a per-case input and a report-time formula.

`metric success_rate = rate(success) + 0.5 * rate(partial) where case.solvable`
splits into the per-case part (the `where` and the aggregate arguments
`success`, `partial`) and the aggregate-level formula (`a0 + 0.5 * a1`).
Per case, a false `where` leaves the case outside; an error in the `where` or
in any argument leaves it out as an error; otherwise the arguments' values
are the case's input. Arguments are read cheapest first, and a case outside
the denominator never computes them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from evaldsl.checker.facts.context import unwrap
from evaldsl.results import MetricError
from evaldsl.runtime.aggregation import (
    AGGREGATES,
    BOOL_AGGREGATES,
    TRIAL_AGGREGATES,
    AggregateSpec,
    MetricPlan,
)
from evaldsl.runtime.compiler import Compiler
from evaldsl.runtime.frame import Fn, Frame
from evaldsl.runtime.logic import PENDING, SPECIAL, first_unknown, formula_arith
from evaldsl.syntax import nodes as n
from evaldsl.values import ErrorValue

Formula = Callable[[Sequence[float | None]], float | None]


@dataclass(frozen=True)
class MetricProgram:
    plan: MetricPlan
    input: Fn
    """Frame -> this case's input: argument values, None (outside), `MetricError` or PENDING."""


def metric_input(where: Fn | None, args: tuple[tuple[int, Fn], ...]) -> Fn:
    """The per-case input closure; `args` are (argument index, closure), cheapest first.

    The arguments combine as a strict operator's operands (`logic.first_unknown`):
    the first error leaves the case out as an error, else a pending one waits.
    """
    if len(args) == 1 and args[0][0] == 0:
        return _single(where, args[0][1])
    size = len(args)

    def many(fr: Frame) -> Any:
        if where is not None:
            held = where(fr)
            if held is not True:
                return _outside(held)
        values: list[Any] = [None] * size
        for k, fn in args:
            v = values[k] = fn(fr)
            if type(v) is ErrorValue:
                return MetricError(str(v))
        unknown = first_unknown(*values)
        return tuple(values) if unknown is None else unknown
    return many


def _single(where: Fn | None, fn: Fn) -> Fn:
    def single(fr: Frame) -> Any:
        if where is not None:
            held = where(fr)
            if held is not True:
                return _outside(held)
        v = fn(fr)
        return _left_out(v) if type(v) in SPECIAL else (v,)
    return single


def _outside(held: Any) -> Any:
    """A `where` that is not true: outside (false), pending, or left out as an error."""
    if held is False:
        return None
    return PENDING if held is PENDING else MetricError(f"where: {held}")


def _left_out(unknown: Any) -> Any:
    """A case whose input is not known: PENDING waits, an error leaves it out as an error."""
    return PENDING if unknown is PENDING else MetricError(str(unknown))


def compile_metric(compiler: Compiler, metric: n.Metric) -> MetricProgram:
    aggregates: list[AggregateSpec] = []
    arguments: list[n.Expr] = []
    formula = _formula(compiler, metric.value, aggregates, arguments)
    fns = [compiler.condition(a) if agg.kind in BOOL_AGGREGATES else compiler.number(a)
           for agg, a in zip(aggregates, arguments, strict=True)]
    order = sorted(range(len(fns)), key=lambda k: compiler.graph.cost(arguments[k]))
    where = compiler.condition(metric.where) if metric.where is not None else None
    graph = compiler.graph
    parts: list[str] = []
    template = _template(compiler, metric.value, parts)
    plan = MetricPlan(metric.name, tuple(aggregates), formula,
                      graph.text(metric.where.span) if metric.where is not None else None,
                      graph.text(metric.value.span), tuple(parts),
                      None if _single_aggregate(metric.value) else template,
                      tuple(k.name for k in metric.by if isinstance(k, n.Attribute)),
                      metric.lower_is_better)
    return MetricProgram(plan, metric_input(where, tuple((k, fns[k]) for k in order)))


def _formula(compiler: Compiler, e: n.Expr, aggregates: list[AggregateSpec],
             arguments: list[n.Expr]) -> Formula:
    if isinstance(e, n.Group):
        return _formula(compiler, e.expr, aggregates, arguments)
    if isinstance(e, n.Call) and e.func in AGGREGATES:
        return _aggregate(compiler, e, aggregates, arguments)
    if isinstance(e, n.Unary) and e.op == "-":
        inner = _formula(compiler, e.operand, aggregates, arguments)
        return lambda v: _neg(inner(v))
    if isinstance(e, n.Binary) and e.op in n.ARITH_OPS:
        left = _formula(compiler, e.left, aggregates, arguments)
        right = _formula(compiler, e.right, aggregates, arguments)
        return _binary(e.op, left, right)
    number = compiler.facts.number(e)
    assert number is not None, "the checker folds a formula's constant parts (E305)"
    return lambda v: number


def _single_aggregate(e: n.Expr) -> bool:
    """Whether a metric is one aggregate alone (`rate(x)`, `(mean(x))`), not a formula."""
    while isinstance(e, n.Group):
        e = e.expr
    return isinstance(e, n.Call) and e.func in AGGREGATES


def _template(compiler: Compiler, e: n.Expr, parts: list[str]) -> str:
    """The formula as written with `{k}` for its k-th aggregate, collecting each aggregate's
    text in `parts`; walks the tree in `_formula`'s order, so `{k}` is `aggregates[k]`."""
    if isinstance(e, n.Group):
        return f"({_template(compiler, e.expr, parts)})"
    if isinstance(e, n.Call) and e.func in AGGREGATES:
        parts.append(compiler.graph.text(e.span))
        return f"{{{len(parts) - 1}}}"
    if isinstance(e, n.Unary) and e.op == "-":
        return f"-{_template(compiler, e.operand, parts)}"
    if isinstance(e, n.Binary) and e.op in n.ARITH_OPS:
        op = "×" if e.op == "*" else e.op
        left = _template(compiler, e.left, parts)
        return f"{left} {op} {_template(compiler, e.right, parts)}"
    return compiler.graph.text(e.span).replace("{", "{{").replace("}", "}}")


def _aggregate(compiler: Compiler, e: n.Call, aggregates: list[AggregateSpec],
               arguments: list[n.Expr]) -> Formula:
    """One aggregate of the formula; the checker has vetted its arguments (E307, E308)."""
    args = list(e.args)
    p_kw = next((k.value for k in e.kwargs if k.name == "p"), None)
    if e.func == "percentile":
        if p_kw is not None:
            args.append(p_kw)
        p = compiler.facts.number(args[1])
        assert p is not None, "the checker folds the percentile's rank (E307)"
        spec = AggregateSpec("percentile", p * 100 if isinstance(unwrap(args[1]), n.Percent) else p)
    elif e.func in TRIAL_AGGREGATES:
        trials = compiler.facts.number(args[1])
        assert trials is not None, "the checker folds the trials' k (E307)"
        spec = AggregateSpec(e.func, trials)
    else:
        spec = AggregateSpec(e.func)
    k = len(aggregates)
    aggregates.append(spec)
    arguments.append(args[0])
    return lambda v: v[k]


def _neg(x: float | None) -> float | None:
    return None if x is None else -x


def _binary(op: str, left: Formula, right: Formula) -> Formula:
    def apply(v: Sequence[float | None]) -> float | None:
        return formula_arith(op, left(v), right(v))
    return apply
