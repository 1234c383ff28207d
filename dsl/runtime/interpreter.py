"""Per-case lazy evaluation in rounds: cheap checks inline, model checks batched.

A round fills every target slot (outcome blocks, metric inputs, the review
decision). Reading a slot computes it on demand, operands of `and`/`or` are
read cheapest first, and a model check that is reached is not called there:
it becomes PENDING and is collected. `false and PENDING` is `false` and
`true or PENDING` is `true`, so a model check is only collected when the
cheap operands leave its branch undecided. When a round ends with collected
model checks, they go to `ModelRuntime.resolve(case, requests)` in one call
(the runtime fuses, caches and batches), their results fill their slots and
the next round re-reads what was undecided. A spec without model checks
never leaves the first round and never touches asyncio.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaldsl.cases.case import Case
from evaldsl.errors import ConfigError, EvaldslError
from evaldsl.results import ERROR_LABEL, CaseResult
from evaldsl.runtime.frame import MISSING, Frame
from evaldsl.runtime.graph import Graph
from evaldsl.runtime.grouping import group_key
from evaldsl.runtime.logic import PENDING, PENDING_RESULT
from evaldsl.runtime.program import RuntimeGetter, build_program, checked_result
from evaldsl.runtime.trace import Tracer
from evaldsl.values import CheckResult


class Interpreter:
    """Evaluates cases against one compiled spec; shareable between threads."""

    def __init__(self, graph: Graph, runtime: RuntimeGetter, *, eager: bool = False) -> None:
        """`eager` computes every check for every case (for comparisons and tests)."""
        self.program = program = build_program(graph, runtime)
        self.report_plan = program.report_plan
        self._runtime = runtime
        self._eager = eager
        self._template = program.template
        self._forcers = program.forcers
        self._targets = program.targets
        self._blocks = tuple((b.key, b.slot, b.labels) for b in program.blocks)
        self._check_slots = tuple((c.name, c.slot) for c in program.checks)
        self._metric_slots = tuple((m.plan.name, i)
                                   for m, i in zip(program.metrics, program.metric_slots,
                                                   strict=True))
        self._grouped = tuple((m.plan.name, m.plan.by) for m in program.metrics if m.plan.by)
        self._review_slot = program.review_slot
        self._alert_slots = program.alert_slots
        self._lets = tuple(program.slots.lets.items())
        self._let_slots = tuple(program.slots.lets.values())
        self._tracer = Tracer(program)
        self._max_rounds = len(program.checks) + 2

    # ---------------------------------------------------------------- drivers

    def evaluate(self, case: Case, pins: Mapping[str, CheckResult] | None = None) -> CaseResult:
        fr = self._start(case, pins)
        if fr.wanted:
            refuse_running_loop()
            import asyncio  # 0.04 s to import: only cases that need a model call pay it

            asyncio.run(self._complete(fr))
        return self._result(fr)

    async def evaluate_async(self, case: Case,
                             pins: Mapping[str, CheckResult] | None = None) -> CaseResult:
        fr = self._start(case, pins)
        if fr.wanted:
            await self._complete(fr)
        return self._result(fr)

    def _start(self, case: Case, pins: Mapping[str, CheckResult] | None) -> Frame:
        fr = Frame(self._template.copy(), case, self._forcers)
        if pins:
            self._pin(fr, pins)
        if self._eager:
            for _, i in self._check_slots:
                if fr.vals[i] is MISSING:
                    fr.force(i)
        self._round(fr)
        return fr

    def _round(self, fr: Frame) -> None:
        vals = fr.vals
        settle = fr.settle  # `force` from the top, without its test of the depth
        for i in self._targets:
            if vals[i] is MISSING:
                settle(i)

    async def _complete(self, fr: Frame) -> None:
        for _ in range(self._max_rounds):
            await self._resolve(fr)
            self._reset(fr)
            self._round(fr)
            if not fr.wanted:
                return
        raise AssertionError("evaluation did not settle")  # pragma: no cover

    async def _resolve(self, fr: Frame) -> None:
        """Ask the runtime for every model check collected this round, in one call."""
        wanted = list(dict.fromkeys(fr.wanted))
        requests = [fr.requests[i] for i in wanted]
        fr.wanted = []
        results = await _ask(self._runtime(), fr.case, requests)
        for i, request, result in zip(wanted, requests, results, strict=True):
            fr.vals[i] = checked_result(result, request.check)

    def _reset(self, fr: Frame) -> None:
        """Forget what the last round could not decide; keep every settled value."""
        vals = fr.vals
        for i in self._let_slots:
            vals[i] = MISSING
        for i, v in enumerate(vals):
            if v is PENDING or v is PENDING_RESULT:
                vals[i] = MISSING

    def _pin(self, fr: Frame, pins: Mapping[str, CheckResult]) -> None:
        slots = self.program.slots.checks
        for name, result in pins.items():
            if name not in slots:
                raise EvaldslError(f"cannot pin `{name}`: the spec has no such check")
            fr.vals[slots[name]] = result

    # ---------------------------------------------------------------- results

    def _result(self, fr: Frame) -> CaseResult:
        vals = fr.vals
        labels: dict[str, str] = {}
        branches: dict[str, int | None] = {}
        errors: dict[str, str] = {}
        for key, slot, names in self._blocks:
            v = vals[slot]
            if type(v) is int:
                labels[key] = names[v]
                branches[key] = v
            else:
                labels[key] = ERROR_LABEL
                branches[key] = None
                errors[key] = str(v)
        checks = {}
        skipped = []
        for name, i in self._check_slots:
            v = vals[i]
            if v is MISSING:
                skipped.append(name)
            else:
                checks[name] = v
        metrics = {name: vals[i] for name, i in self._metric_slots}
        review = vals[self._review_slot] if self._review_slot is not None else None
        # a comprehension is a call of its own: none for a spec without lets or groups
        lets = ({name: vals[i] for name, i in self._lets if vals[i] is not MISSING}
                if self._lets else {})
        groups = ({name: group_key(fr.case.fields, by) for name, by in self._grouped}
                  if self._grouped else {})
        result = CaseResult(fr.case.id, labels, branches, checks, tuple(skipped), metrics,
                            review, errors, self._tracer, lets, groups)
        if self._alert_slots:
            result.alerts = {name: vals[i] for name, i in self._alert_slots}
        return result


async def _ask(runtime: Any, case: Case, requests: list[Any]) -> list[CheckResult]:
    """The runtime's answers; any failure of the runtime itself is an error result per check,
    except a `ConfigError`: settings no case can get past stop the run instead."""
    if runtime is None:
        return [CheckResult.error("no model runtime is available", r.check) for r in requests]
    try:
        results = list(await runtime.resolve(case, requests))
    except ConfigError:
        raise
    except Exception as exc:
        reason = f"the model runtime failed: {type(exc).__name__}: {exc}"
        return [CheckResult.error(reason, r.check) for r in requests]
    if len(results) != len(requests):
        reason = f"the model runtime gave {len(results)} results for {len(requests)} requests"
        return [CheckResult.error(reason, r.check) for r in requests]
    return results


def refuse_running_loop(instead: str = "await spec.evaluate_async(case)") -> None:
    """Blocking on model calls inside a running event loop would deadlock it: refuse."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise EvaldslError(f"model checks cannot be awaited here, an event loop is running: "
                       f"use `{instead}`")
