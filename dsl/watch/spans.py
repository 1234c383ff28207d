"""`watch`'s `POST /v1/traces`: spans grouped into conversations, judged once idle.

An OTLP/HTTP JSON body (`{"resourceSpans": [...]}`) is read into spans
(`evaldsl.cases.otlp`), appended to the spool (`spans.jsonl` in `--state`, fsynced) and
only then acknowledged. The spool line holds the body as it came, its line breaks (which
JSON allows only between tokens) made spaces: the body is decoded once, never written
back out and read again. A protobuf body (`application/x-protobuf`, with the `otel`
extra) is first made the OTLP/JSON export it stands for (`evaldsl.cases.otlp_proto`),
which is spooled and read the same way, and is answered in protobuf. Spans are grouped
by trace, traces into conversations as a trace file's are (`evaldsl.cases.traces`). A
conversation is judged when no span of it has arrived for `--session-idle` (3 minutes by
default), or at once when a span marks its end (`evaldsl.conversation.end: true`); it then
goes to the monitor as one session, whose journal makes it judged once. After a restart
the spool is read again: the conversations the journal holds are dropped, the others wait
out their idle time from their spans' arrival, so nothing is lost and nothing judged twice.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaldsl.cases import otlp_proto
from evaldsl.cases.loading import RawRow
from evaldsl.cases.otlp import Span, SpanProblem, read_export
from evaldsl.cases.spanview import SpanView
from evaldsl.cases.traces import assemble, encoded, view_of
from evaldsl.errors import SpanError
from evaldsl.i18n import _

END = "evaldsl.conversation.end"
"""A span attribute that ends its conversation now, without waiting for it to go idle."""
DEFAULT_IDLE_S = 180.0
SOURCE = "POST /v1/traces"
PATH = "/v1/traces"
PROTOBUF = otlp_proto.CONTENT_TYPE
BODIES = {PATH: PROTOBUF}
"""The route's body type besides JSON, for the guard (`evaldsl.webguard`)."""


@dataclass
class _Open:
    spans: list[tuple[Span, SpanView]] = field(default_factory=list)
    conversation: str | None = None
    session: str | None = None
    last: float = 0.0
    """When its last span arrived (epoch seconds)."""
    ended: bool = False


class SpanGroups:
    """Open traces, spooled; the conversations among them that are due."""

    def __init__(self, spool: Path, idle_s: float = DEFAULT_IDLE_S) -> None:
        self.spool = spool
        self.idle_s = idle_s
        self.traces: dict[str, _Open] = {}
        self.judged: int = 0
        self._handle: Any = None
        self._lock = threading.Lock()
        """Bodies are added in worker threads while the event loop takes the due ones."""

    def load(self, done: set[str]) -> None:
        """The spool read again after a restart; conversations in `done` are dropped."""
        from evaldsl.cases.otlp_structs import SPOOL_DECODER as decoder

        if self.spool.exists():
            _cut_torn(self.spool)
            with self.spool.open("rb") as handle:
                for raw in handle:
                    try:
                        entry = decoder.decode(raw)
                        spans = read_export(bytes(entry.spans))
                    except (ValueError, RecursionError):  # a torn last line: not answered
                        continue
                    self._take(spans, entry.at)
        for key, members in self._groups().items():
            if key in done:
                for trace in members:
                    self.traces.pop(trace, None)
        self._handle = self.spool.open("ab")

    def add(self, body: bytes, at: float) -> list[SpanProblem]:
        """A posted body into the spool (on the disk when this returns) and the groups; its
        malformed spans, which are not kept. Raises `ValueError` for a body that is not
        JSON (nothing is spooled)."""
        spans = read_export(body)
        flat = body.replace(b"\r", b" ").replace(b"\n", b" ")
        with self._lock:
            if self._handle is None:
                self._handle = self.spool.open("ab")
            self._handle.write(b'{"at":%s,"spans":%s}\n' % (repr(float(at)).encode(), flat))
            self._handle.flush()
            handle = self._handle
        os.fsync(handle.fileno())  # outside the lock: bodies posted together share the disk
        with self._lock:
            return self._take(spans, at)

    def _take(self, spans: list[Span | SpanProblem], at: float) -> list[SpanProblem]:
        problems: list[SpanProblem] = []
        for item in spans:
            if isinstance(item, SpanProblem):
                problems.append(item)
                continue
            try:
                seen = view_of(item, None)
            except SpanError as exc:
                problems.append(SpanProblem(item.line, item.where, item.span_id, str(exc)))
                continue
            trace = self.traces.setdefault(item.trace_id, _Open())
            trace.spans.append((item, seen))
            trace.conversation = trace.conversation or seen.conversation
            trace.session = trace.session or seen.session
            trace.last = max(trace.last, at)
            trace.ended = trace.ended or item.attrs.get(END) is True
        return problems

    def _groups(self) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for trace_id, trace in self.traces.items():
            key = trace.conversation or trace.session or trace_id
            groups.setdefault(key, []).append(trace_id)
        return groups

    def due(self, now: float) -> list[RawRow]:
        """The conversations idle long enough or ended, as rows, taken out of the groups."""
        with self._lock:
            return self._due(now)

    def _due(self, now: float) -> list[RawRow]:
        rows = []
        for key, members in self._groups().items():
            traces = [self.traces[t] for t in members]
            if not any(t.ended for t in traces) and max(t.last for t in traces) + \
                    self.idle_s > now:
                continue
            spans = [pair for t in traces for pair in t.spans]
            for trace_id in members:
                del self.traces[trace_id]
            row = assemble(key, spans)
            if row is None:
                continue
            self.judged += 1
            rows.append(RawRow(SOURCE, self.judged, encoded(row)))
        return rows

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def _cut_torn(path: Path, block: int = 65536) -> None:
    """A spool whose last line was torn by a crash (its request was never answered) cut
    back to its last line break, so the next body starts a line of its own."""
    with path.open("rb+") as handle:
        end = handle.seek(0, os.SEEK_END)
        at = end
        while at > 0:
            start = max(0, at - block)
            handle.seek(start)
            found = handle.read(at - start).rfind(b"\n")
            if found >= 0:
                if start + found + 1 < end:
                    handle.truncate(start + found + 1)
                return
            at = start
        handle.truncate(0)


async def close_idle(monitor: Any, groups: SpanGroups, stop: asyncio.Event,
                     interval_s: float = 0.1) -> None:
    """Judge the conversations that fall due, until `stop` is set."""
    while not stop.is_set():
        await judge_due(monitor, groups, time.time())
        try:
            await asyncio.wait_for(stop.wait(), interval_s)
        except TimeoutError:
            pass


async def judge_due(monitor: Any, groups: SpanGroups, now: float) -> int:
    rows = groups.due(now)
    for row in rows:
        await monitor.ingest(row, now)
    if rows:
        await asyncio.to_thread(monitor.journal.sync)
    return len(rows)


def add_route(app: Any, monitor: Any, groups: SpanGroups) -> None:
    """`POST /v1/traces` on the watch's application, beside `POST /sessions`: OTLP/JSON, and
    OTLP/protobuf with the `otel` extra, each answered in its own encoding."""
    from aiohttp import web

    async def traces(request: web.Request) -> web.Response:
        protobuf = request.content_type == PROTOBUF
        if protobuf and not otlp_proto.installed():
            return web.json_response({"error": _(
                "OTLP/protobuf bodies need the `otel` extra: {hint} (or export OTLP/JSON)"
            ).format(hint=otlp_proto.OTEL_EXTRA_HINT)}, status=415)
        body = await request.read()
        try:
            problems = await asyncio.to_thread(_spool, groups, body, protobuf, time.time())
        except (ValueError, RecursionError) as exc:
            reason = str(exc) if protobuf else _("not valid JSON: {exc}").format(exc=exc)
            return web.json_response({"error": reason}, status=400)
        for problem in problems:
            monitor.bad_rows += 1
            monitor.bad_examples.append(f"{SOURCE}: {problem.where} {problem.reason}".strip())
        rejected = "; ".join(p.reason for p in problems[:3])
        await judge_due(monitor, groups, time.time())  # an ended conversation, at once
        if protobuf:
            return web.Response(body=otlp_proto.export_answer(len(problems), rejected),
                                content_type=PROTOBUF)
        answer: dict[str, Any] = {"partialSuccess": {}}
        if problems:
            answer["partialSuccess"] = {"rejectedSpans": len(problems), "errorMessage": rejected}
        return web.json_response(answer)

    app.router.add_post(PATH, traces)


def _spool(groups: SpanGroups, body: bytes, protobuf: bool, at: float) -> list[SpanProblem]:
    """A posted body into the groups; a protobuf one first made the OTLP/JSON it stands for,
    so the spool and the reader see one encoding. Raises `ValueError` (worded for a
    protobuf body) when the body is not one of its type; nothing is then spooled."""
    if protobuf:
        body = otlp_proto.export_json(body)
    return groups.add(body, at)
