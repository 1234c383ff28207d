"""A shard of a run: some of its cases evaluated into result rows plus a mergeable state.

Everything a run's report holds about its cases (counts, metrics, check
tallies, the review sample, the worst cases, model cost) is a `ShardState`,
and the states of any split of the cases, merged in any order, are the state
of all of them: every part of it folds exactly (integer counts, exact sums,
kept values). So one process, a pool of worker processes (`evaldsl run
--workers`, `evaldsl.run.workers`) or the actors of a cluster engine can
each evaluate a shard with `run_shard` or a `Shard` and meet through
`ShardState.merge`; only the rows (the journal's lines: `CaseResult.to_record`, with the
input row) travel apart.

A state crosses processes as bytes (`dumps`, `loads`, `evaldsl.run.shard_bytes`):
pickled, with the compiled spec's parts (the report plan and its metric formulas,
which are closures) left out and supplied again by the receiving side's spec.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evaldsl.api import Spec
from evaldsl.cases.case import Case
from evaldsl.record import CaseRecord
from evaldsl.report.document import ReportDoc, RunInfo
from evaldsl.report.folded import Report
from evaldsl.report.journal import case_record
from evaldsl.report.json_report import ReportBuilder, Row, publish
from evaldsl.report.layout import SpecLayout
from evaldsl.results import CaseResult

if TYPE_CHECKING:
    import asyncio


@dataclass
class ShardState:
    """What some cases of a run add up to: everything its report says about them."""

    report: Report
    """The interpreter's aggregate: metrics, label counts, review sample."""
    builder: ReportBuilder
    """The rest of report.json: check tallies, slots, the worst cases with their dialogs."""
    stats: Any = None
    """The model cost (`ModelStats`) of evaluating them, or None without model calls."""

    @classmethod
    def empty(cls, spec: Spec, layout: SpecLayout) -> ShardState:
        return cls(spec.new_report(details=False), ReportBuilder(layout))

    def add(self, result: CaseResult, record: CaseRecord | Mapping[str, Any],
            case: Case | None = None) -> None:
        """Fold one case: its result and its row (`result.to_record()`, or a journal line)."""
        self.report.add(result)
        self.builder.add(record, case)

    def add_judged(self, result: CaseResult, record: CaseRecord, case: Case) -> None:
        """`add` of a case just judged, its row made of its result here (`case_record`): the
        report builder counts its checks from the result, without reading the row's entries
        back (a journal line's result is read from the line, so it takes `add`)."""
        self.report.add(result)
        self.builder.add(record, case, result)

    def merge(self, other: ShardState) -> ShardState:
        """The state of both shards' cases (of the same spec); neither input changes."""
        stats = self.stats
        if other.stats is not None:
            stats = other.stats if stats is None else stats.merge(other.stats)
        return ShardState(self.report.merge(other.report), self.builder.merge(other.builder),
                          stats)

    def report_doc(self, run: RunInfo | None = None, bad_rows: Sequence[Row] = (),
                   bad_row_count: int = 0, generated_by: str = "evaldsl") -> ReportDoc:
        """report.json of these cases (docs/report.schema.json)."""
        return publish(self.report, self.builder, self.stats, run, bad_rows, bad_row_count,
                       generated_by)

    def dumps(self) -> bytes:
        """The state as bytes for another process; `loads` with the same spec reads it."""
        from evaldsl.run.shard_bytes import dumps

        return dumps(self, self.report.plan, self.builder.layout)

    @classmethod
    def loads(cls, data: bytes, spec: Spec, layout: SpecLayout) -> ShardState:
        from evaldsl.run.shard_bytes import loads

        state = loads(data, spec.new_report(details=False).plan, layout)
        assert isinstance(state, ShardState)
        return state


class Shard:
    """Evaluates cases into rows, folding every case into one `ShardState`.

    Rows are made one case at a time and nothing of a case is kept once its
    row is out (keeping a batch of cases alive makes the garbage collector
    walk them again and again: 20 times its cost in a deterministic run). A
    spec with model checks evaluates each batch with up to `concurrency`
    cases in flight, on one event loop kept for the shard's life (the model
    runtime's clients belong to it); `close` closes the runtime there, the spec's own
    or `runtime`, one the caller built the spec with for this shard alone.
    """

    def __init__(self, spec: Spec, layout: SpecLayout, concurrency: int = 8,
                 runtime: Any = None) -> None:
        self.spec = spec
        self.state = ShardState.empty(spec, layout)
        self.concurrency = concurrency
        self.runtime = runtime
        self._loop = _event_loop() if spec.has_model_checks else None

    def rows(self, cases: Iterable[Case]) -> Iterator[CaseRecord]:
        """Each case's row (its journal line, `journal.case_record`), in the order of
        `cases`."""
        if self._loop is None:
            evaluate = self.spec.evaluate
            for case in cases:
                yield self._fold(case, evaluate(case))
            return
        batch = list(cases)
        results = self._loop.run_until_complete(self._evaluate_async(batch))
        for case, result in zip(batch, results, strict=True):
            yield self._fold(case, result)

    def _fold(self, case: Case, result: CaseResult) -> CaseRecord:
        row = case_record(result, case)
        self.state.add_judged(result, row, case)
        return row

    async def _evaluate_async(self, cases: Sequence[Case]) -> list[CaseResult]:
        from evaldsl.runtime.concurrency import run_concurrently

        results: list[CaseResult | None] = [None] * len(cases)

        async def one(index: int) -> tuple[int, CaseResult]:
            return index, await self.spec.evaluate_async(cases[index])

        async for index, result in run_concurrently(one, range(len(cases)), self.concurrency):
            results[index] = result
        return [r for r in results if r is not None]

    def close(self) -> ShardState:
        """The shard's final state, its model cost included; the spec's runtime is closed."""
        self.state.stats = self.spec.model_stats()
        if self._loop is None:
            self.spec.close()
            _close(self.runtime, "close")
        else:
            self._loop.run_until_complete(self._aclose())
            self._loop.close()
        return self.state

    async def _aclose(self) -> None:
        await self.spec.aclose()
        closer = getattr(self.runtime, "aclose", None)
        if closer is not None:
            await closer()


def _close(runtime: Any, name: str) -> None:
    closer = getattr(runtime, name, None)
    if closer is not None:
        closer()


def run_shard(spec: Spec, layout: SpecLayout, cases: Iterable[Case], concurrency: int = 8,
              runtime: Any = None) -> tuple[list[CaseRecord], ShardState]:
    """Evaluate one shard of a run's cases: its rows, in input order, and its state (`runtime`:
    see `Shard`)."""
    shard = Shard(spec, layout, concurrency, runtime)
    try:
        rows = list(shard.rows(cases))
    finally:
        state = shard.close()
    return rows, state


def _event_loop() -> asyncio.AbstractEventLoop:
    """A loop for a shard with model checks; asyncio is imported only then (0.04 s), so a
    deterministic shard runs without it."""
    import asyncio

    return asyncio.new_event_loop()
