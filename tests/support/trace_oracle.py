"""The JSONL trace reader's grouping written plainly, as the oracle the streamed reader is
held to: every trace's conversation and last line in dicts of strings, then the spans
read again and each conversation given once its last line is read (the rules of
`evaldsl.cases.traces`' module docstring). Memory grows with the file; the shipped reader
keeps a compact index instead and must give the same rows, in the same order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaldsl.cases.otlp import Span, SpanProblem, read_document
from evaldsl.cases.spanview import SpanView
from evaldsl.cases.traces import Row, _bad, _key, assemble, grouping_keys, view_of
from evaldsl.errors import SpanError


def oracle_rows(path: Path, input_format: str | None = None) -> Iterator[Row]:
    name = str(path)
    owners: dict[str, list[Any]] = {}
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            for trace, conversation, session in grouping_keys(raw, number):
                entry = owners.get(trace)
                if entry is None:
                    owners[trace] = [conversation, session, number]
                else:
                    entry[0] = entry[0] or conversation
                    entry[1] = entry[1] or session
                    entry[2] = number
    key_of = {trace: entry[0] or entry[1] or trace for trace, entry in owners.items()}
    last: dict[str, int] = {}
    for trace, entry in owners.items():
        key = key_of[trace]
        last[key] = max(last.get(key, 0), entry[2])
    ends: dict[int, list[str]] = {}
    for key, number in last.items():
        ends.setdefault(number, []).append(key)
    open_: dict[str, list[tuple[Span, SpanView]]] = {}
    used: set[int] = set()
    counter = [0]
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            for item in read_document(raw, number, counter):
                if isinstance(item, SpanProblem):
                    yield _bad(name, item.line, item.where, item.span_id, item.reason)
                    continue
                try:
                    seen = view_of(item, input_format)
                except SpanError as exc:
                    yield _bad(name, item.line, item.where, item.span_id, str(exc))
                    continue
                key = key_of.get(item.trace_id, item.trace_id)
                open_.setdefault(key, []).append((item, seen))
            done = [open_.pop(key) for key in ends.pop(number, ()) if key in open_]
            done.sort(key=lambda spans: min(s.start for s, _v in spans))
            for spans in done:
                yield from _conversation(name, spans, used)
    for spans in sorted(open_.values(), key=lambda spans: min(s.start for s, _v in spans)):
        yield from _conversation(name, spans, used)


def _conversation(name: str, spans: list[tuple[Span, SpanView]], used: set[int],
                  ) -> Iterator[Row]:
    row = assemble(_key(spans), spans)
    if row is None:
        return
    line = min(span.line for span, _v in spans)
    while line in used:
        line += 1
    used.add(line)
    yield line, row
