"""`watch` takes OTLP/HTTP protobuf, the official exporters' default: spans exported by the
OpenTelemetry SDK to a real `evaldsl watch` are judged exactly as the same spans posted as
OTLP/JSON; a malformed body is refused and spools nothing; a body past the size limit is
refused as a JSON one is; without the `otel` extra the answer names it."""

from __future__ import annotations

import gzip
import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

from tests.support.watch_kit import Watch
from tests.watch.test_watch_traces import judged

PROTOBUF = "application/x-protobuf"
SPEC = """spec "watched chats"

case {
  trace_id: text
  model: text?
  input_tokens: number?
}

check fast = latency(max_ms: 60000)
check sunny = keyword(any: ["sunny"], scope: replies)

outcome {
  good if fast and sunny
  poor otherwise
}

metric tokens = sum(case.input_tokens) by case.model, case.trace_id
"""


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "chats.eval"
    path.write_text(SPEC, encoding="utf-8")
    return path


def conversation(*exporters: SpanExporter) -> None:
    """One conversation of GenAI spans, exported span by span as each ends: a chat span with
    its messages and usage inside an agent span that ends the conversation."""
    provider = TracerProvider(resource=Resource.create({"service.name": "weather-app"}))
    for exporter in exporters:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("tests.watch.protobuf")
    with tracer.start_as_current_span("invoke_agent weather") as agent:
        agent.set_attribute("gen_ai.operation.name", "invoke_agent")
        agent.set_attribute("gen_ai.conversation.id", "conv-paris-7")
        with tracer.start_as_current_span("chat gpt-4", kind=SpanKind.CLIENT) as chat:
            chat.set_attributes({
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4",
                "gen_ai.request.temperature": 0.25,
                "gen_ai.usage.input_tokens": 47,
                "gen_ai.usage.output_tokens": 9,
                "gen_ai.response.finish_reasons": ("stop",),
                "gen_ai.conversation.id": "conv-paris-7",
                "gen_ai.input.messages": json.dumps([
                    {"role": "user", "parts": [{"type": "text",
                                                "content": "Weather in Paris? 巴黎天气"}]}]),
                "gen_ai.output.messages": json.dumps([
                    {"role": "assistant", "parts": [{"type": "text",
                                                     "content": "It is sunny, 22°C."}],
                     "finish_reason": "stop"}]),
            })
            chat.set_status(Status(StatusCode.OK))
        agent.set_attribute("evaldsl.conversation.end", True)
    provider.shutdown()


def otlp_json(span: ReadableSpan) -> dict[str, Any]:
    """One SDK span as an OTLP/JSON export, written by the OTLP/JSON rules (ids in hex,
    64-bit integers as decimal text), independently of the watch's own conversion."""
    assert span.context is not None and span.resource is not None
    data: dict[str, Any] = {
        "traceId": f"{span.context.trace_id:032x}", "spanId": f"{span.context.span_id:016x}",
        "name": span.name, "startTimeUnixNano": str(span.start_time),
        "endTimeUnixNano": str(span.end_time), "attributes": attributes(span.attributes)}
    if span.parent is not None:
        data["parentSpanId"] = f"{span.parent.span_id:016x}"
    if span.status.status_code is StatusCode.ERROR:
        data["status"] = {"code": 2, "message": span.status.description or ""}
    resource = {"attributes": attributes(span.resource.attributes)}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": [data]}]}]}


def attributes(values: Any) -> list[dict[str, Any]]:
    return [{"key": key, "value": any_value(value)} for key, value in (values or {}).items()]


def any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    return {"arrayValue": {"values": [any_value(v) for v in value]}}


def post(w: Watch, body: bytes, kind: str, encoding: str = "identity",
         ) -> tuple[int, str, bytes]:
    """The status, content type and body of the answer to `POST /v1/traces`."""
    request = urllib.request.Request(w.base + "/v1/traces", body, {
        "Content-Type": kind, "Content-Encoding": encoding}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers.get_content_type(), answer.read()
    except urllib.error.HTTPError as refused:
        with refused:
            return refused.code, refused.headers.get_content_type(), refused.read()


def sessions(state: Path) -> list[dict[str, Any]]:
    """The judged sessions of a journal, without their arrival time."""
    lines = [json.loads(x) for x in (state / "watch.jsonl").read_text().splitlines()]
    return [{k: v for k, v in x.items() if k != "at"} for x in lines
            if x.get("kind") == "session"]


@contextmanager
def watched(spec: Path, state: Path, env: dict[str, str] | None = None) -> Iterator[Watch]:
    with watching(spec, [state], env) as [w]:
        yield w


@contextmanager
def watching(spec: Path, states: list[Path], env: dict[str, str] | None = None,
             ) -> Iterator[list[Watch]]:
    """A watch on each state folder, started side by side (each start is a second or two)."""
    with ThreadPoolExecutor(len(states)) as pool:
        futures = [pool.submit(Watch, spec, "--state", state, "--session-idle", "10m", env=env)
                   for state in states]
    started = [f.result() for f in futures if f.exception() is None]
    try:
        yield [f.result() for f in futures]
    finally:
        for w in started:
            w.stop()


def test_sdk_spans_in_protobuf_are_judged_as_the_same_spans_in_json(
        spec: Path, tmp_path: Path) -> None:
    results: list[SpanExportResult] = []

    class Counted(OTLPSpanExporter):
        def export(self, spans: Sequence[ReadableSpan]) -> Any:
            outcome = super().export(spans)
            results.append(outcome)
            return outcome

    copies = InMemorySpanExporter()
    with watching(spec, [tmp_path / "protobuf", tmp_path / "json"]) as [exported, posted]:
        conversation(Counted(endpoint=exported.base + "/v1/traces", timeout=30), copies)
        assert results == [SpanExportResult.SUCCESS] * 2
        assert judged(tmp_path / "protobuf") == ["conv-paris-7"]  # judged before the answer
        spans = copies.get_finished_spans()
        assert [s.name for s in spans] == ["chat gpt-4", "invoke_agent weather"]
        for span in spans:  # one body a span, as the exporter sent them
            status, kind, body = post(posted, json.dumps(otlp_json(span)).encode(),
                                      "application/json")
            assert (status, kind, json.loads(body)) == (200, "application/json",
                                                       {"partialSuccess": {}})
        protobuf_report, json_report = exported.get("/report"), posted.get("/report")

    got, want = sessions(tmp_path / "protobuf"), sessions(tmp_path / "json")
    assert got == want
    [record] = [x["record"] for x in got]
    assert record["id"] == "conv-paris-7"
    assert json.dumps(record, ensure_ascii=False).count("sunny") >= 1
    [window] = protobuf_report["windows"]
    assert window["report"]["cases"]["evaluated"] == 1
    [tokens] = window["report"]["metrics"]
    trace = f"{spans[0].context.trace_id:032x}"
    assert [(g["key"], g["value"]) for g in tokens["groups"]] == [(["gpt-4", trace], 47)]
    assert [w["report"] for w in protobuf_report["windows"]] == \
        [w["report"] for w in json_report["windows"]]


def test_protobuf_answers_in_protobuf_and_a_malformed_body_spools_nothing(
        spec: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    copies = InMemorySpanExporter()
    conversation(copies)
    [chat, agent] = copies.get_finished_spans()
    with watched(spec, state) as w:
        for body in (b"\x0a\xff\xff\xff\xff\x0f", b"\x0a\x05\x12\x03\x12\x01\xff",
                     b"not protobuf at all"):
            status, kind, text = post(w, body, PROTOBUF)
            assert status == 400, (body, text)
            assert "OTLP/protobuf" in json.loads(text)["error"]
        assert not (state / "spans.jsonl").exists() or \
            (state / "spans.jsonl").read_bytes() == b""

        past = b"x" * (16 << 20)
        assert post(w, b'{"resourceSpans": [], "x": "' + past + b'"}', "application/json")[0] \
            == 413
        status, kind, text = post(w, b"\x0a\x84\x80\x80\x08" + past, PROTOBUF)
        assert status == 413, "a protobuf body has the size limit of a JSON one"
        bomb = gzip.compress(b"\x0a\x84\x80\x80\x08" + bytes(16 << 20))
        assert len(bomb) < 1 << 20
        assert post(w, bomb, PROTOBUF, "gzip")[0] == 413, "the limit is on the decoded body"

        request = ExportTraceServiceRequest()
        request.ParseFromString(encoded(chat))
        broken = request.resource_spans[0].scope_spans[0].spans.add()
        broken.CopyFrom(request.resource_spans[0].scope_spans[0].spans[0])
        broken.span_id = b"\x07" * 8
        broken.end_time_unix_nano = broken.start_time_unix_nano - 1
        status, kind, text = post(w, request.SerializeToString(), PROTOBUF)
        assert (status, kind) == (200, PROTOBUF)
        answer = ExportTraceServiceResponse.FromString(text)
        assert answer.partial_success.rejected_spans == 1
        assert "ends before it starts" in answer.partial_success.error_message

        status, kind, text = post(w, gzip.compress(encoded(agent)), PROTOBUF, "gzip")
        assert (status, kind, text) == (200, PROTOBUF, b"")  # gzipped, as exporters may send
        assert judged(state) == ["conv-paris-7"]
        spooled = [json.loads(x) for x in (state / "spans.jsonl").read_bytes().splitlines()]
        ids = [s["spanId"] for line in spooled for r in line["spans"]["resourceSpans"]
               for sc in r["scopeSpans"] for s in sc["spans"]]
        assert ids == [f"{chat.context.span_id:016x}", "07" * 8,
                       f"{agent.context.span_id:016x}"]


def encoded(span: ReadableSpan) -> bytes:
    """A span as the SDK's exporter encodes it."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    data: bytes = encode_spans([span]).SerializeToString()
    return data


def test_without_the_otel_extra_protobuf_is_refused_naming_it(
        spec: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "sitecustomize.py").write_text(
        "import sys\nsys.modules['opentelemetry.proto'] = None\n", encoding="utf-8")
    copies = InMemorySpanExporter()
    conversation(copies)
    path = os.pathsep.join(filter(None, [str(blocked), os.environ.get("PYTHONPATH")]))
    with watched(spec, tmp_path / "state", {"PYTHONPATH": path}) as w:
        status, kind, text = post(w, encoded(copies.get_finished_spans()[0]), PROTOBUF)
        assert status == 415
        assert "pip install 'evaldsl[otel]'" in json.loads(text)["error"]
        status, kind, text = post(w, json.dumps(otlp_json(copies.get_finished_spans()[0]))
                                  .encode(), "application/json")
        assert status == 200, "JSON is still taken"
