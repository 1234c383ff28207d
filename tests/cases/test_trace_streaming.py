"""A JSONL trace file's conversations, read in two passes over a compact index, are the
rows the plain grouping gives (`tests/support/trace_oracle.py`), byte for byte and in the
same order, on files where conversations interleave across lines and traces, a trace names
its conversation only on a later span, spans and messages repeat, and lines are bad."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from evaldsl.cases import trace_index
from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.cases.loading import read_cases
from evaldsl.cases.traces import Row, trace_rows
from tests.support.trace_oracle import oracle_rows

BASE = 1_760_000_000_000_000_000


def _attrs(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else
             {"stringValue": v}} for k, v in attrs.items()]


def _span(trace: str, span: str, start: int, end: int, attrs: dict[str, Any]) -> dict[str, Any]:
    return {"traceId": trace, "spanId": span, "name": "chat m",
            "startTimeUnixNano": str(BASE + start), "endTimeUnixNano": str(BASE + end),
            "attributes": _attrs(attrs)}


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def _chat(trace: str, span: str, start: int, history: list[dict[str, Any]],
          reply: dict[str, Any], ids: dict[str, str]) -> dict[str, Any]:
    return _span(trace, span, start, start + 500, {
        "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 3 + len(history),
        "gen_ai.input.messages": json.dumps(history),
        "gen_ai.output.messages": json.dumps([reply]), **ids})


def _export(spans: list[dict[str, Any]]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {"attributes": _attrs({"service.name": "shop"})},
                               "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}


def mixed_file(path: Path, seed: int, conversations: int = 12) -> None:
    """Conversations of one to three traces and two to four model calls each (the history
    again in each call), their spans spread over the lines at random: several on one line,
    exports and single spans, ids on some spans only (a conversation id, a session id or
    none; a trace may name two, shared with other conversations), equal start times,
    repeated lines, blank and bad lines."""
    rng = random.Random(seed)
    spans: list[dict[str, Any]] = []
    for c in range(conversations):
        history: list[dict[str, Any]] = []
        traces = [f"{c:02d}{t}".ljust(32, "f") for t in range(rng.randint(1, 3))]
        named = rng.choice(["conversation", "session", "none"])
        at = rng.choice([0, 1000 * c])  # equal start times across conversations
        for n in range(rng.randint(2, 4)):
            trace = rng.choice(traces)
            ids: dict[str, str] = {}
            if named == "conversation" and rng.random() < 0.6:  # a trace may name two
                ids["gen_ai.conversation.id"] = rng.choice([f"conv-{c}", f"conv-{c}", f"alt-{c}"])
            if named != "none" and rng.random() < 0.5:
                ids["session.id"] = f"sess-{(c + n) % 5}" if named == "session" else f"s{c}"
            history = [*history, _text("user", f"question {n} of {c}")]
            reply = _text("assistant", f"answer {n} to {c}")
            spans.append(_chat(trace, f"{c:04d}{n:04d}".ljust(16, "0"), at + 10 * n,
                               history, reply, ids))
            history = [*history, reply]
    rng.shuffle(spans)
    lines: list[str] = []
    while spans:
        take = [spans.pop() for _i in range(min(len(spans), rng.choice([1, 1, 2, 3])))]
        if len(take) == 1 and rng.random() < 0.5:
            lines.append(json.dumps(take[0]))
        else:
            lines.append(json.dumps(_export(take)))
        if rng.random() < 0.1:
            lines.append(lines[-1])  # a repeated line: the same spans again
    for bad in ["", "{not json", "[1, 2]", json.dumps(_span(
            "e" * 32, "bad", 5, 1, {"gen_ai.conversation.id": "conv-0"}))]:
        lines.insert(rng.randrange(len(lines) + 1), bad)
    path.write_text("\n".join(lines) + "\n")


def comparable(rows: list[Row]) -> list[tuple[int, Any]]:
    """Rows as (line, the row's JSON bytes or the bad row's fields)."""
    out: list[tuple[int, Any]] = []
    for line, data in rows:
        if isinstance(data, BadRow):
            out.append((line, data.to_dict()))
        else:
            out.append((line, data if isinstance(data, bytes) else msgspec.json.encode(data)))
    return out


def streamed(path: Path) -> list[Row]:
    rows = trace_rows(path, "otel")
    assert rows is not None
    return list(rows)


@pytest.mark.parametrize("seed", range(8))
def test_the_streamed_reader_gives_the_plain_grouping_rows(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "mixed.jsonl"
    mixed_file(path, seed)
    got = comparable(streamed(path))
    assert got == comparable(list(oracle_rows(path)))
    places = [line for line, data in got if isinstance(data, bytes)]
    assert len(places) >= 8 and any(isinstance(data, dict) for _line, data in got)
    assert len(set(places)) == len(places)  # each conversation its own place


def test_a_conversation_named_on_a_later_span_is_given_once_its_last_line_is_read(
        tmp_path: Path) -> None:
    """Trace t1 names conversation c only on its third line, where trace t2 of c also ends;
    d ends first, so it comes first though it starts later; a bad line is a bad row in
    place; u, named by no span, is its own conversation under its trace id."""
    ask = [_text("user", "hi")]
    say = _text("assistant", "hello")
    lines = [
        _chat("t1", "a1", 0, ask, say, {}),
        _chat("t2", "b1", 5, ask, say, {"gen_ai.conversation.id": "c"}),
        _chat("t3", "d1", 7, ask, say, {"session.id": "d"}),
        "{not json",
        _chat("u", "u1", 2, ask, say, {}),
        _chat("t1", "a2", 20, [*ask, say, _text("user", "bye")], _text("assistant", "ciao"),
              {"gen_ai.conversation.id": "c"}),
    ]
    path = tmp_path / "named_late.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    items = list(read_cases([path], on_bad_row="skip"))
    assert [(type(i).__name__, i.line if isinstance(i, BadRow) else i.id) for i in items] == [
        ("Case", "d"), ("BadRow", 4), ("Case", "u"), ("Case", "c")]
    c = items[-1]
    assert isinstance(c, Case)
    assert [m.content for m in c.messages] == ["hi", "hello", "bye", "ciao"]
    assert comparable(streamed(path)) == comparable(list(oracle_rows(path)))


def test_a_trace_on_consecutive_lines_keeps_the_first_id_it_gives(tmp_path: Path) -> None:
    """t5 gives session `first`, then `second` on the next line; t6 is in session `second`:
    t5 stays a conversation of its own."""
    ask, say = [_text("user", "hi")], _text("assistant", "hello")
    lines = [_chat("t5", "a1", 0, ask, say, {"session.id": "first"}),
             _chat("t5", "a2", 10, ask, say, {"session.id": "second"}),
             _chat("t6", "b1", 20, ask, say, {"session.id": "second"})]
    path = tmp_path / "sessions.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    items = list(read_cases([path], on_bad_row="skip"))
    assert [(i.id, len(i.messages)) for i in items if isinstance(i, Case)] == [
        ("first", 2), ("second", 2)]
    assert comparable(streamed(path)) == comparable(list(oracle_rows(path)))


def test_the_index_sorts_chunk_by_chunk_and_takes_lines_past_2_to_the_32() -> None:
    rng = random.Random(7)
    values = [rng.randrange(2**64) for _i in range(3 * trace_index._CHUNK + 5)]
    assert list(trace_index._ascending(values)) == sorted(values)
    index = trace_index.ConversationIndex()
    far = 2**33
    index.add(1, [("t1", None, None)])
    index.add(5, [("t2", None, "s")])
    index.add(far, [("t1", "c", None)])
    index.finish()
    assert index.key("t1") == hash("c") and index.key("t2") == hash("s")
    assert index.key("unseen") == hash("unseen")
    assert (index.ending(4), index.ending(5), index.ending(far - 1), index.ending(far)) == (
        [], [hash("s")], [], [hash("c")])
