"""Worker processes that turn batches of case rows into journal lines, and the pool of them.

A worker is a fresh interpreter (the "spawn" start method: no fork of a
process that may hold threads or an event loop). It loads the spec from the
text it is sent, builds its own model runtime (and so its own judge client)
from the settings it is sent, and answers each `Batch` of undecoded rows
with a `Done`: the journal lines of the cases it evaluated, in input order,
each renderer's part (JUnit), the bad rows, and the cases it set aside
because a resumed run's journal holds their row. Its cases fold into a
`Shard`'s state, sent when it is told to finish (`None`).

It ignores SIGINT (the parent decides when to stop) and exits when its
parent is gone. An exception it raises travels to the parent, where `Pool`
raises it again, with the worker's traceback as a note; a worker that dies
is a `WorkerError`. Leaving the pool terminates every worker.
"""

from __future__ import annotations

import multiprocessing
import pickle
import queue
import signal
import threading
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from types import TracebackType
from typing import Any, NamedTuple, Protocol

from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.cases.loading import RawRow
from evaldsl.cases.rows import CaseSchema
from evaldsl.errors import WorkerError
from evaldsl.model.keys import keys_withheld
from evaldsl.record import CaseRecord
from evaldsl.report.layout import SpecLayout
from evaldsl.run.shards import Shard

DEPTH = 2
"""Batches out per worker: one it evaluates and one waiting, so it never waits for the parent."""
GRACE = 5.0
"""Seconds a worker gets to exit after being told to, before it is killed."""


class Renderer(Protocol):
    """Renders case rows where they are evaluated (a worker); it is pickled to get there."""

    def render(self, record: CaseRecord) -> Any:
        """One case row, rendered."""
        ...

    def join(self, rendered: list[Any]) -> Any:
        """A batch's rendered rows, as one part for `PartSink.add_rendered`."""
        ...


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker needs to evaluate its batches; sent once, when it starts."""

    spec_text: bytes
    spec_name: str
    layout: SpecLayout
    settings: Any
    concurrency: int
    stop_at_bad_row: bool
    journaled: frozenset[str]
    """Rows (`file:line`) the journal of a resumed run holds: their cases are set aside."""
    renderers: tuple[Renderer, ...]


class Batch(NamedTuple):
    seq: int
    rows: list[RawRow]


class Done(NamedTuple):
    """A batch evaluated."""

    seq: int
    lines: bytes
    """The journal lines of the evaluated cases, in input order."""
    evaluated: int
    parts: list[Any]
    """What each renderer made of the evaluated cases."""
    good: int
    """Rows that were cases, set aside or not."""
    bad: list[BadRow]
    set_aside: list[tuple[int, str]]
    """(index in the batch, case id) of each case set aside."""


class Failed(NamedTuple):
    error: BaseException
    trace: str


class Finished(NamedTuple):
    state: bytes
    """The worker's `ShardState.dumps()`."""


_GONE = "parent gone"


# ---------------------------------------------------------------- the worker process


def serve(inbox: Connection, outbox: Connection, setup: WorkerSetup) -> None:
    """A worker's life: evaluate batches until told to finish, then send its state."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    batches: queue.SimpleQueue[Any] = queue.SimpleQueue()
    threading.Thread(target=_receive, args=(inbox, batches), daemon=True).start()
    try:
        worker = _Evaluator(setup)
        while (batch := batches.get()) is not None:
            if batch is _GONE:
                return
            outbox.send(worker.run(batch))
        outbox.send(Finished(worker.shard.close().dumps()))
    except (BrokenPipeError, EOFError):
        return
    except BaseException as exc:  # the parent reports it and stops the run
        outbox.send(_failure(exc))


def _receive(inbox: Connection, batches: queue.SimpleQueue[Any]) -> None:
    """Take batches off the pipe at once, so that the parent's sending never waits on a
    worker that is busy sending it results (each would wait for the other)."""
    try:
        while True:
            message = inbox.recv()
            batches.put(message)
            if message is None:
                return
    except (EOFError, OSError):
        batches.put(_GONE)


def _failure(exc: BaseException) -> Failed:
    """The exception as it can travel: itself if it pickles and reads back, else its words."""
    trace = "".join(traceback.format_exception(exc))
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # whatever keeps it from travelling, its words still can
        exc = WorkerError(f"{type(exc).__name__}: {exc}")
    return Failed(exc, trace)


class _Evaluator:
    def __init__(self, setup: WorkerSetup) -> None:
        from evaldsl.api import loads

        spec = loads(setup.spec_text, name=setup.spec_name, settings=setup.settings)
        self.setup = setup
        self.schema = CaseSchema.of(spec)
        self.shard = Shard(spec, setup.layout, setup.concurrency)

    def run(self, batch: Batch) -> Done:
        """A batch's rows decoded, evaluated, encoded and rendered one case at a time."""
        from evaldsl.report.journal import encode

        bad: list[BadRow] = []
        aside: list[tuple[int, str]] = []
        renderers = self.setup.renderers
        lines: list[bytes] = []
        rendered: list[list[Any]] = [[] for _ in renderers]
        for row in self.shard.rows(self._cases(batch, bad, aside)):
            lines.append(encode(row))
            for renderer, out in zip(renderers, rendered, strict=True):
                out.append(renderer.render(row))
        parts = [r.join(out) for r, out in zip(renderers, rendered, strict=True)]
        return Done(batch.seq, b"".join(lines), len(lines), parts, len(lines) + len(aside), bad,
                    aside)

    def _cases(self, batch: Batch, bad: list[BadRow], aside: list[tuple[int, str]],
               ) -> Iterator[Case]:
        """The batch's cases to evaluate; bad rows and set-aside cases go to the lists."""
        journaled = self.setup.journaled
        for index, row in enumerate(batch.rows):
            item = row.item(self.schema)
            if isinstance(item, Case):
                if item.origin in journaled:
                    aside.append((index, item.id))
                else:
                    yield item
            elif item is not None:
                bad.append(item)
                if self.setup.stop_at_bad_row:
                    return


# ---------------------------------------------------------------- the pool (in the parent)


class Worker:
    """One worker process and its two pipes, as the parent sees it."""

    def __init__(self, context: Any, setup: WorkerSetup, index: int) -> None:
        inbox, self.to_worker = context.Pipe(duplex=False)
        self.from_worker, outbox = context.Pipe(duplex=False)
        self.index = index
        self.out = 0
        """Batches sent and not answered."""
        self.process = context.Process(target=serve, args=(inbox, outbox, setup), daemon=True,
                                       name=f"evaldsl-worker-{index}")
        self.process.start()
        inbox.close()
        outbox.close()

    def post(self, message: Batch | None) -> None:
        """Send the worker a batch (None: finish), which then counts as out.

        A worker that failed or died has closed its end of the pipe. The message counts
        as out all the same, so that the pool waits on this worker and raises its error,
        or how it died, instead of the batch disappearing without a word.
        """
        try:
            self.to_worker.send(message)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.out += 1

    def take(self) -> Any:
        """The worker's next message; its exception raised here if it failed."""
        try:
            message = self.from_worker.recv()
        except EOFError:
            raise self.died() from None
        if isinstance(message, Failed):
            message.error.add_note(f"raised in worker process {self.index}:\n{message.trace}")
            raise message.error
        return message

    def died(self) -> WorkerError:
        self.process.join(GRACE)
        code = self.process.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return WorkerError(f"worker process {self.index} stopped before it finished its cases "
                           f"({how})")

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.terminate()
        self.process.join(GRACE)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(GRACE)
        self.to_worker.close()
        self.from_worker.close()


class Pool:
    """Worker processes that take batches and answer each with a `Done`."""

    def __init__(self, count: int, setup: WorkerSetup) -> None:
        context = multiprocessing.get_context("spawn")
        self._workers: list[Worker] = []
        try:
            with keys_withheld():  # a worker's key, if it judges, is in `setup.settings`
                for index in range(count):
                    self._workers.append(Worker(context, setup, index))
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def has_room(self) -> bool:
        return any(w.out < DEPTH for w in self._workers)

    def send(self, batch: Batch) -> None:
        """Give `batch` to the least busy worker."""
        min(self._workers, key=lambda w: w.out).post(batch)

    def receive(self) -> Done:
        """The next answer of any worker."""
        busy = [w for w in self._workers if w.out]
        assert busy, "nothing is out"
        message = self._next(busy)
        assert isinstance(message, Done)
        return message

    def finish(self) -> list[bytes]:
        """Tell every worker to finish; their final states."""
        for worker in self._workers:
            worker.post(None)
        states = []
        while any(w.out for w in self._workers):
            message = self._next([w for w in self._workers if w.out])
            assert isinstance(message, Finished)
            states.append(message.state)
        return states

    def _next(self, busy: list[Worker]) -> Any:
        while True:
            for worker in busy:
                if worker.from_worker.poll():
                    worker.out -= 1
                    return worker.take()
            ready = wait([w.from_worker for w in busy] + [w.process.sentinel for w in busy])
            for worker in busy:
                if worker.process.sentinel in ready and not worker.from_worker.poll():
                    raise worker.died()

    def close(self) -> None:
        for worker in self._workers:
            worker.stop()
