"""The trace reader's fast paths give what the general paths give.

`evaldsl.cases.otlp` decodes a document into typed structs before it falls back to plain
values, and `evaldsl.cases.traces` groups a JSONL file by a first pass that leaves the
message texts undecoded. A fast path that quietly fell back on every document would pass
every other test and lose its speed; one that read a document differently would change
the cases. Here both are held to the general paths on the fixtures and on hand-made
documents the structs must take, and must refuse.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaldsl.cases.otlp import _general, _typed
from evaldsl.cases.spanview import text_or_none
from evaldsl.cases.traces import CONVERSATION, SESSION, fast_grouping_keys, grouping_keys

HERE = Path(__file__).parent / "traces"


def documents() -> list[bytes]:
    out = []
    for path in sorted(HERE.iterdir()):
        if path.suffix == ".json":
            out.append(json.dumps(json.loads(path.read_text("utf-8"))).encode())
        elif path.suffix == ".jsonl":
            out += [line for line in path.read_bytes().splitlines() if line.strip()]
    return out


def span(**extra: object) -> bytes:
    data: dict[str, object] = {
        "traceId": "t1", "spanId": "s1", "startTimeUnixNano": "1760000000000000000",
        "endTimeUnixNano": "1760000000500000000", "attributes": [
            {"key": CONVERSATION, "value": {"stringValue": "c1"}},
            {"key": "n", "value": {"intValue": "7"}},
            {"key": "list", "value": {"arrayValue": {"values": [{"boolValue": True}, None]}}},
            {"key": "map", "value": {"kvlistValue": {"values": [
                {"key": "d", "value": {"doubleValue": 1.5}}]}}},
            {"key": "empty", "value": {}}]}
    data.update(extra)
    return json.dumps(data).encode()


TAKEN = [span(), span(name="chat", parentSpanId="p"), span(startTimeUnixNano="yesterday"),
         span(attributes=[{"key": "n", "value": {"intValue": "seven"}}]),
         span(status={"code": 2, "message": "boom"}),
         span(attributes=[{"key": SESSION, "value": {"stringValue": "s"}},
                          {"key": SESSION, "value": {"stringValue": "later"}}])]
SHAPELESS = [span(attributes={CONVERSATION: "c1"}), span(attributes=[{"value": {}}]),
             b"[1, 2]", b'{"resourceSpans": {}}', b"{not json"]
"""Documents neither fast path takes."""
REFUSED = [*SHAPELESS, span(attributes=[{"key": "x", "value": {"stringValue": 5}}])]
"""... and one the first pass takes (it decodes no value but the two it groups by)."""


@pytest.mark.parametrize("raw", documents() + TAKEN, ids=range(len(documents() + TAKEN)))
def test_the_typed_path_takes_the_document_and_reads_it_as_the_general_one(raw: bytes) -> None:
    fast = _typed(raw, 3, 0, None)
    assert fast is not None, "the structs refused a document they are for"
    assert fast == list(_general(raw, 3, [0], None))


@pytest.mark.parametrize("raw", REFUSED, ids=range(len(REFUSED)))
def test_what_the_structs_refuse_goes_to_the_general_path(raw: bytes) -> None:
    assert _typed(raw, 3, 0, None) is None
    if raw in SHAPELESS:
        with pytest.raises(Exception):  # noqa: B017, PT011 - any refusal
            fast_grouping_keys(raw)


@pytest.mark.parametrize("raw", documents() + TAKEN + REFUSED,
                         ids=range(len(documents() + TAKEN + REFUSED)))
def test_grouping_keys_are_those_of_the_spans_read(raw: bytes) -> None:
    spans = [s for s in _general(raw, 1, [0], None) if not hasattr(s, "reason")]
    wanted = [(s.trace_id, text_or_none(s.attrs.get(CONVERSATION)),
               text_or_none(s.attrs.get(SESSION))) for s in spans]
    got = grouping_keys(raw, 1)
    assert [g for g in got if g[0] in {w[0] for w in wanted}] == wanted or not wanted


def test_the_first_pass_keeps_its_fast_path_on_the_fixtures() -> None:
    for raw in documents():
        assert fast_grouping_keys(raw), raw[:80]
