"""`Runner`: one entry point for a run on any engine: this process, a pool of processes, Ray.

    spec = evaldsl.load("specs/bfcl.eval")
    runner = Runner(workers=2, results=Path("results.jsonl"),
                    outputs=ReportFiles(json=Path("report.json")))
    result = runner.run(spec, [Path("examples/bfcl.jsonl")])
    result.report                     # a ReportDoc, as `evaldsl run --workers 2` writes

What `evaldsl run` does with its flags, for an engine that embeds evaldsl: the options
checked before any work (`check`), the engine chosen (`workers=1` judges in this process,
`workers=N` in N processes, `engine="ray"` on Ray's actors), the journal written, resumed
or refused the same way, the selection (`where`, `ids`, `sample`) drawn, cases kept in
flight for the judge's request slots, a driven run's agent driven (`drive`), and the report
files written. Every engine gives the same report; only its `run` section (about the process)
differs. The gates (`evaldsl.report.gates`) and what is printed are the caller's.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from evaldsl.cases.remote import RemoteFile
from evaldsl.errors import OptionsError
from evaldsl.i18n import _
from evaldsl.report.outputs import ReportFiles, tool_version

if TYPE_CHECKING:
    from evaldsl.api import Spec
    from evaldsl.run.driving import Drive, Driving
    from evaldsl.run.runner import RunOptions, RunResult

Engine = Literal["local", "ray"]
CASES_PER_REQUEST = 4
"""Cases in flight per judge request slot when `concurrency` is not given."""
DEFAULT_REQUESTS = 8
"""The judge's default `concurrency`, for a spec without model checks (no settings read)."""
RAY_UNSUPPORTED = ("limit", "deadline", "where", "ids", "sample", "drive", "input_format")
"""Options the Ray engine does not take (docs/cluster.md says why)."""
_FLAGS = {"drive": "target"}
"""An option's flag where the two are spelt apart."""

CaseInput = Path | RemoteFile


@dataclass(frozen=True)
class Runner:
    """How to run: the engine, the journal, which cases, the model settings, the reports.

    Each field is the `evaldsl run` flag of the same name (docs/running.md)."""

    workers: int = 1
    """Processes that evaluate cases, each with its own judge client (1: this process)."""
    engine: Engine = "local"
    actors: int | None = None
    """With `engine="ray"`: actors that judge batches (default: `workers`)."""
    address: str | None = None
    """With `engine="ray"`: the cluster's address (default: `RAY_ADDRESS`, else a local Ray)."""
    settings: Any = None
    """The model `Settings` (`evaldsl.model.resolve.resolve_settings`); None reads the
    settings files when the spec has model checks."""
    results: Path | None = None
    """The journal, one line per case (results.jsonl); None runs without one."""
    resume: bool = False
    overwrite: bool = False
    concurrency: int | None = None
    """Cases in flight (default: `CASES_PER_REQUEST` times the judge's concurrency)."""
    limit: int | None = None
    deadline: float | None = None
    """A `time.time()` value after which nothing is asked (one process only)."""
    on_bad_row: Literal["skip", "fail"] = "fail"
    input_format: str | None = None
    """`chat`, `otel` or `openinference`; None detects it by content."""
    field_map: Path | None = None
    where: str | None = None
    ids: Path | None = None
    sample: int | None = None
    seed: int | None = None
    drive: Drive | None = None
    """Drive the agent under test with the inputs as scenarios, then judge the dialogs."""
    outputs: ReportFiles = field(default_factory=ReportFiles)
    otel_out: Path | None = None
    """Each verdict as an OpenTelemetry `gen_ai.evaluation.result` event (OTLP/JSON lines)."""
    progress: bool | None = False
    """A progress bar on stderr; None shows one when stderr is a terminal."""
    announce: Callable[[str], None] | None = None
    """Where one-line notices go (`resumed: ...`, the local judge's model file)."""
    generated_by: str = field(default_factory=tool_version)

    # ------------------------------------------------------------ before any work

    def check(self, inputs: Sequence[CaseInput] = ()) -> None:
        """Refuse what does not go together, before the spec is even read (`OptionsError`)."""
        if self.resume and self.results is None:
            raise OptionsError(_("--resume needs --results: the journal to resume from"))
        self.outputs.check()
        if self.drive is not None:  # only a driven run imports the driving of an agent
            from evaldsl.run.driving import check_drive

            check_drive(self.drive, self.workers)
        if self.deadline is not None and self.workers > 1:
            raise OptionsError(_("--deadline works with one process only; leave out --workers"))
        self._check_engine(inputs)
        if self.seed is not None and self.sample is None and self.drive is None:
            raise OptionsError(_("--seed is the seed of --sample; add --sample N"))

    def _check_engine(self, inputs: Sequence[CaseInput]) -> None:
        """The Ray engine's options and URIs only with it, its refusals, and Ray installed."""
        if self.engine != "ray":
            for name in ("actors", "address"):
                if getattr(self, name) is not None:
                    raise OptionsError(_("--{flag} needs --engine ray").format(flag=name))
            remote = next((c for c in inputs if isinstance(c, RemoteFile)), None)
            if remote is not None:
                raise OptionsError(_("`{uri}` is a URI: only --engine ray reads case files "
                                     "from other filesystems").format(uri=remote),
                                   _("run with --engine ray, or copy the file here"))
            return
        given = [name for name in RAY_UNSUPPORTED if getattr(self, name) is not None]
        if given:
            raise OptionsError(_("--{flag} does not work with --engine ray").format(
                flag=_FLAGS.get(given[0], given[0])),
                _("docs/cluster.md lists what a Ray run supports"))
        from importlib.util import find_spec

        if find_spec("ray") is None:
            raise OptionsError(_("--engine ray needs Ray, which is not installed"),
                               _("install it with `pip install \"evaldsl[ray]\"`"))

    # ------------------------------------------------------------ the run

    def run(self, spec: Spec, inputs: Sequence[CaseInput]) -> RunResult:
        """Judge the case files (`Path`s; with Ray also URIs) into a report: the journal, the
        report files and the result; see the module docstring."""
        from evaldsl.api import Spec

        self.check(inputs)
        if self.field_map is not None and (self.engine == "ray" or self.workers > 1):
            raise OptionsError(_("--map reads rows in this process only: leave out --workers "
                                 "and --engine ray"))
        runtime = None
        if self.settings is not None and self.workers == 1 and self.engine == "local":
            from evaldsl.model.factory import default_runtime

            runtime = default_runtime(self.settings)
            spec = Spec(spec.graph, runtime=runtime)
        if self.results is not None:
            self.results.parent.mkdir(parents=True, exist_ok=True)
        missing = [c for c in inputs if isinstance(c, Path) and not c.is_file()]
        if missing:
            raise FileNotFoundError(errno.ENOENT, _("no such file"), str(missing[0]))
        selection = self._selection(spec, inputs)
        driving = None
        if self.drive is not None:
            from evaldsl.run.driving import Driving

            driving = Driving(self.drive, spec, self.deadline)
        try:
            return self._judged(spec, inputs, selection, runtime, driving)
        finally:
            if driving is not None:
                driving.close()

    def _judged(self, spec: Spec, inputs: Sequence[CaseInput], selection: Any, runtime: Any,
                driving: Driving | None) -> RunResult:
        from evaldsl.run.runner import RunOptions

        names = tuple(map(str, inputs))
        options = RunOptions(results=self.results, inputs=names,
                             concurrency=self._cases_in_flight(driving), limit=self.limit,
                             resume=self.resume, overwrite=self.overwrite,
                             on_bad_row=self.on_bad_row, progress=self.progress,
                             total=None if selection is not None else self._count_rows(inputs),
                             generated_by=self.generated_by, announce=self.announce,
                             deadline=self.deadline, selection=selection)
        layout = spec.layout
        junit = self.outputs.junit_sink(layout)
        explorer = self._explorer(layout, names)
        otel = self._otel(layout, names)
        try:
            result = self._evaluate(spec, inputs, options, runtime, junit, explorer, otel,
                                    driving)
        except BaseException:
            if junit is not None:
                junit.discard()
            raise
        if junit is not None:
            junit.finish(result.elapsed)
        if otel is not None:
            otel.finish()
        if driving is not None:
            result.report.target = driving.tally.summary()
        self.outputs.write(result.report, explorer)
        return result

    def _evaluate(self, spec: Spec, inputs: Sequence[CaseInput], options: RunOptions,
                  runtime: Any, junit: Any, explorer: Any, otel: Any,
                  driving: Driving | None) -> RunResult:
        """The engine: this process, `workers` processes reading the rows this one hands
        them (each builds its own model runtime from the settings), or Ray's actors."""
        from evaldsl.cases.loading import read_cases, read_rows

        sinks = [sink for sink in (junit, explorer, otel) if sink is not None]
        layout = spec.layout
        if self.engine == "ray":
            from evaldsl.run.ray_engine import run_ray

            return run_ray(spec, layout, [str(c) for c in inputs], options,
                           self.actors or self.workers, self.settings, self.address, sinks)
        paths = [Path(str(c)) for c in inputs]
        if self.workers > 1:
            from evaldsl.run.workers import run_workers

            return run_workers(spec, layout, read_rows(paths, self.input_format), options,
                               self.workers, self.settings, sinks)
        from evaldsl.run.runner import run as run_cases

        if driving is not None:
            return run_cases(spec, layout, driving.scenarios(paths, spec), options, runtime,
                             [*sinks, driving.tally], driving.driver)
        cases = read_cases(paths, self._schema(spec), "skip", self.input_format)
        return run_cases(spec, layout, cases, options, runtime, sinks)

    # ------------------------------------------------------------ its parts

    def _schema(self, spec: Spec) -> Any:
        """How a row becomes a case: the spec's `case` block, read through the field map."""
        from evaldsl.cases.fieldmap import FieldMap
        from evaldsl.cases.rows import CaseSchema

        return CaseSchema.of(spec, FieldMap.load(self.field_map)
                             if self.field_map is not None else None)

    def _selection(self, spec: Spec, inputs: Sequence[CaseInput]) -> Any:
        """`where`, `ids`, `sample`, checked before anything runs; with `sample` the input
        is read once more here to draw it (the rule: `evaldsl.run.selection`)."""
        if self.where is None and self.ids is None and self.sample is None:
            return None
        from evaldsl.cases.case import Case
        from evaldsl.cases.loading import read_cases
        from evaldsl.run.selection import Selection, read_ids
        from evaldsl.run.where import Where

        where = Where(self.where, spec, spec.graph.registry) if self.where is not None else None
        selection = Selection(where, read_ids(self.ids) if self.ids is not None else None,
                              self.sample, self.seed or 0)
        if self.sample is None:
            return selection
        paths = [Path(str(c)) for c in inputs]
        if self.drive is not None:
            from evaldsl.agents.scenarios import read_scenarios
            from evaldsl.cases.rows import CaseSchema

            cases = read_scenarios(paths, CaseSchema.of(spec))
        else:
            cases = read_cases(paths, self._schema(spec), "skip", self.input_format)
        return selection.with_sample(c for c in cases if isinstance(c, Case))

    def _cases_in_flight(self, driving: Driving | None = None) -> int:
        """`concurrency`, or enough cases to keep the judge's request slots full.

        A case often needs no model call (a cheap check decided it) or is between
        rounds, so as many cases as requests would leave slots empty; a few times
        as many keeps them busy and costs only the cases' memory.
        """
        if self.concurrency is not None:
            return int(self.concurrency)
        requests = (self.settings.judge.concurrency if self.settings is not None
                    else DEFAULT_REQUESTS)
        judged = CASES_PER_REQUEST * int(requests)
        return max(judged, driving.concurrency) if driving is not None else judged

    def _count_rows(self, inputs: Sequence[CaseInput]) -> int | None:
        """Lines in JSONL inputs, for the progress bar's ETA and a resumed run's notice (only
        when a bar will show or the run resumes: counting reads the files once more)."""
        import sys

        shows = self.progress if self.progress is not None else sys.stderr.isatty()
        jsonl = all(c.suffix.lower() in (".jsonl", ".ndjson") for c in inputs)
        local = all(isinstance(c, Path) for c in inputs)
        if not (shows or self.resume) or not jsonl or not local or self._traced(inputs):
            return None
        total = 0
        for path in inputs:
            assert isinstance(path, Path)
            with path.open("rb") as f:
                total += sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b""))
        return total

    def _traced(self, inputs: Sequence[CaseInput]) -> bool:
        """Whether some input is a trace file, whose lines are spans, not cases."""
        if self.input_format in ("otel", "openinference"):
            return True
        if self.input_format == "chat":
            return False
        from evaldsl.cases.trace_sniff import is_trace_file

        return any(is_trace_file(c) for c in inputs if isinstance(c, Path))

    def _explorer(self, layout: Any, names: tuple[str, ...]) -> Any:
        """The HTML page's case records; a driven run's dialogs come from its transcripts."""
        if self.drive is None:
            return self.outputs.explorer_sink(layout, names)
        from evaldsl.agents.scenarios import read_scenarios

        transcripts = None if self.drive.transcripts is None else str(self.drive.transcripts)
        return self.outputs.explorer_sink(layout, names, transcripts, read_scenarios)

    def _otel(self, layout: Any, names: tuple[str, ...]) -> Any:
        """The `gen_ai.evaluation.result` events of `otel_out`, or None without it."""
        if self.otel_out is None:
            return None
        from evaldsl.report.otel_events import OtelEvents

        self.otel_out.parent.mkdir(parents=True, exist_ok=True)
        return OtelEvents(self.otel_out, layout.name, list(names), self.input_format)


def deadline_in(seconds: float | None) -> float | None:
    """A `deadline` `seconds` from now, for `Runner(deadline=...)`; None stays None."""
    return time.time() + seconds if seconds is not None else None


def with_settings(runner: Runner, settings: Any) -> Runner:
    """The runner with the model settings resolved once the spec is known."""
    return replace(runner, settings=settings)
