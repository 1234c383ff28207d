"""Trace files as cases: the spans of one conversation put together into one case.

    evaldsl run spec.eval traces.json                          # detected by content
    evaldsl run spec.eval spans.jsonl --input-format otel       # or forced

A file whose first bytes hold `"resourceSpans"` (or `"traceId"` and `"spanId"`) is read
as OTLP/JSON (`evaldsl.cases.otlp`); each span is read by OpenInference when it carries
`openinference.span.kind`, else by the GenAI conventions (`--input-format` forces one).

Spans are grouped into conversations: a trace belongs to the `gen_ai.conversation.id` one
of its spans names, else to its `session.id`, else it is a conversation of its own.
A JSONL file is read twice so that memory barely grows with it: a first pass reads only
each span's trace and those two attributes (`grouping_keys`, the message texts skipped
undecoded) and learns the line where each conversation's last span stands, in a compact
index of hashes (`evaldsl.cases.trace_index`, tens of bytes a trace); the second
reads the spans in full and gives each conversation as soon as that line is read, so only
the conversations still open are held. Conversations come in the order their last spans
stand in the file (those ending on one line by their first span's time); a whole `.json`
file, one document, is read once and its conversations given in time order. A
conversation's spans are taken in time order (by end, so a model call comes before the
agent span around it) and their messages merged: a message a span repeats (each model
call is sent the history again) is matched, in order, against those already there and
not added twice; a tool run adds its call and result unless a model call recorded them.
A model call's reply carries the call's duration as `latency_ms`.

A trace that records no message text (content capture is off by default) still gives
one assistant message per model call, with its latency, its tool calls and their results
marked `"recorded": false`; text checks on those say "no text recorded".

Each conversation becomes one row: `id`, `messages` and the fields `trace_id` and
`span_id` (the span of the last reply), `traces`, `service`, `model`, `input_tokens`,
`output_tokens`, `duration_ms` and `text_recorded`. A malformed span is a bad row naming
its line, its place in the batch and its id; the other spans are still read.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaldsl.cases import openinference, otel
from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.otlp import Span, SpanProblem, read_document, read_otlp
from evaldsl.cases.spanview import (
    AGENT,
    MODEL,
    TOOL,
    Message,
    SpanView,
    text_or_none,
    tool_call,
)
from evaldsl.cases.trace_index import ConversationIndex, Places
from evaldsl.cases.trace_sniff import is_trace_file
from evaldsl.errors import SpanError
from evaldsl.i18n import _

Row = tuple[int, Any]
"""A row of a trace file: its line and its value (JSON bytes, a value, or a `BadRow`)."""

FORMATS = ("chat", "otel", "openinference")
"""What `--input-format` takes; without it the format is detected by content."""

def trace_rows(path: Path, input_format: str | None = None) -> Iterator[Row] | None:
    """The conversations of a trace file as rows (line, a row's value or a `BadRow`), which
    `evaldsl.cases.loading` reads as it reads a chat file's, or None when the file is not one
    (a chat file, or `--input-format chat`)."""
    if input_format == "chat" or (input_format is None and not is_trace_file(path)):
        return None
    return _rows(path, input_format)


@dataclass
class _Trace:
    spans: list[tuple[Span, SpanView]] = field(default_factory=list)
    conversation: str | None = None
    session: str | None = None
    first: int = 0
    """The earliest start of its spans, which orders conversations."""


def _rows(path: Path, input_format: str | None) -> Iterator[Row]:
    if path.suffix.lower() != ".json":
        yield from _streamed(path, input_format)
        return
    name = str(path)
    traces: dict[str, _Trace] = {}
    for item in read_otlp(path):
        if isinstance(item, SpanProblem):
            yield _bad(name, item.line, item.where, item.span_id, item.reason)
            continue
        try:
            seen = view_of(item, input_format)
        except SpanError as exc:
            yield _bad(name, item.line, item.where, item.span_id, str(exc))
            continue
        trace = traces.get(item.trace_id)
        if trace is None:
            trace = traces[item.trace_id] = _Trace(first=item.start)
        trace.spans.append((item, seen))
        trace.first = min(trace.first, item.start)
        trace.conversation = trace.conversation or seen.conversation
        trace.session = trace.session or seen.session
    groups: dict[str, list[_Trace]] = {}
    for trace_id, trace in traces.items():
        groups.setdefault(trace.conversation or trace.session or trace_id, []).append(trace)
    used: set[int] = set()
    ordered = sorted(groups.items(), key=lambda kv: min(t.first for t in kv[1]))
    for key, members in ordered:
        spans = [pair for trace in members for pair in trace.spans]
        row = assemble(key, spans)
        if row is None:
            continue
        line = min(span.line for span, _v in spans)
        while line in used:
            line += 1
        used.add(line)
        yield line, encoded(row)


CONVERSATION, SESSION = "gen_ai.conversation.id", "session.id"


def grouping_keys(raw: bytes, line: int) -> list[tuple[str, str | None, str | None]]:
    """(trace id, conversation, session) of each span of one document, its other attributes
    left undecoded; a document the typed structs refuse is read in full instead."""
    try:
        return fast_grouping_keys(raw)
    except Exception:  # noqa: BLE001 - the general reader takes what the structs refuse
        return [(s.trace_id, text_or_none(s.attrs.get(CONVERSATION)),
                 text_or_none(s.attrs.get(SESSION)))
                for s in read_document(raw, line) if isinstance(s, Span)]


def fast_grouping_keys(raw: bytes) -> list[tuple[str, str | None, str | None]]:
    """`grouping_keys` by the typed structs; raises for a document they refuse."""
    from msgspec import UNSET

    from evaldsl.cases.otlp_structs import KEYS_DECODER, VALUE_DECODER

    doc = KEYS_DECODER.decode(raw)
    spans: list[Any]
    if doc.resourceSpans is UNSET:
        spans = [doc]
    else:
        spans = [span for batch in doc.resourceSpans
                 for scope in (batch.instrumentationLibrarySpans
                               if batch.scopeSpans is UNSET else batch.scopeSpans) or ()
                 for span in scope.spans]
    out = []
    for span in spans:
        trace = span.traceId
        if not isinstance(trace, str) or not trace or len(trace) > 64:
            continue  # not a span the second pass reads
        found: dict[str, str | None] = {}
        for item in span.attributes or ():
            if item.key in (CONVERSATION, SESSION):  # the last one, as a dict keeps it
                value = VALUE_DECODER.decode(item.value)
                text = value.stringValue if value is not None else None
                found[item.key] = text if isinstance(text, str) and text else None
        out.append((trace, found.get(CONVERSATION), found.get(SESSION)))
    return out


def _streamed(path: Path, input_format: str | None) -> Iterator[Row]:
    """A JSONL trace file's conversations, each given once the line of its last span is
    read (see the module docstring and `evaldsl.cases.trace_index`)."""
    name = str(path)
    index = ConversationIndex()
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if raw.strip():
                index.add(number, grouping_keys(raw, number))
    index.finish()
    open_: dict[int, list[tuple[Span, SpanView]]] = {}
    """The spans of the conversations not yet given, by their hash in the index."""
    places = Places()
    counter = [0]
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            keys: dict[str, int] = {}
            for item in read_document(raw, number, counter):
                if isinstance(item, SpanProblem):
                    yield _bad(name, item.line, item.where, item.span_id, item.reason)
                    continue
                try:
                    seen = view_of(item, input_format)
                except SpanError as exc:
                    yield _bad(name, item.line, item.where, item.span_id, str(exc))
                    continue
                key = keys.get(item.trace_id)
                if key is None:
                    key = keys[item.trace_id] = index.key(item.trace_id)
                spans = open_.get(key)
                if spans is None:
                    open_[key] = [(item, seen)]
                else:
                    spans.append((item, seen))
            ending = index.ending(number)
            if not ending:
                continue
            done = [open_.pop(key) for key in ending if key in open_]
            done.sort(key=lambda spans: min(s.start for s, _v in spans))
            for spans in done:
                yield from _conversation(name, spans, places)
    for spans in sorted(open_.values(), key=lambda spans: min(s.start for s, _v in spans)):
        yield from _conversation(name, spans, places)


def _conversation(name: str, spans: list[tuple[Span, SpanView]], places: Places,
                  ) -> Iterator[Row]:
    key = _key(spans)
    row = assemble(key, spans)
    if row is None:
        return
    line = places.take(min(span.line for span, _v in spans))
    yield line, row  # validated as a row (a walk for unwritable values), not written and read


def _key(spans: list[tuple[Span, SpanView]]) -> str:
    """A conversation's id, as the grouping named it: the first conversation id its
    spans give, else their first session id, else the trace."""
    first = spans[0][0].trace_id
    conversation = next((v.conversation for _s, v in spans if v.conversation), None)
    session = next((v.session for _s, v in spans if v.session), None)
    return conversation or session or first


def encoded(row: dict[str, Any]) -> bytes | dict[str, Any]:
    """A row as the JSON line a chat file would hold: decoded and screened as one (cheaper
    than walking the row for unwritable values); a text no UTF-8 writer takes stays a value,
    which the walk then names."""
    import msgspec

    try:
        return msgspec.json.encode(row)
    except (UnicodeEncodeError, TypeError, OverflowError):
        return row


def view_of(span: Span, input_format: str | None) -> SpanView:
    if input_format == "openinference" or (
            input_format is None and openinference.is_openinference(span.attrs)):
        return openinference.view(span.attrs)
    return otel.view(span.attrs)


def _bad(name: str, line: int, where: str, span_id: str, reason: str) -> Row:
    text = _("span {span}: {reason}").format(span=span_id, reason=reason) if span_id else reason
    return line, BadRow(name, line, text, where or None)


def assemble(key: str, spans: list[tuple[Span, SpanView]]) -> dict[str, Any] | None:
    """One conversation's row from its spans, or None when none of them is about one (a
    trace of other telemetry)."""
    if not any(v.kind in (MODEL, TOOL, AGENT) or v.records_messages for _s, v in spans):
        return None
    spans = sorted(spans, key=lambda pair: (pair[0].end, pair[0].start, pair[0].order))
    recorded = {s.trace_id for s, v in spans if v.records_messages}
    dialog = _Dialog()
    for span, seen in spans:
        start = dialog.trace_start.setdefault(span.trace_id, len(dialog.messages))
        latency = (span.end - span.start) / 1e6
        if seen.kind == TOOL and seen.tool is not None:
            dialog.tool(span, seen, span.trace_id in recorded)
        elif seen.records_messages:
            outputs = [dict(m, latency_ms=latency, _span=span) if m["role"] == "assistant"
                       else m for m in seen.outputs or ()]
            dialog.merge([*(seen.inputs or ()), *outputs], start)
        elif seen.kind == MODEL and span.trace_id not in recorded:
            dialog.add({"role": "assistant", "content": "", "recorded": False,
                        "latency_ms": latency, "_span": span})
    return _row(key, spans, dialog, recorded)


def _row(key: str, spans: list[tuple[Span, SpanView]], dialog: _Dialog,
         recorded: set[str]) -> dict[str, Any]:
    last = next((m["_span"] for m in reversed(dialog.messages) if "_span" in m), spans[-1][0])
    for message in dialog.messages:
        message.pop("_span", None)
    traces = list(dict.fromkeys(s.trace_id for s, _v in
                                sorted(spans, key=lambda p: (p[0].start, p[0].order))))
    row: dict[str, Any] = {
        "id": key, "messages": dialog.messages, "trace_id": last.trace_id,
        "span_id": last.span_id, "traces": traces,
        "duration_ms": (max(s.end for s, _v in spans) - min(s.start for s, _v in spans)) / 1e6,
        "text_recorded": all(t in recorded for t in traces),
    }
    service = next((s.service for s, _v in spans if s.service), None)
    if service:
        row["service"] = service
    models = [v.model for _s, v in spans if v.kind == MODEL and v.model]
    if models:
        row["model"] = models[-1]
    row.update(_tokens(spans))
    return row


def _tokens(spans: list[tuple[Span, SpanView]]) -> dict[str, int]:
    """Tokens summed over model calls, each counted once: an agent span's own count only in
    a trace whose model calls report none."""
    out: dict[str, int] = {}
    by_trace: dict[str, list[SpanView]] = {}
    for span, seen in spans:
        by_trace.setdefault(span.trace_id, []).append(seen)
    for views in by_trace.values():
        calls = [v for v in views if v.kind == MODEL]
        if not any(v.input_tokens is not None or v.output_tokens is not None for v in calls):
            calls = [v for v in views if v.kind == AGENT]
        for v in calls:
            for name, value in (("input_tokens", v.input_tokens),
                                ("output_tokens", v.output_tokens)):
                if value is not None:
                    out[name] = out.get(name, 0) + value
    return out


class _Dialog:
    """The messages of a conversation as they are merged, with an index by identity."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.index: dict[Any, list[int]] = {}
        self.calls: dict[str, int] = {}
        """A tool call's id -> the message that made it."""
        self.unanswered: dict[str, list[str]] = {}
        """A tool's name -> ids of its calls not yet answered, for tool runs without an id."""
        self.trace_start: dict[str, int] = {}

    def add(self, message: Message, key: Any = None) -> None:
        """Append a message; `key` is its `_identity` when the caller has it already."""
        at = len(self.messages)
        self.messages.append(message)
        if key is None:
            key = _identity(message)
        if key is not None:
            self.index.setdefault(key, []).append(at)
        for call in message.get("tool_calls") or ():
            if call["id"]:
                self.calls.setdefault(call["id"], at)
                self.unanswered.setdefault(call["function"]["name"], []).append(call["id"])
        if message["role"] == "tool" and message.get("tool_call_id"):
            self._answered(message["tool_call_id"])

    def _answered(self, call_id: str) -> None:
        for ids in self.unanswered.values():
            if call_id in ids:
                ids.remove(call_id)

    def find(self, key: Any, start: int) -> int | None:
        places = self.index.get(key)
        if not places:
            return None
        at = bisect.bisect_left(places, start)
        return places[at] if at < len(places) else None

    def merge(self, sequence: list[Message], trace_start: int) -> None:
        """Add a span's messages, each one already there (in order) matched, not added."""
        if not sequence:
            return
        first = _identity(sequence[0])
        at = 0 if self.messages and first is not None and first == _identity(
            self.messages[0]) else trace_start
        for message in sequence:
            key = _identity(message)
            found = self.find(key, at) if key is not None else None
            if found is None:
                self.add(message, key)
                at = len(self.messages)
            else:
                _fill(self.messages[found], message)
                at = found + 1

    def tool(self, span: Span, seen: SpanView, recorded: bool) -> None:
        """A tool run: its call (unless a model call recorded it) and its result."""
        run = seen.tool
        assert run is not None
        name = run.name or span.name.removeprefix("execute_tool ").strip()
        call_id = run.call_id or next(iter(self.unanswered.get(name) or ()), "")
        if call_id and call_id in self.calls:
            _fill_arguments(self.messages[self.calls[call_id]], call_id, run.arguments)
        else:
            call_id = call_id or span.span_id
            call = tool_call(name or "tool", call_id, run.arguments)
            last = self.messages[-1] if self.messages else None
            if last is not None and last["role"] == "assistant" and last.get("recorded") is False:
                last.setdefault("tool_calls", []).append(call)
                self.calls[call_id] = len(self.messages) - 1
            else:
                self.add({"role": "assistant", "content": "", "tool_calls": [call],
                          **({} if recorded else {"recorded": False})})
        result: Message = {"role": "tool", "tool_call_id": call_id, "name": name,
                           "content": run.result if run.result is not None else ""}
        if run.result is None:
            result["recorded"] = False
        found = self.find(("tool", call_id), 0)
        if found is None:
            self.add(result)
        else:
            _fill(self.messages[found], result)


def _identity(message: Message) -> Any:
    """What makes two records of a message the same message; None for one never matched
    (a reply whose text was not recorded)."""
    role = message["role"]
    if role == "tool" and message.get("tool_call_id"):
        return ("tool", message["tool_call_id"])
    calls = message.get("tool_calls") or ()
    if calls and all(c["id"] for c in calls):
        return (role, "calls", tuple(c["id"] for c in calls))
    if message.get("recorded") is False:
        return None
    return (role, message.get("content", ""),
            tuple((c["function"]["name"], c["function"]["arguments"]) for c in calls))


def _fill(old: Message, new: Message) -> None:
    """What a later record of a message adds to the first: its text, a latency."""
    if old.get("recorded") is False and new.get("recorded", True):
        old["content"] = new.get("content", "")
        old.pop("recorded")
    if old.get("latency_ms") is None and new.get("latency_ms") is not None:
        old["latency_ms"] = new["latency_ms"]
        if "_span" in new:
            old["_span"] = new["_span"]
    for call in new.get("tool_calls") or ():
        if call["function"]["arguments"] is not None:
            _fill_arguments(old, call["id"], call["function"]["arguments"])


def _fill_arguments(message: Message, call_id: str, arguments: str | None) -> None:
    if arguments is None:
        return
    for call in message.get("tool_calls") or ():
        if call["id"] == call_id and call["function"]["arguments"] is None:
            call["function"]["arguments"] = arguments
