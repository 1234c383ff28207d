"""The run page's runs: a spec's examples in this process, or a cases file in a child.

Examples are offline (pinned model results) and quick, so they run here, one at a time
between turns of the event loop, folded into a `Report` whose HTML page is the results.
A cases file may take hours and call models, so it runs as `evaldsl run` in a child
process with its own journal: progress is the journal's case lines, a crash of the
studio loses no finished case, and the reports are the command line's, byte for byte.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaldsl.api import loads
from evaldsl.errors import EvaldslError
from evaldsl.i18n import _, current_language, ngettext
from evaldsl.report.explorer import Explorer
from evaldsl.report.writers import render_report
from evaldsl.run.lifeline import child_env
from evaldsl.run.spec_tests import ExampleInterpreter, examples_of, failure_report, run_example

POLL_S = 0.2
"""How often a child run's journal is read for progress."""
STDERR_SHOWN = 2000
"""The end of a failed child's error output shown on the page, in characters."""


@dataclass
class Run:
    """One run as the page polls it."""

    id: str
    kind: str
    """`examples` or `cases`."""
    state: str = "running"
    """`running`, `done` (every case has a result, failed cases included) or `failed`."""
    done: int = 0
    total: int | None = None
    """Cases or examples to do, when known before they are done."""
    message: str = ""
    examples: list[dict[str, Any]] = field(default_factory=list)
    page: str | None = field(default=None, repr=False)
    """The results as the HTML report, once there are any."""
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "state": self.state, "done": self.done,
                "total": self.total, "message": self.message, "examples": self.examples,
                "results": f"/results/{self.id}" if self.page is not None else None}


class Runs:
    """Every run of this studio session, newest last; child runs write under `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.all: dict[str, Run] = {}
        self._ids = itertools.count(_first_free(folder / "runs"))
        self._children: set[asyncio.subprocess.Process] = set()

    def _new(self, kind: str) -> Run:
        run = Run(str(next(self._ids)), kind)
        self.all[run.id] = run
        return run

    def start_examples(self, text: str, name: str) -> Run:
        run = self._new("examples")
        run.task = asyncio.create_task(_guarded(run, _examples(run, text, name)))
        return run

    def start_cases(self, spec: Path, cases: Path, sample: int | None, seed: int | None) -> Run:
        run = self._new("cases")
        run.total = _row_count(cases, sample)
        folder = self.folder / "runs" / run.id
        run.task = asyncio.create_task(
            _guarded(run, self._cases(run, spec, cases, folder, sample, seed)))
        return run

    async def _cases(self, run: Run, spec: Path, cases: Path, folder: Path,
                     sample: int | None, seed: int | None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        journal, html = folder / "results.jsonl", folder / "report.html"
        argv = [sys.executable, "-m", "evaldsl", "--lang", current_language(), "run",
                str(spec), str(cases), "--results", str(journal), "--html", str(html),
                "-o", str(folder / "report.json"), "--quiet"]
        if sample is not None:
            argv += ["--sample", str(sample), "--seed", str(seed if seed is not None else 0)]
        child = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE, env=child_env())  # it ends with the studio
        self._children.add(child)
        try:
            errors = asyncio.create_task(_read_all(child))
            while not errors.done():
                run.done = _cases_in(journal)
                await asyncio.wait({errors}, timeout=POLL_S)
            run.done = _cases_in(journal)
            _finish_cases(run, child.returncode, html, errors.result().decode("utf-8", "replace"))
        finally:
            self._children.discard(child)

    async def close(self) -> None:
        """Stop the child runs still going (their journals keep every finished case)."""
        for child in list(self._children):
            if child.returncode is None:
                child.terminate()
        for child in list(self._children):
            try:
                await asyncio.wait_for(child.wait(), 10)
            except TimeoutError:
                child.kill()
                await child.wait()


def _first_free(folder: Path) -> int:
    """The number after every run folder already there: an earlier session's journals are
    kept, never written over."""
    taken = [int(p.name) for p in folder.iterdir() if p.name.isdigit()] if folder.is_dir() else []
    return max(taken, default=0) + 1


async def _guarded(run: Run, work: Coroutine[Any, Any, None]) -> None:
    """`work`, and a run that failed out loud should it raise: the page must not poll a
    run that will never end."""
    try:
        await work
    except Exception as exc:  # a bug or the system (no process could be started)
        run.state = "failed"
        run.message = _("the run stopped on an internal error: {error}").format(
            error=f"{type(exc).__name__}: {exc}")


async def _read_all(child: asyncio.subprocess.Process) -> bytes:
    assert child.stderr is not None
    data = await child.stderr.read()
    await child.wait()
    return data


def _finish_cases(run: Run, code: int | None, html: Path, errors: str) -> None:
    """`evaldsl run` exits 0 with every gate met, 1 with one missed: both judged the
    cases; anything else judged none, or not all (every case errored, the deadline
    passed: the reports it wrote are still the results)."""
    if html.is_file():
        run.page = html.read_text("utf-8")
    if code in (0, 1) and run.page is not None:
        run.state = "done"
        run.message = ngettext("{count} case judged", "{count} cases judged",
                               run.done).format(count=run.done)
        return
    run.state = "failed"
    run.message = _("the run failed (exit code {code}): {errors}").format(
        code=code, errors=errors.strip()[-STDERR_SHOWN:])


def _cases_in(journal: Path) -> int:
    """Case lines of a journal being written: every line but the header and the cost note
    a run ends it with (both start `{"format"`; a case line starts `{"id"`)."""
    try:
        with journal.open("rb") as lines:
            return sum(1 for line in lines if not line.startswith(b'{"format"'))
    except FileNotFoundError:
        return 0


def _row_count(cases: Path, sample: int | None) -> int | None:
    """Rows a run will judge, when cheap to know: a JSONL file's non-blank lines."""
    if cases.suffix != ".jsonl":
        return sample
    try:
        with cases.open("rb") as lines:
            rows = sum(1 for line in lines if line.strip())
    except OSError:
        return sample
    return rows if sample is None else min(rows, sample)


async def _examples(run: Run, text: str, name: str) -> None:
    """Each example in turn, the page's progress updated between them."""
    try:
        spec = loads(text, name=name)
    except EvaldslError as exc:
        run.state, run.message = "failed", str(exc)
        return
    examples = examples_of(spec)
    run.total = len(examples)
    report, interpreter = spec.new_report(keep_cases=True), ExampleInterpreter(spec)
    for example in examples:
        outcome = run_example(spec, example, interpreter)
        run.examples.append({"name": outcome.name, "line": outcome.span.line,
                             "passed": outcome.passed,
                             "why": "" if outcome.passed else failure_report(outcome)})
        if outcome.result is not None:
            report.add(outcome.result)
        run.done += 1
        await asyncio.sleep(0)
    _finish_examples(run, report)


def _finish_examples(run: Run, report: Any) -> None:
    passed = sum(1 for e in run.examples if e["passed"])
    if not run.examples:
        run.state, run.message = "failed", _("the spec has no `example` blocks")
        return
    explorer = Explorer(report.details.layout)
    for record in report.case_records or ():
        explorer.add(record)
    run.page = render_report(report.to_report(), "html", explorer)
    run.state = "done"
    run.message = _("{passed} of {total} examples passed").format(
        passed=passed, total=len(run.examples))
