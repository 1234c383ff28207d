"""`watch`'s `POST /v1/traces`: spans grouped into conversations, judged once idle.

An OTLP/HTTP JSON body (`{"resourceSpans": [...]}`) is read into spans
(`evaldsl.cases.otlp`), appended to the spool (`spans.jsonl` in `--state`, fsynced) and
only then acknowledged. Spans are grouped by trace, traces into conversations as a trace
file's are (`evaldsl.cases.traces`). A conversation is judged when no span of it has arrived
for `--session-idle` (3 minutes by default), or at once when a span marks its end
(`evaldsl.conversation.end: true`); it then goes to the monitor as one session, whose
journal makes it judged once. After a restart the spool is read again: the conversations
the journal holds are dropped, the others wait out their idle time from their spans'
arrival, so nothing is lost and nothing judged twice.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaldsl.cases.loading import RawRow
from evaldsl.cases.otlp import Span, SpanProblem, read_document
from evaldsl.cases.spanview import SpanError, SpanView
from evaldsl.cases.traces import assemble, encoded, view_of
from evaldsl.i18n import _

END = "evaldsl.conversation.end"
"""A span attribute that ends its conversation now, without waiting for it to go idle."""
DEFAULT_IDLE_S = 180.0
SOURCE = "POST /v1/traces"


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

    def load(self, done: set[str]) -> None:
        """The spool read again after a restart; conversations in `done` are dropped."""
        if self.spool.exists():
            with self.spool.open("rb") as handle:
                for raw in handle:
                    try:
                        entry = json.loads(raw)
                    except ValueError:  # a torn last line: its request was not answered
                        continue
                    self._take(entry.get("spans"), float(entry.get("at") or 0.0))
        for key, members in self._groups().items():
            if key in done:
                for trace in members:
                    self.traces.pop(trace, None)
        self._handle = self.spool.open("ab")

    def add(self, body: bytes, at: float) -> list[SpanProblem]:
        """A posted body into the spool (on the disk when this returns) and the groups; its
        malformed spans, which are not kept. Raises `ValueError` for a body that is not
        JSON (nothing is spooled)."""
        doc = json.loads(body)
        if self._handle is None:
            self._handle = self.spool.open("ab")
        self._handle.write(json.dumps({"at": at, "spans": doc}, ensure_ascii=False)
                           .encode("utf-8") + b"\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())
        return self._take(doc, at)

    def _take(self, doc: Any, at: float) -> list[SpanProblem]:
        problems: list[SpanProblem] = []
        for item in read_document(json.dumps(doc), 1):
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


async def close_idle(monitor: Any, groups: SpanGroups, stop: asyncio.Event,
                     interval_s: float = 0.2) -> None:
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
    """`POST /v1/traces` on the watch's application, beside `POST /sessions`."""
    from aiohttp import web

    async def traces(request: web.Request) -> web.Response:
        body = await request.read()
        try:
            problems = await asyncio.to_thread(groups.add, body, time.time())
        except (ValueError, RecursionError) as exc:
            return web.json_response({"error": _("not valid JSON: {exc}").format(exc=exc)},
                                     status=400)
        for problem in problems:
            monitor.bad_rows += 1
            monitor.bad_examples.append(f"{SOURCE}: {problem.where} {problem.reason}".strip())
        answer: dict[str, Any] = {"partialSuccess": {}}
        if problems:
            answer["partialSuccess"] = {
                "rejectedSpans": len(problems),
                "errorMessage": "; ".join(p.reason for p in problems[:3])}
        await judge_due(monitor, groups, time.time())  # an ended conversation, at once
        return web.json_response(answer)

    app.router.add_post("/v1/traces", traces)
