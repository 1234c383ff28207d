"""The graph made executable: frame slots and the function that fills each one.

Every per-case value has a slot: checks, per-case lets, outcome blocks, each
metric's input and the review decision. A slot's *forcer* computes it on
first read, so a check is computed only when something reads it, and reading
happens cheapest-first. Constant parameters come folded and validated from
the checker's facts; parameters a primitive declares dynamic are evaluated
and validated per case, and a failure there is that check's error value,
naming the parameter.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from evaldsl.cases.scopes import Scope, select
from evaldsl.i18n import _
from evaldsl.model.requests import ModelRequest
from evaldsl.primitives.registry import Cost
from evaldsl.runtime.aggregation import ReportPlan
from evaldsl.runtime.compiler import Compiler, Slots
from evaldsl.runtime.frame import MISSING, Fn, Frame
from evaldsl.runtime.graph import BlockNode, CheckNode, Graph
from evaldsl.runtime.logic import PENDING, PENDING_RESULT, within
from evaldsl.runtime.metrics import MetricProgram, compile_metric
from evaldsl.runtime.percase_params import NOT_GIVEN, TargetCache, key_of
from evaldsl.runtime.sampling import ReviewProgram, compile_review
from evaldsl.syntax import nodes as n
from evaldsl.values import CheckResult, ErrorValue

RuntimeGetter = Callable[[], Any]


@dataclass(frozen=True)
class CheckPlan:
    name: str
    slot: int
    node: CheckNode
    consts: dict[str, Any]
    dynamic: tuple[tuple[str, Fn], ...]
    params: BaseModel | None
    """Validated params when none is dynamic."""
    target: Any
    """`factory(params)` when none is dynamic: an evaluator or a model check."""
    unset_when_absent: frozenset[str] = frozenset()
    """Optional parameters written as `case.field`: a case without the field, or with
    `null` in it, leaves the parameter not given (its default), instead of an error."""

    @property
    def is_model(self) -> bool:
        return self.node.cost is Cost.MODEL

    @property
    def per_case_names(self) -> tuple[str, ...]:
        """The arguments read from each case."""
        return tuple(name for name, _fn in self.dynamic)


@dataclass(frozen=True)
class BlockPlan:
    key: str
    slot: int
    labels: tuple[str, ...]
    conditions: tuple[Fn | None, ...]
    texts: tuple[str, ...]
    """Each branch as written (`success if intent.passed and ...`)."""


@dataclass
class Program:
    graph: Graph
    slots: Slots
    template: list[Any]
    forcers: list[Fn]
    checks: tuple[CheckPlan, ...]
    blocks: tuple[BlockPlan, ...]
    metrics: tuple[MetricProgram, ...]
    review: ReviewProgram | None
    metric_slots: tuple[int, ...]
    review_slot: int | None
    targets: tuple[int, ...]
    """Slots every case must fill: blocks and metric inputs (or every check of a spec with
    neither), the review decision."""
    report_plan: ReportPlan
    alert_slots: tuple[tuple[str, int], ...] = ()
    """(name, slot) of each per-case alert: whether its condition holds for the case."""


def build_program(graph: Graph, runtime: RuntimeGetter) -> Program:
    slots, metric_slots, review_slot = _layout(graph)
    alert_slots = tuple((a.name, slots.add({}, f"alert:{a.name}"))
                        for a in graph.alerts if a.window is None)
    compiler = Compiler(graph, slots)
    forcers: list[Fn] = [_unreachable] * slots.size
    checks = tuple(_check_plan(compiler, c, slots.checks[c.name]) for c in graph.checks)
    for check in checks:
        forcers[check.slot] = _check_forcer(check, runtime)
    for name in _lets_in_order(graph):  # a let's own lets compiled first: no recursion
        compiler.let_value(name)
    for name, i in slots.lets.items():
        forcers[i] = compiler.let_value(name).fn
    blocks = tuple(_block_plan(compiler, b, slots.blocks[b.key]) for b in graph.blocks)
    for block in blocks:
        forcers[block.slot] = _block_forcer(block)
    metrics = tuple(compile_metric(compiler, m) for m in graph.metrics)
    for metric, i in zip(metrics, metric_slots, strict=True):
        forcers[i] = metric.input
    review = compile_review(compiler, graph.review) if graph.review is not None else None
    if review is not None and review_slot is not None:
        forcers[review_slot] = review.decide
    for alert, (_name, i) in zip((a for a in graph.alerts if a.window is None), alert_slots,
                             strict=True):
        forcers[i] = compiler.condition(alert.when)
    targets = (*_result_slots(blocks, metric_slots, checks),
               *(() if review_slot is None else (review_slot,)), *(i for _, i in alert_slots))
    report_plan = ReportPlan(tuple((b.key, b.labels) for b in blocks),
                             tuple(m.plan for m in metrics), tuple(c.name for c in checks))
    return Program(graph, slots, [MISSING] * slots.size, forcers, checks, blocks, metrics,
                   review, metric_slots, review_slot, targets, report_plan, alert_slots)


def _result_slots(blocks: tuple[BlockPlan, ...], metric_slots: tuple[int, ...],
                  checks: tuple[CheckPlan, ...]) -> tuple[int, ...]:
    """The slots that are a spec's results: its blocks and metric inputs, or, in a spec that
    declares only checks, every check (each one is then a result to compute and report)."""
    if blocks or metric_slots:
        return (*(b.slot for b in blocks), *metric_slots)
    return tuple(c.slot for c in checks)


def _layout(graph: Graph) -> tuple[Slots, tuple[int, ...], int | None]:
    """A slot per check, per-case let and block, then per metric and for the review."""
    slots = Slots()
    for check in graph.checks:
        slots.add(slots.checks, check.name)
    for name in graph.symbols.lets:
        if graph.per_case(f"let:{name}"):
            slots.add(slots.lets, name)
    for node in graph.blocks:
        slots.add(slots.blocks, node.key)
    metric_slots = tuple(slots.add({}, m.name) for m in graph.metrics)
    review_slot = slots.add({}, "review") if graph.review is not None else None
    return slots, metric_slots, review_slot


def _lets_in_order(graph: Graph) -> list[str]:
    """Every let, each after the lets it reads (the graph's plan)."""
    return [node_id[4:] for node_id in graph.plan if node_id.startswith("let:")]


def _unreachable(fr: Frame) -> Any:  # pragma: no cover - every slot gets a forcer
    raise AssertionError("a frame slot without a forcer")


# ---------------------------------------------------------------- checks


def _check_plan(compiler: Compiler, node: CheckNode, slot: int) -> CheckPlan:
    """The checker's folded arguments, and a closure for each argument that is per case."""
    facts = node.facts
    dynamic = tuple((name, compiler.value(_arg(node, name).value)) for name in facts.dynamic)
    if dynamic:
        return CheckPlan(node.name, slot, node, dict(facts.constants), dynamic, None, None,
                         _unset_when_absent(node, facts.dynamic))
    assert facts.params is not None, "the checker validates constant arguments (E202-E204)"
    return CheckPlan(node.name, slot, node, dict(facts.constants), (), facts.params,
                     node.primitive.factory(facts.params))


def _arg(node: CheckNode, name: str) -> n.KeywordArg:
    return next(a for a in node.args if a.name == name)


def _unset_when_absent(node: CheckNode, names: Iterable[str]) -> frozenset[str]:
    """The optional parameters among `names` whose argument is a bare `case.field`."""
    fields = node.primitive.params.model_fields
    return frozenset(name for name in names
                     if name in fields and not fields[name].is_required()
                     and _is_case_field(_arg(node, name).value))


def _is_case_field(expr: n.Expr) -> bool:
    while isinstance(expr, n.Group):
        expr = expr.expr
    obj = expr.obj if isinstance(expr, n.Attribute) else None
    while isinstance(obj, n.Group):
        obj = obj.expr
    return isinstance(obj, n.Name) and obj.name == "case"


def _first_problem(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(x) for x in err.get("loc", ())) or "arguments"
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    return f"`{where}`: {msg}"


def _check_forcer(plan: CheckPlan, runtime: RuntimeGetter) -> Fn:
    reads_text = plan.node.primitive.reads_text
    if not plan.is_model:  # the text guard inside the forcer: one call less per case
        if plan.dynamic:
            return _dynamic_static_forcer(plan, reads_text)
        return _static_forcer(plan.name, plan.node.primitive.name, plan.target, plan.node.scope,
                              reads_text)
    forcer = _model_check_forcer(plan, runtime)
    if not reads_text:
        return forcer
    return _text_guard(forcer, plan.name, plan.node.scope)


def _text_guard(forcer: Fn, name: str, scope: Any) -> Fn:
    """A check that reads text, on a case whose text was not all recorded (a trace without
    content capture): an error saying so when its scope selects such a message, never a
    verdict on an empty text."""
    def guarded(fr: Frame) -> Any:
        case = fr.case
        if case.unrecorded and _unrecorded_in(case, scope):
            return _no_text(name)
        return forcer(fr)
    return guarded


def _no_text(name: str) -> CheckResult:
    return CheckResult.error(_("no text recorded: the trace kept no message text for this "
                               "check to read"), name)


def _unrecorded_in(case: Any, scope: Any) -> bool:
    units = select(case, scope if scope is not None else Scope("dialog"))
    return not units or any(not m.recorded for u in units for m in u.messages)


def _model_check_forcer(plan: CheckPlan, runtime: RuntimeGetter) -> Fn:
    if plan.dynamic:
        return _dynamic_forcer(plan, runtime)
    assert plan.params is not None
    request = ModelRequest(plan.name, plan.node.primitive, plan.params, plan.target,
                           plan.node.scope)
    return _model_forcer(plan, request, runtime)


def _static_forcer(name: str, primitive: str, evaluate: Any, scope: Any,
                   reads_text: bool = False) -> Fn:
    """A deterministic check's forcer; with `reads_text`, guarded as `_text_guard` guards."""
    def compute(fr: Frame) -> CheckResult:
        case = fr.case
        if reads_text and case.unrecorded and _unrecorded_in(case, scope):
            return _no_text(name)
        try:
            result = evaluate(case, scope)
        except Exception as exc:  # a primitive's bug must not stop a run
            return _crashed(name, primitive, exc)
        if type(result) is CheckResult and (result.passed is True or result.passed is False):
            return result
        return checked_result(result, name)
    return compute


def _model_forcer(plan: CheckPlan, request: ModelRequest, runtime: RuntimeGetter) -> Fn:
    slot = plan.slot

    def want(fr: Frame) -> CheckResult:
        if runtime() is None:
            return _no_runtime(plan.name)
        fr.wanted.append(slot)
        fr.requests[slot] = request
        return PENDING_RESULT
    return want


def _dynamic_forcer(plan: CheckPlan, runtime: RuntimeGetter) -> Fn:
    """A model check with per-case parameters."""
    node = plan.node

    def compute(fr: Frame) -> CheckResult:
        values = _dynamic_values(plan, fr)
        if isinstance(values, CheckResult):
            return values
        try:
            params = node.primitive.validate_per_case(values, plan.per_case_names)
            target = node.primitive.factory(params)
        except ValidationError as exc:
            return CheckResult.error(f"parameter {_first_problem(exc)}", plan.name)
        except Exception as exc:
            return _crashed(plan.name, node.primitive.name, exc)
        if runtime() is None:
            return _no_runtime(plan.name)
        fr.wanted.append(plan.slot)
        fr.requests[plan.slot] = ModelRequest(plan.name, node.primitive, params, target,
                                              node.scope)
        return PENDING_RESULT
    return compute


def _dynamic_values(plan: CheckPlan, fr: Frame) -> dict[str, Any] | CheckResult:
    """The check's parameters for this case, or the result it has when one is unknown."""
    values = dict(plan.consts)
    for name, fn in plan.dynamic:
        v = fn(fr)
        if v is PENDING:
            return PENDING_RESULT
        if type(v) is ErrorValue:
            if name in plan.unset_when_absent:
                continue
            return CheckResult.error(f"parameter `{name}`: {v}", plan.name)
        values[name] = v
    return values


def _dynamic_static_forcer(plan: CheckPlan, reads_text: bool = False) -> Fn:
    """A deterministic check with per-case parameters: one evaluator per distinct value;
    with `reads_text`, guarded as `_text_guard` guards, before its parameters are read.
    The values are read into their key (`percase_params`) as `_dynamic_values` reads
    them, with the same answers for a pending or an erroneous one; the values' dict is
    built only for a key seen the first time."""
    node, name, made = plan.node, plan.name, TargetCache()
    scope, dynamic, unset = node.scope, plan.dynamic, plan.unset_when_absent

    def make(values: dict[str, Any]) -> Fn:
        """The check's evaluator for `values`; a fresh error result per case when they fail."""
        try:
            target = node.primitive.factory(
                node.primitive.validate_per_case(values, plan.per_case_names))
        except ValidationError as exc:
            problem = f"parameter {_first_problem(exc)}"
            return lambda fr: CheckResult.error(problem, name)
        except Exception as exc:
            crash = exc
            return lambda fr: _crashed(name, node.primitive.name, crash)
        return _static_forcer(name, node.primitive.name, target, node.scope)

    def made_for(fr: Frame) -> Fn | CheckResult:
        """The evaluator made for this case's values, or the result a value decides."""
        values = _dynamic_values(plan, fr)
        return values if isinstance(values, CheckResult) else make(values)

    def compute(fr: Frame) -> CheckResult:
        case = fr.case
        if reads_text and case.unrecorded and _unrecorded_in(case, scope):
            return _no_text(name)
        key: list[Hashable] = []
        for param, fn in dynamic:
            v = fn(fr)
            kind = type(v)
            if kind is str or kind is int or kind is bool or v is None:  # `freeze`, inlined
                key.append((kind, v))
            elif v is PENDING:
                return PENDING_RESULT
            elif kind is ErrorValue:
                if param not in unset:
                    return CheckResult.error(f"parameter `{param}`: {v}", name)
                key.append(NOT_GIVEN)
            else:
                k = key_of(v)
                if k is None:  # made for this case alone
                    evaluate = made_for(fr)
                    return evaluate if isinstance(evaluate, CheckResult) else evaluate(fr)
                key.append(k)
        evaluate = made.find(frozen := tuple(key))
        if evaluate is None:
            evaluate = made_for(fr)
            if isinstance(evaluate, CheckResult):  # pragma: no cover - the values were read
                return evaluate
            made.keep(frozen, evaluate)
        result: CheckResult = evaluate(fr)
        return result
    return compute


def checked_result(result: Any, name: str) -> CheckResult:
    """A primitive's result with `passed` a real bool (or an error), never a truthy stand-in."""
    if type(result) is not CheckResult:
        return CheckResult.error(f"the primitive returned {type(result).__name__}, "
                                 "not a CheckResult", name)
    passed = result.passed
    if passed is True or passed is False or type(passed) is ErrorValue:
        return result
    return CheckResult(bool(passed), result.score, result.value, result.fields, result.reason)


def _crashed(name: str, primitive: str, exc: Exception) -> CheckResult:
    return CheckResult.error(f"`{primitive}` failed: {type(exc).__name__}: {exc}", name)


def _no_runtime(name: str) -> CheckResult:
    return CheckResult.error("no model runtime is available for this model check: pass "
                             "`judge=`, `embedder=` or `runtime=` to evaldsl.load", name)


# ---------------------------------------------------------------- outcome blocks


def _block_plan(compiler: Compiler, block: BlockNode, slot: int) -> BlockPlan:
    conditions = tuple(compiler.condition(b.condition) if b.condition is not None else None
                       for b in block.branches)
    texts = tuple(compiler.graph.text(b.span) for b in block.branches)
    return BlockPlan(block.key, slot, block.labels, conditions, texts)


def _block_forcer(block: BlockPlan) -> Fn:
    """First true branch wins; an error (or a pending model check) before it decides."""
    pairs = tuple(enumerate(zip(block.conditions, block.texts, strict=True)))

    def decide(fr: Frame) -> Any:
        for k, (condition, text) in pairs:
            if condition is None:
                return k
            v = condition(fr)
            if v is True:
                return k
            if v is not False:
                return within(v, text)
        return ErrorValue("no branch held and the block has no `otherwise`", block.key)
    return decide
