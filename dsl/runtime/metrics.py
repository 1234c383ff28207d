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

from evaldsl.results import MetricError
from evaldsl.runtime.aggregation import AGGREGATES, BOOL_AGGREGATES, AggregateSpec, MetricPlan
from evaldsl.runtime.compiler import Compiler, spec_error
from evaldsl.runtime.frame import Fn, Frame
from evaldsl.runtime.logic import PENDING
from evaldsl.syntax import nodes as n
from evaldsl.values import ErrorValue

Formula = Callable[[Sequence[float | None]], float | None]


@dataclass(frozen=True)
class MetricProgram:
    plan: MetricPlan
    input: Fn
    """Frame -> this case's input: argument values, None (outside), `MetricError` or PENDING."""


def metric_input(where: Fn | None, args: tuple[tuple[int, Fn], ...]) -> Fn:
    """The per-case input closure; `args` are (argument index, closure), cheapest first."""
    if len(args) == 1 and args[0][0] == 0:
        return _single(where, args[0][1])
    size = len(args)

    def many(fr: Frame) -> Any:
        if where is not None:
            held = where(fr)
            if held is not True:
                return _outside(held)
        values: list[Any] = [None] * size
        pending = False
        for k, fn in args:
            v = fn(fr)
            if type(v) is ErrorValue:
                return MetricError(str(v))
            if v is PENDING:
                pending = True
            values[k] = v
        return PENDING if pending else tuple(values)
    return many


def _single(where: Fn | None, fn: Fn) -> Fn:
    def single(fr: Frame) -> Any:
        if where is not None:
            held = where(fr)
            if held is not True:
                return _outside(held)
        v = fn(fr)
        if type(v) is ErrorValue:
            return MetricError(str(v))
        return PENDING if v is PENDING else (v,)
    return single


def _outside(held: Any) -> Any:
    """A `where` that is not true: outside (false), pending, or left out as an error."""
    if held is False:
        return None
    return PENDING if held is PENDING else MetricError(f"where: {held}")


def compile_metric(compiler: Compiler, metric: n.Metric) -> MetricProgram:
    aggregates: list[AggregateSpec] = []
    arguments: list[n.Expr] = []
    formula = _formula(compiler, metric.value, aggregates, arguments)
    fns = [compiler.condition(a) if agg.kind in BOOL_AGGREGATES else compiler.number(a)
           for agg, a in zip(aggregates, arguments, strict=True)]
    order = sorted(range(len(fns)), key=lambda k: compiler.graph.cost(arguments[k]))
    where = compiler.condition(metric.where) if metric.where is not None else None
    graph = compiler.graph
    plan = MetricPlan(metric.name, tuple(aggregates), formula,
                      graph.text(metric.where.span) if metric.where is not None else None,
                      graph.text(metric.value.span))
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
    if not compiler.graph.expr_per_case(e):
        value = compiler.constant(e)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value)
            return lambda v: number
    raise spec_error("E305", "a metric combines aggregates such as `rate(...)` and `mean(...)` "
                "with numbers; this part is not one", e)


def _aggregate(compiler: Compiler, e: n.Call, aggregates: list[AggregateSpec],
               arguments: list[n.Expr]) -> Formula:
    args = list(e.args)
    p_kw = next((k.value for k in e.kwargs if k.name == "p"), None)
    if e.func == "percentile":
        if p_kw is not None:
            args.append(p_kw)
        if len(args) != 2:
            raise spec_error("E307", "`percentile` takes a number and a percentile: "
                        "`percentile(latency, 90)`", e)
        p = compiler.constant(args[1])
        p = p * 100 if isinstance(args[1], n.Percent) else p
        spec = AggregateSpec("percentile", float(p))
    else:
        if len(args) != 1 or e.kwargs:
            raise spec_error("E307", f"`{e.func}` takes one argument", e)
        spec = AggregateSpec(e.func)
    if any(isinstance(x, n.Call) and x.func in AGGREGATES for x in n.walk(args[0])):
        raise spec_error("E308", "an aggregate inside an aggregate", e)
    k = len(aggregates)
    aggregates.append(spec)
    arguments.append(args[0])
    return lambda v: v[k]


def _neg(x: float | None) -> float | None:
    return None if x is None else -x


def _binary(op: str, left: Formula, right: Formula) -> Formula:
    def apply(v: Sequence[float | None]) -> float | None:
        a, b = left(v), right(v)
        if a is None or b is None:
            return None
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        return None if b == 0 else a / b
    return apply
