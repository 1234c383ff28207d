"""Streaming, resumable runs: cases in, one journal line per case out, a report at the end.

A run reads cases as a stream (never all in memory), evaluates up to
`concurrency` of them at once (asyncio; a spec without model checks runs
inline, which is faster), appends each result to the journal (results.jsonl)
the moment it is done, and folds it into the report. The journal's
durability policy is in `evaldsl.report.journal`.

Resuming (`resume=True`) reads the journal back (`evaldsl.report.journal_read`
checks each line): every complete line is folded into the report exactly as
if it had just been evaluated, a torn last line (the process was killed
mid-write, even by `kill -9`) is cut off, and the input is streamed again,
skipping the rows the journal already holds (by row, not id:
`evaldsl.run.journaled`, which also refuses lines for rows the input does
not have). Everything the report holds is independent of the order in which
cases finish, so a resumed run ends with the same report as an uninterrupted
one; only the `run` section (about the process) differs. The journal is
locked for the whole run (`evaldsl.report.journal_lock`) before it is read
or written.

With a `driver` (`evaldsl run --target`), each input row is a scenario: the driver sends
its user turns to the agent under test (`evaldsl.agents.driver`) and the conversation it
records is what is judged, as soon as it ends, in the same stream; a resumed run takes a
scenario the driver already saved from its transcripts file instead of sending it again.

What the cases add up to is a `ShardState` (`evaldsl.run.shards`); with
`--workers` the cases are evaluated in worker processes and their states
merged into this one (`evaldsl.run.workers` drives them on this class).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from evaldsl.api import Spec
from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.cases.loading import Item
from evaldsl.errors import CaseDataError, JournalExistsError, ResumeError
from evaldsl.i18n import _, ngettext
from evaldsl.record import CaseRecord, encode_line
from evaldsl.report.document import ReportDoc, RunInfo
from evaldsl.report.folded import Report
from evaldsl.report.journal import Header, ResultsWriter, case_record, recover
from evaldsl.report.journal_lock import lock
from evaldsl.report.journal_read import check_version, read_entries
from evaldsl.report.layout import SpecLayout
from evaldsl.report.progress import Progress
from evaldsl.results import CaseResult
from evaldsl.run.journaled import Journaled
from evaldsl.run.selection import LeftOut, Selection
from evaldsl.run.shards import ShardState

BAD_ROWS_LISTED = 100
"""Skipped rows listed by file and line in the report; all of them are counted."""


@dataclass(frozen=True)
class RunOptions:
    results: Path | None = None
    """The journal; None runs without one (nothing to resume from)."""
    inputs: tuple[str, ...] = ()
    """The case files, as named: the journal's header records them and a resumed run
    must read the same ones."""
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
    selection: Selection | None = None
    """`--where`, `--ids`, `--sample`: the rows to judge (`evaldsl.run.selection`), recorded
    in the journal's header so that `resume` refuses another selection."""


@dataclass
class RunResult:
    report: ReportDoc
    """The report (docs/report.schema.json)."""
    aggregate: Report
    evaluated: int = 0
    """Cases evaluated by this process."""
    resumed: int = 0
    """Cases read back from the journal."""
    elapsed: float = 0.0
    bad_rows: list[BadRow] = field(default_factory=list)


class Driven(Protocol):
    """One scenario driven: the case to judge, or the error result the agent's failure is."""

    @property
    def case(self) -> Case: ...
    @property
    def failure(self) -> CaseResult | None: ...
    @property
    def note(self) -> dict[str, Any]:
        """Kept in the case's journal line as `target` (latencies, the failure)."""
        ...


class Driver(Protocol):
    """Turns a scenario into a conversation with the agent under test."""

    def saved(self, scenario: Case) -> Case | None:
        """The conversation an earlier run recorded for the scenario, if any."""
        ...

    async def drive(self, scenario: Case) -> Driven: ...

    async def aclose(self) -> None: ...


class Sink(Protocol):
    """Receives every case record of the run, journaled ones included (a JUnit writer)."""

    def add(self, record: CaseRecord) -> None: ...


def run(spec: Spec, layout: SpecLayout, cases: Iterable[Item], options: RunOptions,
        runtime: Any = None, sinks: Sequence[Sink] = (), driver: Driver | None = None,
        ) -> RunResult:
    """Evaluate a stream of cases into a report; see the module docstring.

    `runtime`, the spec's model runtime when the caller built it, is closed at
    the end, inside the event loop its async clients belong to. Every record
    (read back from the journal or new) also goes to each of `sinks`. With `driver`, the
    cases are scenarios, driven before they are judged.
    """
    return Run(spec, layout, options, runtime, sinks, driver).execute(cases)


class Run:
    """One run: the journal, the stream of cases, bad rows, and the report at the end."""

    def __init__(self, spec: Spec, layout: SpecLayout, options: RunOptions,
                 runtime: Any = None, sinks: Sequence[Sink] = (),
                 driver: Driver | None = None) -> None:
        self.spec = spec
        self.driver = driver
        self.runtime = runtime
        self.sinks = tuple(sinks)
        self.options = options
        self.layout = layout
        self.state = ShardState.empty(spec, layout)
        self.workers = 1
        """Processes that evaluate cases (this one, or a pool of workers)."""
        self.journaled: Journaled | None = None
        """With `resume`, the journal's rows not yet met in the input."""
        self.writer: ResultsWriter | None = None
        self.bad_rows: list[BadRow] = []
        self.bad_row_count = 0
        self.seen = 0
        self.evaluated = 0
        self.resumed = 0
        self.progress = Progress(options.progress, options.total, options.limit)
        self.cut = False
        """Whether the deadline stopped the run before every case was judged."""
        selection = options.selection
        self.left_out = LeftOut(selection) if selection is not None else None
        """The rows the selection left out, by reason; None without a selection."""

    def execute(self, source: Iterable[Any]) -> RunResult:
        started = time.monotonic()
        self._open_journal()
        try:
            with self.progress:
                self.progress.skip(self.resumed)
                self._consume(source)
            self._journal_cost()
            self._check_journal_met()
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
        if self.spec.has_model_checks or self.driver is not None:
            import asyncio  # 0.04 s to import: deterministic specs run without a loop

            asyncio.run(self._drive_async(self._todo(cases)))
        else:
            self._drive(self._todo(cases))
        self.state.stats = self.spec.model_stats()

    # ------------------------------------------------------------ journal

    def _journal_cost(self) -> None:
        """The model calls this run made, as the journal's last line (`journal.is_cost_note`):
        `evaldsl merge` adds the shards' costs from there."""
        if self.writer is not None and self.state.stats is not None:
            from evaldsl.report.journal import FORMAT
            from evaldsl.report.json_report import cost_dict

            self.writer.write({"format": FORMAT, "cost": cost_dict(self.state.stats)})

    def _open_journal(self) -> None:
        """Lock the journal, then resume it, refuse it or start it afresh."""
        path = self.options.results
        if path is None:
            return
        selection = self.options.selection
        header = Header(self.layout.name, self.spec.hash, self.options.inputs,
                        selection.describe() if selection is not None else None)
        file = lock(path)
        try:
            size = path.stat().st_size
            if self.options.resume and size:
                self.writer = ResultsWriter(path, header, self._replay(path, header), file)
                self._announce_resumed(path)
                return
            if size and not self.options.overwrite:
                raise JournalExistsError(
                    _("`{path}` already holds the results of a run").format(path=path))
        except BaseException:
            file.close()
            raise
        self.writer = ResultsWriter(path, header, file=file)

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
        self._same_run(path, recovered.header, header)
        self.journaled = Journaled(path, header.inputs)
        for entry in read_entries(path, self.state.report.plan):
            self.journaled.add(entry)
            self.state.add(CaseResult.from_record(entry.record), entry.record)
            for sink in self.sinks:
                sink.add(entry.record)
            self.resumed += 1
        return recovered.good_bytes

    @staticmethod
    def _same_run(path: Path, found: Header | None, header: Header) -> None:
        """The journal is of this spec, in this version, over these case files."""
        if found is None:
            return
        check_version(path, found)
        if found.spec_hash != header.spec_hash:
            raise ResumeError(_("cannot resume: `{path}` holds results of another spec (hash "
                                "{found}, this spec {hash}); run with --overwrite instead of "
                                "--resume to start over").format(
                path=path, found=found.spec_hash[:12], hash=header.spec_hash[:12]))
        if header.inputs and found.inputs != header.inputs:
            raise CaseDataError(str(path), 1, _(
                "the journal of a run over {found}, not {inputs}").format(
                    found=_names(found.inputs), inputs=_names(header.inputs)),
                hint=_("resume with the case files of the run that wrote the journal, or "
                       "start over with --overwrite"))
        if (found.selection or {}) != (header.selection or {}):
            raise ResumeError(_("cannot resume: `{path}` holds a run over another selection "
                                "({found}; this run: {selection}); resume with the same "
                                "--where, --ids and --sample, or start over with "
                                "--overwrite").format(
                path=path, found=_selection(found.selection),
                selection=_selection(header.selection)))

    def _check_journal_met(self) -> None:
        """Every journaled row was in the input, unless `--limit` stopped reading it."""
        limit = self.options.limit
        if self.journaled is not None and (limit is None or self.seen < limit):
            self.journaled.check_all_met()

    # ------------------------------------------------------------ the stream

    def _todo(self, items: Iterable[Item]) -> Iterator[Case]:
        """The cases still to evaluate: bad rows counted, resumed and over-limit ones skipped."""
        limit, deadline = self.options.limit, self.options.deadline
        for item in items:
            if limit is not None and self.seen >= limit:
                return
            if deadline is not None and time.time() >= deadline:  # past `--deadline`
                self.cut = True
                return
            if isinstance(item, BadRow):
                self._bad_row(item)
                continue
            if self.left_out is not None and self.left_out.leaves_out(item):
                continue
            self.seen += 1
            if not item.origin:  # a case given in memory: its place in the stream
                item = replace(item, origin=f"#{self.seen}")
            if self.journaled is not None and self.journaled.take(item.origin, item.id):
                saved = self.driver.saved(item) if self.driver is not None else None
                self.state.builder.offer_dialog(saved or item)
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
        from evaldsl.runtime.concurrency import run_concurrently

        results = run_concurrently(self._evaluate, cases, self.options.concurrency)
        try:
            async with aclosing(results):
                async for case, result, note in results:
                    self._record(case, result, note)
        finally:
            if self.driver is not None:
                await self.driver.aclose()
            if self.runtime is not None:
                await _aclose(self.runtime)

    async def _evaluate(self, case: Case) -> tuple[Case, CaseResult, dict[str, Any] | None]:
        """The case's result; a scenario is driven first, and judged only if it ended."""
        if self.driver is None:
            return case, await self.spec.evaluate_async(case), None
        driven = await self.driver.drive(case)
        if driven.failure is not None:
            return driven.case, driven.failure, driven.note
        return driven.case, await self.spec.evaluate_async(driven.case), driven.note

    def _record(self, case: Case, result: CaseResult, note: dict[str, Any] | None = None,
                ) -> None:
        record = case_record(result, case)
        if note is not None:
            record.target = note
        deadline = self.options.deadline
        if deadline is not None and time.time() >= deadline and _has_error(record):
            self.cut = True  # maybe cut short: reported, but left for `resume` to judge again
        elif self.writer is not None:
            self.writer.write_line(encode_line(record))
        self.state.add_judged(result, record, case)
        for sink in self.sinks:
            sink.add(record)
        self.evaluated += 1
        self.progress.advance(1)

    # ------------------------------------------------------------ the report

    def _report(self, elapsed: float) -> ReportDoc:
        run_info = RunInfo(resumed_cases=self.resumed, evaluated_cases=self.evaluated,
                           elapsed_seconds=round(elapsed, 3),
                           concurrency=self.options.concurrency, workers=self.workers,
                           deadline_passed=self.cut)
        report = self.state.report_doc(run_info, self.bad_rows, self.bad_row_count,
                                       self.options.generated_by)
        if self.left_out is not None:
            self.left_out.count_in(report.cases)
        return report


def _names(paths: tuple[str, ...]) -> str:
    return ", ".join(f"`{p}`" for p in paths) if paths else _("unnamed cases")


def _selection(described: dict[str, Any] | None) -> str:
    """A recorded selection in a message: `where case.x == 1, sample 50 seed 7`."""
    if not described:
        return _("every row")
    return "`" + ", ".join(f"{key} {value}" for key, value in described.items()) + "`"


def _has_error(record: CaseRecord) -> bool:
    """Whether any check of a case record is an error."""
    return any(c.get("status") == "error" for c in record.checks.values())


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
