"""`evaldsl run --workers N`: a run's cases evaluated as shards in a pool of worker processes.

The parent reads the case files once, as undecoded rows (`read_rows`), and
hands them out in batches to worker processes (`evaldsl.run.pool`), each
with its own spec, model runtime and judge client. A worker turns a batch
into journal lines and rendered JUnit cases while folding its cases into
its own `ShardState` (`evaldsl.run.shards`). So the parent does little per
case: it writes what comes back, in the order the batches were handed out
(the journal and the JUnit file read as with one process), and at the end
merges the workers' states into its own.

What one process decides in input order, the parent still decides:

- `--limit`: a batch never holds more rows than the cases still allowed,
  less the rows already out, so no case past the limit is evaluated;
- `--on-bad-row fail`: a worker ends its batch at the first bad row; the
  parent writes the cases before it, then stops the run;
- `--where`, `--ids`, `--sample`: the parent reads each row as a case and hands out
  only the rows the selection keeps (`evaldsl.run.selection`), counting the others;
- `--resume`: workers set aside the cases whose row the journal holds; the
  parent checks each against the journal's line for that row, as one
  process does (`evaldsl.run.journaled`), and skips it.

A worker that raises stops the run with its exception, one that dies with a
`WorkerError`; on any error or Ctrl-C the parent terminates every worker.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

from evaldsl.api import Spec
from evaldsl.cases.case import Case
from evaldsl.cases.loading import RawRow
from evaldsl.cases.rows import CaseSchema
from evaldsl.record import CaseRecord
from evaldsl.report.layout import SpecLayout
from evaldsl.run.pool import Batch, Done, Pool, Renderer, WorkerSetup
from evaldsl.run.runner import Run, RunOptions, RunResult
from evaldsl.run.shards import ShardState

BATCH_ROWS = 400
"""Rows per batch: enough that handing a batch over costs little beside evaluating it."""


class PartSink(Protocol):
    """A sink (JUnit) whose per-case work workers do: they render, it appends."""

    def add(self, record: CaseRecord) -> None: ...

    def renderer(self) -> Renderer: ...

    def add_rendered(self, part: Any) -> None: ...


def run_workers(spec: Spec, layout: SpecLayout, rows: Iterable[RawRow], options: RunOptions,
                workers: int, settings: Any = None, sinks: Sequence[PartSink] = ()) -> RunResult:
    """`runner.run` with the cases evaluated by `workers` processes; the same result.

    `rows` come from `read_rows`; `settings` (model `Settings`) build each
    worker's model runtime, with `options.concurrency` cases in flight in each.
    """
    return _PoolRun(spec, layout, options, sinks, workers, settings).execute(rows)


class _PoolRun(Run):
    """A run whose cases are evaluated by a pool; journal, bad rows and report as `Run`."""

    def __init__(self, spec: Spec, layout: SpecLayout, options: RunOptions,
                 sinks: Sequence[PartSink], workers: int, settings: Any) -> None:
        super().__init__(spec, layout, options, None, sinks)
        self.part_sinks = tuple(sinks)
        self.workers = workers
        self.settings = settings
        self.schema = CaseSchema.of(spec)
        self.out_rows = 0
        """Input rows handed out and not yet folded: each may be a case, for `--limit`."""

    def _consume(self, rows: Iterable[RawRow]) -> None:
        with Pool(self.workers, self._setup()) as pool:
            self._stream(pool, self._selected(rows))
            for data in pool.finish():
                self.state = self.state.merge(ShardState.loads(data, self.spec, self.layout))

    def _selected(self, rows: Iterable[RawRow]) -> Iterator[RawRow]:
        """The rows the selection keeps; a bad row goes on, for a worker to report in order."""
        if self.left_out is None:
            yield from rows
            return
        for row in rows:
            item = row.item(self.schema)
            if not (isinstance(item, Case) and self.left_out.leaves_out(item)):
                yield row

    def _setup(self) -> WorkerSetup:
        source = self.spec.source
        return WorkerSetup(source.text.encode("utf-8"), source.name, self.layout,
                           self._settings(), self.options.concurrency,
                           self.options.on_bad_row == "fail",
                           self.journaled.rows() if self.journaled else frozenset(),
                           tuple(s.renderer() for s in self.part_sinks))

    def _settings(self) -> Any:
        """The settings each worker builds its runtime from, read here when none were given:
        workers start without the key variables (`keys_withheld`), so a worker that judges
        must be handed its key, not left to read it."""
        if self.settings is not None or not self.spec.has_model_checks:
            return self.settings
        from evaldsl.model.settings import Settings

        return Settings.load()

    def _stream(self, pool: Pool, rows: Iterator[RawRow]) -> None:
        """Hand out batches while there is room, fold answers in the order handed out."""
        out: dict[int, Batch] = {}
        answered: dict[int, Done] = {}
        next_fold = 0
        while True:
            while pool.has_room() and (batch := self._next_batch(rows, next_fold + len(out))):
                pool.send(batch)
                out[batch.seq] = batch
            if not out:
                return
            done = pool.receive()
            answered[done.seq] = done
            while next_fold in answered:
                self._fold(out.pop(next_fold), answered.pop(next_fold))
                next_fold += 1

    def _next_batch(self, rows: Iterator[RawRow], seq: int) -> Batch | None:
        size = BATCH_ROWS
        if self.options.limit is not None:
            size = min(size, self.options.limit - self.seen - self.out_rows)
        taken = list(itertools.islice(rows, max(size, 0)))
        if not taken:
            return None
        self.out_rows += len(taken)
        return Batch(seq, taken)

    def _fold(self, batch: Batch, done: Done) -> None:
        """Write an answer as `Run._record` would each of its cases, then its bad rows."""
        if self.writer is not None and done.lines:
            self.writer.write_line(done.lines)
        for sink, part in zip(self.part_sinks, done.parts, strict=True):
            sink.add_rendered(part)
        self.evaluated += done.evaluated
        self.progress.advance(done.evaluated)
        self.seen += done.good
        self.out_rows -= len(batch.rows)
        self._skip(batch, done.set_aside)
        for row in done.bad:
            self._bad_row(row)

    def _skip(self, batch: Batch, set_aside: list[tuple[int, str]]) -> None:
        """Meet each set-aside case's journal line; keep its dialog if it is a worst case."""
        for index, case_id in set_aside:
            assert self.journaled is not None, "cases are set aside only when resuming"
            row = batch.rows[index]
            self.journaled.take(row.origin, case_id)
            if self.state.builder.lacks_dialog(row.origin):
                item = row.item(self.schema)
                if isinstance(item, Case):
                    self.state.builder.offer_dialog(item)
