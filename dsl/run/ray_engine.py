"""`evaldsl run --engine ray`: a run's cases judged by the actors of a Ray Data pipeline.

Reading: one Ray Data task per case file reads its rows with the loader a
local run uses (`read_rows`), so a bad row is named by file and line as there,
and packs them `BATCH_ROWS` (`MODEL_BATCH_ROWS` with model checks) to a Ray
row; a file named by a URI (`s3://...`) is read through pyarrow's filesystems
(`evaldsl.cases.remote`). Judging: `map_batches` over a pool of `BatchJudge`
actors, each compiling the spec once from its text; a batch becomes one part
(`evaldsl.run.parts`) through `run_shard`: its journal lines, its bad rows and
its `ShardState` as bytes. The driver writes each part as it arrives; when
every batch is in, it folds the parts in input order into the journal, the
sinks (JUnit) and its state, and the reports are written from that state as a
local run's are.

Failures: Ray Data restarts an actor that dies and runs its batch again
(`max_restarts=-1`, `max_task_retries=-1`, its defaults for actor pools); a
batch's part is named after its first row, so the retried batch replaces its
own part and counts once. `--resume` folds the parts already on disk and hands
the actors the rows they hold, which are not judged again.

Model checks: one `RateGate` actor (`evaldsl.run.rate_actor`) holds the judge's
`concurrency` and `requests_per_minute` across every actor; the permits of an actor
that died, held or waited for, come back once it has been silent for `SILENCE`. What this engine
does not do (`--limit`, `--deadline`, `--where`, ...) the command refuses
(docs/cluster.md).
"""

from __future__ import annotations

import gc
import logging
import os
import pickle
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from evaldsl.api import Spec
from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.cases.loading import RawRow, read_rows
from evaldsl.cases.remote import fetched, is_uri
from evaldsl.cases.rows import CaseSchema
from evaldsl.errors import JournalExistsError, ResumeError
from evaldsl.i18n import _
from evaldsl.report.journal import Header, ResultsWriter, encode
from evaldsl.report.journal_lock import lock
from evaldsl.report.layout import SpecLayout
from evaldsl.run.parts import Part, RunDirectory, part_name, read_part, record_of
from evaldsl.run.runner import Run, RunOptions, RunResult, Sink
from evaldsl.run.shards import ShardState, run_shard

BATCH_ROWS = 1000
"""Rows per batch of a deterministic spec, and so per part file: a retried batch judges
this many again, a fraction of a second's work; fewer batches are fewer Ray rows, calls
and part files."""
MODEL_BATCH_ROWS = 200
"""The same for a spec with model checks, whose batch takes seconds of judging each."""
BLOCK_BYTES = 4 * 1024 * 1024
"""Ray Data cuts what the reading task yields into blocks of about this size, and each
block is one task of an actor. A packed batch of a deterministic spec's cases is about
100 KiB, so a block holds a few dozen: tasks long enough that Ray's own work per task
is small, and enough of them that every actor has blocks from the first (at Ray's
default of 128 MiB, a file of a million cases was a few blocks, and one actor judged
while the other waited)."""
MODEL_BLOCK_BYTES = 64 * 1024
"""The same for a spec with model checks: one batch a block, since a batch takes seconds
to judge and the actors balance best on the smallest tasks."""
READ_CPUS = 0.25
"""The CPU share a reading task asks for."""
ACTOR_CPUS = 0.5
"""The CPU share each judging actor asks for: with one actor per CPU, room is left for
the tasks that read and cut the rows (cutting asks for a whole CPU), which otherwise wait
for a CPU the actors hold, and the run with them."""


LOCAL_SYSTEM_CONFIG = {"enable_metrics_collection": False, "task_events_report_interval_ms": 0,
                       "enable_timeline": False, "event_stats": False}
"""A local Ray started by the run records nothing for dashboards no one opens: on two cores
its daemons' bookkeeping took CPU the actors wanted."""


@dataclass(frozen=True)
class JudgeSetup:
    """What each actor needs, sent once when it starts."""

    spec_text: bytes
    spec_name: str
    layout: SpecLayout
    settings: Any
    concurrency: int
    gate: str | None
    """The name of the run's `RateGate`, when the spec has model checks."""
    done: frozenset[str]
    """Rows (`file:line`) a part on disk holds already."""


def run_ray(spec: Spec, layout: SpecLayout, paths: Sequence[str], options: RunOptions,
            actors: int, settings: Any = None, address: str | None = None,
            sinks: Sequence[Sink] = ()) -> RunResult:
    """`runner.run` with the cases judged by `actors` Ray actors; the same report.

    `address` is the cluster's (`ray start --head` prints it); without it a Ray
    already started in this process, or `RAY_ADDRESS`, or a local Ray is used.
    """
    return _RayRun(spec, layout, options, sinks, actors, settings, address).execute(paths)


class _RayRun(Run):
    """A run whose batches are judged on Ray; journal and report as `Run`'s."""

    def __init__(self, spec: Spec, layout: SpecLayout, options: RunOptions,
                 sinks: Sequence[Sink], actors: int, settings: Any, address: str | None,
                 ) -> None:
        super().__init__(spec, layout, options, None, sinks)
        self.workers = actors
        self.settings = settings
        self.address = address
        self.directory = RunDirectory(Path())
        """The run's parts: beside the journal, else in a temporary directory removed after."""
        self._temporary = False
        self._journal: Any = None
        self._earlier: frozenset[Path] = frozenset()

    # ------------------------------------------------------------ the run directory

    def _open_journal(self) -> None:
        """Lock the journal; continue the run directory beside it, refuse it, or start it."""
        path = self.options.results
        header = Header(self.layout.name, self.spec.hash, self.options.inputs)
        if path is None:
            self.directory = RunDirectory(Path(tempfile.mkdtemp(prefix="evaldsl-ray-")))
            self._temporary = True
            self.directory.start(header)
            return
        self.directory = RunDirectory.beside(path)
        self._journal = lock(path)
        try:
            self._continue_or_start(path, header)
        except BaseException:
            self._journal.close()
            raise

    def _continue_or_start(self, path: Path, header: Header) -> None:
        found = self.directory.header()
        written = path.stat().st_size > 0 or bool(self.directory.parts())
        if self.options.resume and found is not None:
            self._same_run(self.directory.path / "run.json", found, header)
            self._earlier = frozenset(self.directory.parts())
        elif self.options.resume and written:
            raise ResumeError(_("cannot resume: `{path}` was not written by a run with "
                                "--engine ray; resume it without --engine ray").format(path=path))
        elif written and not self.options.overwrite:
            raise JournalExistsError(
                _("`{path}` already holds the results of a run").format(path=path))
        else:
            self.directory.start(header)

    # ------------------------------------------------------------ judging

    def _consume(self, paths: Iterable[str]) -> None:
        try:
            self._judge(list(paths))
            self._fold_parts()
        finally:
            if self.writer is None and self._journal is not None:
                self._journal.close()
            if self._temporary:
                shutil.rmtree(self.directory.path, ignore_errors=True)

    def _judge(self, paths: list[str]) -> None:
        """Every batch not yet in a part, judged on Ray and written as its part."""
        started = _connect(self.address)
        gate: Any = None
        try:
            name = None
            if self.spec.has_model_checks:
                from evaldsl.run.rate_actor import start_gate

                judge = self._settings().judge
                name, gate = start_gate(judge.concurrency, judge.requests_per_minute,
                                        judge.timeout)
            for row in self._pipeline(paths, name).iter_rows():
                self.directory.write(str(row["name"]), str(row["text"]))
                self.progress.advance(int(row["cases"]))
        finally:
            _stop(gate, started)

    def _pipeline(self, paths: list[str], gate: str | None) -> Any:
        import ray.data

        context = ray.data.DataContext.get_current()
        # parts are named by their first row and folded in that order, so they may come
        # back in any order: a slow block then holds up no other actor's output
        context.execution_options.preserve_order = False
        context.target_max_block_size = (MODEL_BLOCK_BYTES if self.spec.has_model_checks
                                         else BLOCK_BYTES)
        context.enable_progress_bars = False  # the run's own progress bar shows instead
        logging.getLogger("ray.data").setLevel(logging.WARNING)  # not a line per dataset
        size = MODEL_BATCH_ROWS if self.spec.has_model_checks else BATCH_ROWS
        files = [{"index": i, "path": p, "file": p if is_uri(p) else str(Path(p).resolve()),
                  "batch_rows": size} for i, p in enumerate(paths)]
        listed = ray.data.from_items(files, override_num_blocks=max(len(files), 1))
        batches = listed.flat_map(file_batches, num_cpus=READ_CPUS)
        return batches.map_batches(BatchJudge, fn_constructor_args=(self._setup(gate),),
                                   compute=ray.data.ActorPoolStrategy(size=self.workers),
                                   batch_size=1, batch_format="numpy", num_cpus=ACTOR_CPUS)

    def _setup(self, gate: str | None) -> JudgeSetup:
        source = self.spec.source
        return JudgeSetup(source.text.encode("utf-8"), source.name, self.layout,
                          self._settings(), self.options.concurrency, gate,
                          self.directory.done() if self._earlier else frozenset())

    def _settings(self) -> Any:
        """The settings every actor builds its runtime from (read here when none were given:
        an actor may run on another machine, without this one's configuration)."""
        if self.settings is None and self.spec.has_model_checks:
            from evaldsl.model.settings import Settings

            self.settings = Settings.load()
        return self.settings

    # ------------------------------------------------------------ folding

    def _fold_parts(self) -> None:
        """Every part once, in input order: the journal, the sinks, the state, bad rows."""
        if self._journal is not None:
            assert self.options.results is not None
            header = Header(self.layout.name, self.spec.hash, self.options.inputs)
            self.writer = ResultsWriter(self.options.results, header, file=self._journal)
        for path in self.directory.parts():
            self._fold(read_part(path), path in self._earlier)

    def _fold(self, part: Part, earlier: bool) -> None:
        if self.writer is not None and part.lines:
            self.writer.write_line(part.lines)
        if self.sinks:
            for line in part.lines.splitlines():
                for sink in self.sinks:
                    sink.add(record_of(line))
        self.state = self.state.merge(ShardState.loads(part.state, self.spec, self.layout))
        self.seen += part.cases
        if earlier:
            self.resumed += part.cases
        else:
            self.evaluated += part.cases
        for bad in part.bad:
            self._bad_row(bad)


def file_batches(item: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A case file's rows in batches of `batch_rows` (a Ray Data `flat_map`), each one
    Ray row: the pipeline moves and schedules a batch, never a case, as a local run's
    pool does. Rows are named by the file as the command line names it: the task may run
    in another working directory, so it reads the full path."""
    given, file, size = str(item["path"]), str(item["file"]), int(item["batch_rows"])
    if not is_uri(file):
        yield from _batches(item["index"], given, read_rows([file]), size)
        return
    try:
        with fetched(file) as local:
            yield from _batches(item["index"], given, read_rows([local]), size)
    except OSError as exc:
        reason = _("cannot read the file: {value}").format(value=exc)
        yield _packed(item["index"], given, [(0, BadRow(given, 0, reason))])


def _batches(index: int, given: str, rows: Iterable[RawRow],
             size: int) -> Iterator[dict[str, Any]]:
    batch: list[tuple[int, Any]] = []
    for row in rows:
        data = row.data
        batch.append((row.line, replace(data, file=given) if isinstance(data, BadRow)
                      else data))
        if len(batch) == size:
            yield _packed(index, given, batch)
            batch = []
    if batch:
        yield _packed(index, given, batch)


def _packed(index: int, file: str, batch: list[tuple[int, Any]]) -> dict[str, Any]:
    return {"index": index, "file": file,
            "rows": pickle.dumps(batch, protocol=pickle.HIGHEST_PROTOCOL)}


class BatchJudge:
    """A Ray actor of the pipeline: the spec compiled once, each batch judged into a part."""

    def __init__(self, setup: JudgeSetup) -> None:
        from evaldsl.api import loads

        self.setup = setup
        self.spec = loads(setup.spec_text, name=setup.spec_name)
        self.schema = CaseSchema.of(self.spec)
        # the objects of Ray, pyarrow and the compiled spec live as long as the actor:
        # frozen, the collections that judging sets off no longer walk them (the actors
        # took 5-12% less CPU on 300,000 cases)
        gc.freeze()

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {"name": [], "text": [], "cases": []}
        for index, file, packed in zip(batch["index"], batch["file"], batch["rows"],
                                       strict=True):
            rows = [RawRow(str(file), line, data) for line, data in pickle.loads(packed)]
            todo = [row for row in rows if row.origin not in self.setup.done]
            if todo:
                part = self._judge(todo)
                out["name"].append(part_name(int(index), todo[0].line))
                out["text"].append(part.text())
                out["cases"].append(part.cases)
        return out

    def _judge(self, rows: list[RawRow]) -> Part:
        bad: list[BadRow] = []
        cases: list[Case] = []
        for row in rows:
            item = row.item(self.schema)
            if isinstance(item, Case):
                cases.append(item)
            elif item is not None:
                bad.append(item)
        spec, runtime = self._spec()
        records, state = run_shard(spec, self.setup.layout, cases, self.setup.concurrency,
                                   runtime)
        lines = b"".join(encode(record) for record in records)
        return Part(lines, state.dumps(), tuple(bad), len(records))

    def _spec(self) -> tuple[Spec, Any]:
        """The compiled spec with a runtime for one batch, its judge limited by the run's
        gate; one without model checks needs none."""
        if self.setup.gate is None:
            return self.spec, None
        from evaldsl.model.factory import default_runtime
        from evaldsl.run.rate_actor import SharedLimiter

        runtime = default_runtime(self.setup.settings,
                                  judge_limiter=SharedLimiter(self.setup.gate))
        return Spec(self.spec.graph, runtime=runtime), runtime


def _connect(address: str | None) -> bool:
    """Ray for this run: the one this process has, or the cluster at `address` (or
    `RAY_ADDRESS`), or a local one; whether it was started here (to be shut down)."""
    import ray

    if ray.is_initialized():
        return False
    if address is None and "RAY_ADDRESS" not in os.environ:
        ray.init(include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False,
                 _system_config=LOCAL_SYSTEM_CONFIG)
    else:
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
    return True


def _stop(gate: Any, started: bool) -> None:
    import ray

    if gate is not None:
        ray.kill(gate)
    if started:
        ray.shutdown()
