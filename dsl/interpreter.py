"""Per-case lazy evaluation (being implemented)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any

from evaldsl.cases import Case
from evaldsl.graph import Graph
from evaldsl.results import CaseResult, ReportPlan
from evaldsl.values import CheckResult


class Interpreter:
    def __init__(self, graph: Graph, runtime: Callable[[], Any]) -> None:
        self.graph = graph
        self.report_plan = ReportPlan((), (), ())

    def evaluate(self, case: Case, pins: Mapping[str, CheckResult] | None) -> CaseResult:
        raise NotImplementedError

    async def evaluate_async(self, case: Case,
                             pins: Mapping[str, CheckResult] | None) -> CaseResult:
        raise NotImplementedError


async def run_concurrently(evaluate: Any, cases: Iterable[Any], concurrency: int,
                           ) -> AsyncIterator[CaseResult]:
    raise NotImplementedError
    yield
