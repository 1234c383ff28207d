"""Streaming, resumable runs: cases in, one journal line per case out, a report at the end.

A run reads cases as a stream (never all in memory), evaluates up to
`concurrency` of them at once (asyncio; a spec without model checks runs
inline, which is faster), appends each result to the journal (results.jsonl)
the moment it is done, and folds it into the report. The journal's
durability policy is in `evaldsl.report.journal`.

Resuming (`resume=True`) reads the journal back: every complete line is
folded into the report exactly as if it had just been evaluated, a torn last
line (the process was killed mid-write, even by `kill -9`) is cut off, and
the input is streamed again, skipping the cases the journal already holds
(by id, counting repeats). Everything the report holds is independent of the
order in which cases finish, so a resumed run ends with the same report as an
uninterrupted one; only the `run` section (about the process) differs.

What the cases add up to is a `ShardState` (`evaldsl.run.shards`); with
`--workers` the cases are evaluated in worker processes and their states
merged into this one (`evaldsl.run.workers` drives them on this class).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from evaldsl.api import Spec
from evaldsl.cases.case import Case
from evaldsl.cases.loading import BadRow, Item
from evaldsl.errors import CaseDataError, EvaldslError
from evaldsl.i18n import _, ngettext
from evaldsl.report.journal import Header, ResultsWriter, read_records, recover
from evaldsl.report.layout import SpecLayout
from evaldsl.report.progress import Progress
from evaldsl.results import CaseResult, Report
from evaldsl.run.shards import ShardState

BAD_ROWS_LISTED = 100
"""Skipped rows listed by file and line in the report; all of them are counted."""


class ResumeError(EvaldslError):
    """The journal cannot be resumed: another spec wrote it, or it is damaged."""


class JournalExistsError(EvaldslError):
    """A run without `resume` or `overwrite` would truncate the results of an earlier one."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.hint = _("add --resume to continue it, or --overwrite to start over")


@dataclass(frozen=True)
class RunOptions:
    results: Path | None = None
    """The journal; None runs without one (nothing to resume from)."""
    concurrency: int = 8
    limit: int | None = None
    """Stop after this many cases (resumed ones included); bad rows do not count."""
    resume: bool = False
    overwrite: bool = False
    """Start the journal afresh even when it holds results; without it (or `resume`) a
    journal with results is refused, never truncated silently."""
    on_bad_row: Literal["skip", "fail"] = "fail"
    progress: bool | None = None
    """None: a progress bar when stderr is a terminal."""
    total: int | None = None
    """Expected number of cases, for the progress bar's ETA."""
    generated_by: str = "evaldsl"
    announce: Callable[[str], None] | None = None
    """Where one-line notices go (`resumed: ...`); None keeps the run silent."""
    deadline: float | None = None
    """When to stop (a `time.time()` value): no case starts after it, and a case that then
    finishes with an error (a model check cut short) stays out of the journal, so that
    `resume` judges it again. The model runtime stops asking at the same moment."""


@dataclass
class RunResult:
    report: dict[str, Any]
    """The report dict (docs/report.schema.json)."""
    aggregate: Report
    evaluated: int = 0
    """Cases evaluated by this process."""
    resumed: int = 0
    """Cases read back from the journal."""
    elapsed: float = 0.0
    bad_rows: list[BadRow] = field(default_factory=list)


class Sink(Protocol):
    """Receives every case record of the run, journaled ones included (a JUnit writer)."""

    def add(self, record: dict[str, Any]) -> None: ...


def run(spec: Spec, layout: SpecLayout, cases: Iterable[Item], options: RunOptions,
        runtime: Any = None, sinks: Sequence[Sink] = ()) -> RunResult:
    """Evaluate a stream of cases into a report; see the module docstring.

    `runtime`, the spec's model runtime when the caller built it, is closed at
    the end, inside the event loop its async clients belong to. Every record
    (read back from the journal or new) also goes to each of `sinks`.
    """
    return Run(spec, layout, options, runtime, sinks).execute(cases)


class Run:
    """One run: the journal, the stream of cases, bad rows, and the report at the end."""

    def __init__(self, spec: Spec, layout: SpecLayout, options: RunOptions,
                 runtime: Any = None, sinks: Sequence[Sink] = ()) -> None:
        self.spec = spec
        self.runtime = runtime
        self.sinks = tuple(sinks)
        self.options = options
        self.layout = layout
        self.state = ShardState.empty(spec, layout)
        self.workers = 1
        """Processes that evaluate cases (this one, or a pool of workers)."""
        self.done: Counter[str] = Counter()
        self.writer: ResultsWriter | None = None
        self.bad_rows: list[BadRow] = []
        self.bad_row_count = 0
        self.seen = 0
        self.evaluated = 0
        self.resumed = 0
        self.progress = Progress(options.progress, options.total, options.limit)
        self.cut = False
        """Whether the deadline stopped the run before every case was judged."""

    def execute(self, source: Iterable[Any]) -> RunResult:
        started = time.monotonic()
        self._open_journal()
        try:
            with self.progress:
                self.progress.skip(self.resumed)
                self._consume(source)
        finally:
            if self.writer is not None:
                self.writer.close()
            if self.runtime is not None and not self.spec.has_model_checks:
                _close(self.runtime)
        elapsed = time.monotonic() - started
        return RunResult(self._report(elapsed), self.state.report, self.evaluated,
                         self.resumed, elapsed, self.bad_rows)

    def _consume(self, cases: Iterable[Any]) -> None:
        """Evaluate the cases (`Item`s) in this process."""
        if self.spec.has_model_checks:
            import asyncio  # 0.04 s to import: deterministic specs run without a loop

            asyncio.run(self._drive_async(self._todo(cases)))
        else:
            self._drive(self._todo(cases))
        self.state.stats = self.spec.model_stats()

    # ------------------------------------------------------------ journal

    def _open_journal(self) -> None:
        path = self.options.results
        if path is None:
            return
        header = Header(self.layout.name, self.spec.hash)
        if self.options.resume and path.exists():
            self.writer = ResultsWriter(path, header, self._replay(path, header))
            self._announce_resumed(path)
            return
        if not self.options.overwrite and _holds_results(path):
            raise JournalExistsError(
                _("`{path}` already holds the results of a run").format(path=path))
        self.writer = ResultsWriter(path, header)

    def _announce_resumed(self, path: Path) -> None:
        """`resumed: 812 cases from results.jsonl, 188 to run` (the rest when it is known)."""
        if self.options.announce is None:
            return
        line = ngettext("resumed: {count} case from {path}", "resumed: {count} cases from {path}",
                        self.resumed).format(count=self.resumed, path=path)
        total = self.progress.total
        if total is not None:
            line += _(", {count} to run").format(count=max(total - self.resumed, 0))
        self.options.announce(line)

    def _replay(self, path: Path, header: Header) -> int:
        """Fold the journal's complete lines into the report; the good length to keep."""
        recovered = recover(path)
        if recovered.header is not None and recovered.header.spec_hash != header.spec_hash:
            raise ResumeError(_("cannot resume: `{path}` holds results of another spec (hash "
                                "{found}, this spec {hash}); run with --overwrite instead of "
                                "--resume to start over").format(
                path=path, found=recovered.header.spec_hash[:12], hash=header.spec_hash[:12]))
        for _line, record in read_records(path):
            self.state.add(CaseResult.from_dict(record), record)
            for sink in self.sinks:
                sink.add(record)
            self.done[str(record.get("id", ""))] += 1
            self.resumed += 1
        return recovered.good_bytes

    # ------------------------------------------------------------ the stream

    def _todo(self, items: Iterable[Item]) -> Iterator[Case]:
        """The cases still to evaluate: bad rows counted, resumed and over-limit ones skipped."""
        limit = self.options.limit
        for item in items:
            if limit is not None and self.seen >= limit:
                return
            if self._past_deadline():
                self.cut = True
                return
            if isinstance(item, BadRow):
                self._bad_row(item)
                continue
            self.seen += 1
            if self.done and self.done.get(item.id, 0) > 0:
                self.done[item.id] -= 1
                self.state.builder.offer_dialog(item)
                continue
            yield item

    def _bad_row(self, row: BadRow) -> None:
        if self.options.on_bad_row == "fail":
            raise CaseDataError(row.file, row.line, row.reason, row.field)
        self.bad_row_count += 1
        if len(self.bad_rows) < BAD_ROWS_LISTED:
            self.bad_rows.append(row)

    def _drive(self, cases: Iterator[Case]) -> None:
        evaluate = self.spec.evaluate
        for case in cases:
            self._record(case, evaluate(case))

    async def _drive_async(self, cases: Iterator[Case]) -> None:
        from evaldsl.run.concurrency import run_concurrently

        results = run_concurrently(self._evaluate, cases, self.options.concurrency)
        try:
            async with aclosing(results):
                async for case, result in results:
                    self._record(case, result)
        finally:
            if self.runtime is not None:
                await _aclose(self.runtime)

    async def _evaluate(self, case: Case) -> tuple[Case, CaseResult]:
        return case, await self.spec.evaluate_async(case)

    def _past_deadline(self) -> bool:
        deadline = self.options.deadline
        return deadline is not None and time.time() >= deadline

    def _record(self, case: Case, result: CaseResult) -> None:
        record = result.to_dict(trace=False)
        if self._past_deadline() and _has_error(record):
            self.cut = True  # maybe cut short: reported, but left for `resume` to judge again
        elif self.writer is not None:
            self.writer.write(record)
        self.state.add(result, record, case)
        for sink in self.sinks:
            sink.add(record)
        self.evaluated += 1
        self.progress.advance(1)

    # ------------------------------------------------------------ the report

    def _report(self, elapsed: float) -> dict[str, Any]:
        run_info = {"resumed_cases": self.resumed, "evaluated_cases": self.evaluated,
                    "elapsed_seconds": round(elapsed, 3), "concurrency": self.options.concurrency,
                    "workers": self.workers, "deadline_passed": self.cut}
        return self.state.report_dict(run_info, self.bad_rows, self.bad_row_count,
                                      self.options.generated_by)


def _has_error(record: dict[str, Any]) -> bool:
    """Whether any check of a case record is an error."""
    return any(c.get("status") == "error" for c in record["checks"].values())


def _holds_results(path: Path) -> bool:
    """Whether a journal file exists with anything in it (an empty file is a fresh start)."""
    try:
        return path.stat().st_size > 0
    except FileNotFoundError:
        return False


def _close(runtime: Any) -> None:
    closer = getattr(runtime, "close", None)
    if closer is not None:
        closer()


async def _aclose(runtime: Any) -> None:
    closer = getattr(runtime, "aclose", None)
    if closer is not None:
        await closer()
    else:
        _close(runtime)
