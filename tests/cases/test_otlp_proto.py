"""An OTLP/protobuf export reads into the same spans, and the same problems, as the same
export written in OTLP/JSON by hand: ids hex, 64-bit integers, enums, every attribute
value type, links; a body that is not protobuf is a `ValueError` with its reason."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import (
    AnyValue,
    ArrayValue,
    KeyValue,
    KeyValueList,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from evaldsl.cases.otlp import read_export
from evaldsl.cases.otlp_proto import export_answer, export_dict, export_json

TRACES = Path(__file__).resolve().parent / "traces"
TRACE = bytes(range(16))
SPAN, PARENT, OTHER = b"\x00\x01\x02\x03\xaa\xbb\xcc\xdd", b"\x09" * 8, b"\xff" * 8
START = 1_760_000_000_123_456_789


def deep(levels: int) -> AnyValue:
    value = AnyValue(string_value="bottom")
    for _level in range(levels):
        value = AnyValue(array_value=ArrayValue(values=[value]))
    return value


def request() -> ExportTraceServiceRequest:
    attrs = [
        KeyValue(key="text", value=AnyValue(string_value="巴黎 sunny")),
        KeyValue(key="big", value=AnyValue(int_value=2**62 + 1)),
        KeyValue(key="negative", value=AnyValue(int_value=-5)),
        KeyValue(key="ratio", value=AnyValue(double_value=0.25)),
        KeyValue(key="flag", value=AnyValue(bool_value=True)),
        KeyValue(key="off", value=AnyValue(bool_value=False)),
        KeyValue(key="raw", value=AnyValue(bytes_value=b"\x00\xffhi")),
        KeyValue(key="list", value=AnyValue(array_value=ArrayValue(values=[
            AnyValue(string_value="a"), AnyValue(int_value=2)]))),
        KeyValue(key="map", value=AnyValue(kvlist_value=KeyValueList(values=[
            KeyValue(key="k", value=AnyValue(double_value=1.5))]))),
        KeyValue(key="unset", value=AnyValue()),
    ]
    failed = Span(trace_id=TRACE, span_id=SPAN, parent_span_id=PARENT, name="chat gpt-4",
                  kind=Span.SPAN_KIND_CLIENT, start_time_unix_nano=START,
                  end_time_unix_nano=START + 850_000_000, attributes=attrs,
                  status=Status(code=Status.STATUS_CODE_ERROR, message="rate limited"),
                  links=[Span.Link(trace_id=TRACE[::-1], span_id=OTHER)])
    root = Span(trace_id=TRACE, span_id=PARENT, name="agent", start_time_unix_nano=START,
                end_time_unix_nano=START + 2, trace_state="vendor=1", flags=257,
                dropped_attributes_count=3, dropped_events_count=1, attributes=[
                    KeyValue(key="nan", value=AnyValue(double_value=float("nan"))),
                    KeyValue(key="none", value=AnyValue(array_value=ArrayValue()))],
                events=[Span.Event(time_unix_nano=START + 1, name="gen_ai.choice", attributes=[
                    KeyValue(key="index", value=AnyValue(int_value=0))])])
    bad = [Span(trace_id=TRACE, name="no id", start_time_unix_nano=1, end_time_unix_nano=2),
           Span(trace_id=TRACE, span_id=OTHER, start_time_unix_nano=5, end_time_unix_nano=4),
           Span(trace_id=TRACE, span_id=b"\x01" * 8, start_time_unix_nano=1,
                end_time_unix_nano=1, attributes=[
               KeyValue(key="deep", value=deep(40))])]
    message = ExportTraceServiceRequest()
    batch = message.resource_spans.add()
    batch.resource.attributes.add(key="service.name", value=AnyValue(string_value="weather"))
    batch.schema_url = "https://opentelemetry.io/schemas/1.30.0"
    scope = batch.scope_spans.add(spans=[failed, root, *bad])
    scope.scope.name, scope.scope.version = "tests", "1.0"
    message.resource_spans.add()  # an empty batch
    return message


def value(v: Any) -> dict[str, Any]:
    """An attribute value as OTLP/JSON writes it."""
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": value(x)}
                                           for k, x in v.items()]}}
    if isinstance(v, list):
        return {"arrayValue": {"values": [value(x) for x in v]}}
    return {"stringValue": v}


def deep_json(levels: int) -> dict[str, Any]:
    out: dict[str, Any] = {"stringValue": "bottom"}
    for _level in range(levels):
        out = {"arrayValue": {"values": [out]}}
    return out


def by_hand() -> dict[str, Any]:
    """The same export, written by the OTLP/JSON rules."""
    attrs = [{"key": k, "value": value(v)} for k, v in [
        ("text", "巴黎 sunny"), ("big", 2**62 + 1), ("negative", -5), ("ratio", 0.25),
        ("flag", True), ("off", False)]]
    attrs += [{"key": "raw", "value": {"bytesValue": "AP9oaQ=="}},
              {"key": "list", "value": value(["a", 2])},
              {"key": "map", "value": value({"k": 1.5})}, {"key": "unset", "value": {}}]
    trace = TRACE.hex()
    spans = [
        {"traceId": trace, "spanId": SPAN.hex(), "parentSpanId": PARENT.hex(),
         "name": "chat gpt-4", "kind": 3, "startTimeUnixNano": str(START),
         "endTimeUnixNano": str(START + 850_000_000), "attributes": attrs,
         "status": {"code": 2, "message": "rate limited"},
         "links": [{"traceId": TRACE[::-1].hex(), "spanId": OTHER.hex()}]},
        {"traceId": trace, "spanId": PARENT.hex(), "traceState": "vendor=1", "flags": 257,
         "name": "agent", "startTimeUnixNano": str(START), "endTimeUnixNano": str(START + 2),
         "attributes": [{"key": "nan", "value": {"doubleValue": "NaN"}},
                        {"key": "none", "value": {"arrayValue": {}}}],
         "droppedAttributesCount": 3,
         "events": [{"timeUnixNano": str(START + 1), "name": "gen_ai.choice",
                     "attributes": [{"key": "index", "value": {"intValue": "0"}}]}],
         "droppedEventsCount": 1},
        {"traceId": trace, "name": "no id", "startTimeUnixNano": "1", "endTimeUnixNano": "2"},
        {"traceId": trace, "spanId": OTHER.hex(), "startTimeUnixNano": "5",
         "endTimeUnixNano": "4"},
        {"traceId": trace, "spanId": "01" * 8, "startTimeUnixNano": "1",
         "endTimeUnixNano": "1", "attributes": [{"key": "deep", "value": deep_json(40)}]},
    ]
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "weather"}}]}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [
        {"scope": {"name": "tests", "version": "1.0"}, "spans": spans}],
        "schemaUrl": "https://opentelemetry.io/schemas/1.30.0"}, {}]}


def test_protobuf_reads_as_the_same_export_written_in_json() -> None:
    body = request().SerializeToString()
    assert export_dict(body) == by_hand()
    converted = export_json(body)
    assert b"\n" not in converted
    got, want = read_export(converted), read_export(json.dumps(by_hand()).encode())
    assert repr(got) == repr(want)  # NaN is not equal to itself
    spans = [s for s in got if hasattr(s, "attrs")]
    assert [s.span_id for s in spans] == [SPAN.hex(), PARENT.hex()]
    assert spans[0].attrs["big"] == 2**62 + 1 and spans[0].status_error == "rate limited"
    assert spans[1].attrs["none"] == [] and math.isnan(spans[1].attrs["nan"])
    assert [p.reason for p in got if not hasattr(p, "attrs")] == [
        "`spanId` is missing or not an id", "the span ends before it starts",
        "an attribute is nested more than 32 levels deep"]


@pytest.mark.parametrize("body", [b"\x0a\xff\xff\xff\xff\x0f", b"\x0a\x05\x12\x03\x12\x01\xff",
                                  b"{\"resourceSpans\": []}", b"\x0a\x02\x0a"])
def test_a_body_that_is_not_an_export_is_refused_with_its_reason(body: bytes) -> None:
    with pytest.raises(ValueError, match="not a valid OTLP/protobuf export: .+"):
        export_json(body)


def test_an_empty_body_is_an_empty_export() -> None:
    assert export_json(b"") == b'{"resourceSpans":[]}'
    assert read_export(export_json(b"")) == []


def test_the_answer_is_empty_when_every_span_was_taken() -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceResponse,
    )

    assert export_answer(0, "") == b""
    answer = ExportTraceServiceResponse.FromString(export_answer(2, "two bad"))
    assert (answer.partial_success.rejected_spans,
            answer.partial_success.error_message) == (2, "two bad")


def test_a_watch_fed_json_never_loads_protobuf(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "import evaldsl.watch.serving\n"
        "from evaldsl.watch.spans import SpanGroups, add_route\n"
        "groups = SpanGroups(Path(sys.argv[1]))\n"
        "groups.load(set())\n"
        "assert groups.add(Path(sys.argv[2]).read_bytes(), 1.0) == []\n"
        "print(sorted(m for m in sys.modules if m.startswith(('google', 'opentelemetry'))))\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "spans.jsonl"),
                           str(TRACES / "genai_weather_paris.json")],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr
