"""The public API for engines: `load` a spec, `evaluate` cases, `run` them into a `Report`.

    spec = evaldsl.load("specs/repair_booking.eval")   # or evaldsl.loads(spec_text)
    result = spec.evaluate({"id": "c1", "messages": [...], "intent": "inquiry"})
    result.labels["outcome"], result.checks["intent"].passed, result.trace
    report = spec.run(cases)          # or: report = spec.new_report(); report.add(result)
    report.merge(other_shard_report).to_dict()

A `Spec` is immutable once loaded and safe to share between threads; each
evaluation keeps its state on its own frame. A `Report` belongs to one
thread at a time; build one per worker and `merge` them.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaldsl.cases.case import Case
from evaldsl.cases.loading import case_of
from evaldsl.cases.rows import EMPTY_SCHEMA, CaseSchema
from evaldsl.diagnostics import Diagnostic
from evaldsl.errors import SpecError
from evaldsl.i18n import _
from evaldsl.model.requests import ModelRuntime
from evaldsl.primitives.registry import Registry, default_registry
from evaldsl.report.folded import Report
from evaldsl.results import CaseResult
from evaldsl.runtime.graph import Graph, build_graph
from evaldsl.runtime.interpreter import Interpreter, refuse_running_loop
from evaldsl.syntax.source import Source
from evaldsl.values import CheckResult

if TYPE_CHECKING:
    from evaldsl.model.protocols import Embedder, Judge

CaseLike = Case | Mapping[str, Any]
"""A `Case`, or a dict in the OpenAI format with `id`, `messages` and other fields."""


class Spec:
    """A loaded, checked and compiled spec; build it with `load`."""

    def __init__(self, graph: Graph, *, judge: Judge | None = None,
                 embedder: Embedder | None = None, runtime: ModelRuntime | None = None,
                 settings: Any = None) -> None:
        self.graph = graph
        self._judge = judge
        self._embedder = embedder
        self._settings = settings
        self._runtime = runtime
        self._runtime_lock = threading.Lock()
        self._runtime_built = runtime is not None
        self._owns_runtime = runtime is None
        self._interpreter = Interpreter(graph, self._get_runtime)
        self._layout: Any = None
        self._schema = CaseSchema.of(self)
        """The `case {}` block a dict case is checked against, as a case file's rows are."""

    # -------------------------------------------------------------- facts

    @property
    def title(self) -> str:
        """The `spec "..."` header, or the file name when there is none."""
        return self.graph.title

    @property
    def source(self) -> Source:
        return self.graph.source

    @property
    def hash(self) -> str:
        """sha256 of the spec text: reports and result files name the spec they came from."""
        return hashlib.sha256(self.graph.source.text.encode("utf-8")).hexdigest()

    @property
    def outcomes(self) -> dict[str, tuple[str, ...]]:
        """Labels per outcome block (the unnamed block under "outcome"), in branch order."""
        return {b.key: b.labels for b in self.graph.blocks}

    @property
    def checks(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.graph.checks)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        """What the checker warns about in a spec that loads (a let nothing reads, a `where`
        that never holds), sorted; `evaldsl.diagnostics.render(w, spec.source)` words one as
        `evaldsl check` does (docs/api.md)."""
        return self.graph.warnings

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.graph.metrics)

    @property
    def has_model_checks(self) -> bool:
        return self.graph.has_model_checks

    # -------------------------------------------------------------- evaluation

    def evaluate(self, case: CaseLike, *, pins: Mapping[str, CheckResult] | None = None,
                 ) -> CaseResult:
        """Evaluate one case; model checks, when needed, are resolved through the runtime.

        `pins` fixes check results by name (as `given` lines in examples do). Must not
        be called from a running event loop when the spec has model checks: use
        `evaluate_async` there.
        """
        return self._interpreter.evaluate(as_case(case, self._schema), pins)

    async def evaluate_async(self, case: CaseLike, *,
                             pins: Mapping[str, CheckResult] | None = None) -> CaseResult:
        """Evaluate one case without blocking the event loop."""
        return await self._interpreter.evaluate_async(as_case(case, self._schema), pins)

    def new_report(self, *, details: bool = True, keep_cases: bool = False) -> Report:
        """An empty report for this spec; `add` results to it, `merge` shards, `write` it.

        `details=False` leaves out what only report.json shows (per-check score
        distributions, slots, the worst cases), for a caller that folds those itself
        (a run's `ShardState`): such a report cannot be written. `keep_cases=True` keeps
        each case's record (without its trace), which JUnit (one test per case) and the
        HTML report's case explorer need; without it the report's memory does not grow
        with the cases.
        """
        builder = None
        if details:
            from evaldsl.report.json_report import ReportBuilder

            builder = ReportBuilder(self.layout)
        return Report(self.graph.title, self.hash, self._interpreter.report_plan, builder,
                      keep_cases=keep_cases and details)

    @property
    def layout(self) -> Any:
        """The spec as reports show it (`SpecLayout`): branches and metrics as written."""
        if self._layout is None:
            from evaldsl.report.layout import layout_of

            self._layout = layout_of(self.source, self.source.name, self.graph.module)
        return self._layout

    def run(self, cases: Iterable[CaseLike], *, concurrency: int = 8,
            keep_cases: bool = False) -> Report:
        """Evaluate every case and aggregate the results, the cases streamed: the report
        holds counters, not the cases, so memory stays flat however many there are.
        `keep_cases=True` keeps each case's record for `write_junit` and the HTML case
        explorer (memory then grows with the cases)."""
        if not self.has_model_checks:
            report = self.new_report(keep_cases=keep_cases)
            for given in cases:
                case = as_case(given, self._schema)
                report.add(self.evaluate(case), case)
            return report
        refuse_running_loop("await spec.run_async(cases)")
        import asyncio  # 0.04 s to import: only specs with model checks need a loop

        return asyncio.run(self.run_async(cases, concurrency=concurrency,
                                          keep_cases=keep_cases))

    async def run_async(self, cases: Iterable[CaseLike] | AsyncIterable[CaseLike], *,
                        concurrency: int = 8, keep_cases: bool = False) -> Report:
        """Evaluate cases with up to `concurrency` in flight and aggregate the results
        (`keep_cases` as for `run`)."""
        report = self.new_report(keep_cases=keep_cases)
        results = self.evaluate_many(cases, concurrency=concurrency)
        async with aclosing(results):
            async for result in results:
                report.add(result)
        return report

    def evaluate_many(self, cases: Iterable[CaseLike] | AsyncIterable[CaseLike], *,
                      concurrency: int = 8) -> AsyncGenerator[CaseResult, None]:
        """Each case's result as it finishes, with up to `concurrency` cases in flight.

        Results come in the order they finish, not the order of `cases`; each
        carries its case's id. More cases in flight than the judge's
        concurrency keeps its request slots full when some cases need no call.
        """
        from evaldsl.runtime.concurrency import run_concurrently

        return run_concurrently(self.evaluate_async, cases, concurrency)

    def model_stats(self) -> Any:
        """The runtime's `ModelStats` (calls, cache hits, tokens), or None without a runtime."""
        runtime = self._runtime
        return runtime.stats() if runtime is not None else None

    def close(self) -> None:
        """Close the model runtime this spec built itself (never one the caller passed in)."""
        runtime = self._owned_runtime()
        closer = getattr(runtime, "close", None)
        if closer is not None:
            closer()

    async def aclose(self) -> None:
        """`close` from inside an event loop."""
        runtime = self._owned_runtime()
        closer = getattr(runtime, "aclose", None)
        if closer is not None:
            await closer()
        else:
            self.close()

    def _owned_runtime(self) -> Any:
        with self._runtime_lock:
            if not self._owns_runtime or self._runtime is None:
                return None
            runtime, self._runtime, self._runtime_built = self._runtime, None, False
            return runtime

    def explain(self, format: str = "text") -> str:
        """The evaluation graph as a text tree, or as `dot` or `mermaid` source."""
        from evaldsl.analysis.explain_render import render

        return render(self.graph, format)

    # -------------------------------------------------------------- runtime

    def _get_runtime(self) -> ModelRuntime | None:
        """The model runtime, built on first need so loading a spec opens no connection."""
        if self._runtime_built:
            return self._runtime
        with self._runtime_lock:
            if not self._runtime_built:
                self._runtime = _default_runtime(self._settings, self._judge, self._embedder)
                self._runtime_built = True
        return self._runtime


def load(
    path: str | os.PathLike[str],
    *,
    registry: Registry | None = None,
    judge: Judge | None = None,
    embedder: Embedder | None = None,
    runtime: ModelRuntime | None = None,
    settings: Any = None,
) -> Spec:
    """Load the spec file at `path`, check it and compile it; `loads` takes spec text.

    Args:
        path: the spec file (a `str` or `Path`); diagnostics name it as given.
        registry: the primitives; the standard library plus installed plugins by default.
        judge, embedder: model interfaces an engine injects; used by the default runtime.
        runtime: a whole `ModelRuntime` replacing the default one.
        settings: passed to `evaldsl.model.default_runtime`.

    Raises:
        SpecError: the file cannot be read, or the spec has errors; `.diagnostics` lists
            them, `str()` renders them.
    """
    return loads(_read(path), registry=registry, judge=judge, embedder=embedder,
                 runtime=runtime, settings=settings, name=os.fspath(path))


def loads(
    text: str | bytes,
    *,
    registry: Registry | None = None,
    judge: Judge | None = None,
    embedder: Embedder | None = None,
    runtime: ModelRuntime | None = None,
    settings: Any = None,
    name: str = "<spec>",
) -> Spec:
    """Load a spec from its text (`str`, or UTF-8 `bytes`), check it and compile it.

    The text is never taken for a path, however short. `name` is the file name
    diagnostics and reports show for it; the other arguments are those of `load`.

    Raises:
        SpecError: the spec has errors; `.diagnostics` lists them, `str()` renders them.
    """
    graph = compile_spec(text, name, registry or default_registry())
    return Spec(graph, judge=judge, embedder=embedder, runtime=runtime, settings=settings)


def compile_spec(text: str | bytes, name: str, registry: Registry) -> Graph:
    """Parse, check and build the graph from the checker's facts, or raise `SpecError`."""
    from evaldsl.checker import analyse_module
    from evaldsl.diagnostics import render_all, sort_key
    from evaldsl.syntax.parser import parse

    parsed = parse(text, name)
    diagnostics = list(parsed.diagnostics)
    facts = None
    if parsed.module is not None:
        checked = analyse_module(parsed.module, parsed.source, registry)
        diagnostics.extend(checked.diagnostics)
        facts = checked.analysis
    errors = [d for d in diagnostics if d.is_error]
    if errors or facts is None:
        raise SpecError(errors, render_all(errors, {parsed.source.name: parsed.source}))
    graph = build_graph(facts)
    graph.warnings = tuple(sorted(diagnostics, key=sort_key))
    return graph


def as_case(case: CaseLike, schema: CaseSchema = EMPTY_SCHEMA) -> Case:
    """A `Case` from a `Case` or an OpenAI-format dict, which is checked as a case file's row
    is (`CaseDataError` naming the field when it is malformed)."""
    if isinstance(case, Case):
        return case
    if isinstance(case, Mapping):
        return case_of(case, schema)
    raise TypeError(f"a case must be an evaldsl.Case or a dict, not {type(case).__name__}")


def _read(path: str | os.PathLike[str]) -> bytes:
    try:
        return Path(path).read_bytes()
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise SpecError(
            [], _("cannot read spec `{spec}`: {value}").format(spec=os.fspath(path), value=why)
        ) from exc


def _default_runtime(settings: Any, judge: Judge | None,
                     embedder: Embedder | None) -> ModelRuntime:
    """`evaldsl.model.default_runtime`, imported here so a spec without model checks never
    loads the model layer."""
    from evaldsl.model.factory import default_runtime

    return default_runtime(settings, judge=judge, embedder=embedder)
