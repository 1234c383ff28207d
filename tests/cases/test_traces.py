"""Trace files as cases: OTLP/JSON by the GenAI conventions and by OpenInference.

Fixtures in `traces/` (NOTICE.md there says where each comes from): the conventions' own
tool-call example, agentevals' hand-built fixtures with their truths, an OpenInference
conversation over two traces.
"""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import evaldsl
from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.cases.loading import read_cases, read_rows
from evaldsl.cases.traces import is_trace_file
from evaldsl.values import ErrorValue
from tests.support.run_kit import evaldsl as run_evaldsl

HERE = Path(__file__).parent / "traces"


def cases(path: Path, input_format: str | None = None) -> list[Case | BadRow]:
    return list(read_cases([path], on_bad_row="skip", input_format=input_format))


def one(path: Path, input_format: str | None = None) -> Case:
    items = cases(path, input_format)
    assert len(items) == 1 and isinstance(items[0], Case), items
    return items[0]


def lines(case: Case) -> list[str]:
    return [m.line for m in case.messages]


@pytest.mark.parametrize("name", ["genai_weather_paris.json", "genai_weather_paris_result.json"])
def test_the_conventions_tool_call_example_becomes_one_dialog(name: str) -> None:
    """Weather in Paris: two chat spans and the execute_tool span, the history each chat
    span repeats merged; the tool's answer spelt `response` or `result`."""
    case = one(HERE / name)
    assert lines(case) == [
        "user: Weather in Paris?",
        'assistant: [calls get_weather({"location": "Paris"})]',
        "tool (get_weather): rainy, 57°F",
        "assistant: The weather in Paris is currently rainy with a temperature of 57°F.",
    ]
    assert [m.latency_ms for m in case.messages] == [None, 850.0, None, 1200.0]
    assert case.messages[1].tool_calls[0].arguments == {"location": "Paris"}
    assert case.id == "4bf92f3577b34da6a3ce929d0e0e4736"  # no conversation id: the trace
    assert case.fields["input_tokens"] == 47 + 97 and case.fields["output_tokens"] == 17 + 52
    assert case.fields["model"] == "gpt-4-0613"
    assert case.fields["span_id"] == "2c3d4e5f60718293"  # the span of the last reply
    assert case.fields["text_recorded"] is True and not case.unrecorded


def test_agentevals_tool_loop_matches_its_truth() -> None:
    case = one(HERE / "agentevals_util_genai_openai_tool_loop.json")
    assert lines(case) == [
        "system: You answer weather questions.",
        "user: What is the weather in Paris?",
        'assistant: [calls get_weather({"city": "Paris"})]',
        'tool (get_weather): {"city": "Paris", "forecast": "sunny", "temp_c": 21}',
        "assistant: It is sunny and 21C in Paris.",
    ]
    assert (case.fields["input_tokens"], case.fields["output_tokens"]) == (120, 20)


def test_one_conversation_over_three_traces() -> None:
    """agentevals' three_trace_conversation: three traces joined by gen_ai.conversation.id,
    turns in time order; tokens from the chat spans, counted once (truth: 90 and 19)."""
    case = one(HERE / "agentevals_three_trace_conversation.json")
    assert case.id == "conv-ada-1"
    assert lines(case) == [
        "user: Hi, my name is Ada.", "assistant: Nice to meet you, Ada!",
        "user: What is the weather in Rome?", "assistant: It is cloudy and 17C in Rome.",
        "user: Thanks, bye!", "assistant: Goodbye, Ada!",
    ]
    assert len(case.fields["traces"]) == 3
    assert (case.fields["input_tokens"], case.fields["output_tokens"]) == (90, 19)


def test_traces_given_out_of_order_give_the_same_dialog(tmp_path: Path) -> None:
    doc = json.loads((HERE / "agentevals_three_trace_conversation.json").read_text())
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"].reverse()
    path = tmp_path / "reversed.json"
    path.write_text(json.dumps(doc))
    assert lines(one(path)) == lines(one(HERE / "agentevals_three_trace_conversation.json"))


def test_openinference_session_over_two_traces() -> None:
    """Flattened `llm.input_messages.N.message.*`, tool calls, `session.id`; the second
    trace's model call is sent the whole history again, which is merged, not repeated."""
    case = one(HERE / "openinference_booking.jsonl")
    assert case.id == "sess-42"
    assert lines(case) == [
        "system: You are the booking assistant of a bike repair shop.",
        "user: Can I bring my bike in on Saturday?",
        'assistant: [calls check_slots({"day": "saturday"})]',
        'tool (check_slots): {"free": ["10:00", "14:30"]}',
        "assistant: Yes: Saturday has slots at 10:00 and 14:30. Which one suits you?",
        "user: 14:30 please.",
        "assistant: Booked for Saturday at 14:30. See you then!",
    ]
    assert [m.latency_ms for m in case.messages if m.role == "assistant"] == [890, 1380, 1180]
    assert (case.fields["input_tokens"], case.fields["output_tokens"]) == (278, 53)
    assert case.fields["model"] == "gpt-4o-mini-2024-07-18"


def test_a_content_less_trace_still_gives_latency_calls_and_tokens() -> None:
    """agentevals' content_capture_off: no text, but the tool call, each reply's latency
    and the tokens (truth: 120 and 20)."""
    case = one(HERE / "agentevals_content_capture_off.json")
    assert case.unrecorded and case.fields["text_recorded"] is False
    replies = [m for m in case.messages if m.role == "assistant"]
    assert [m.latency_ms for m in replies] == [29.0, 58.0]
    assert [c.name for m in replies for c in m.tool_calls] == ["get_weather"]
    call = replies[0].tool_calls[0]
    assert isinstance(call.arguments, ErrorValue) and "no arguments recorded" in str(
        call.arguments)
    assert (case.fields["input_tokens"], case.fields["output_tokens"]) == (120, 20)


SPEC = """spec "traces"

check fast = latency(max_ms: 1000)
check weather = tool_called(name: "get_weather")
check polite = keyword(any: ["please", "thanks"], scope: last_reply)

outcome {
  good if fast and weather
  poor otherwise
}

outcome tone {
  kind if polite
  curt otherwise
}
"""


def test_text_checks_on_a_content_less_trace_say_no_text_recorded() -> None:
    spec = evaldsl.loads(SPEC)
    case = one(HERE / "agentevals_content_capture_off.json")
    result = spec.evaluate(case)
    checks = result.checks
    assert checks["fast"].passed is True and checks["weather"].passed is True
    polite = checks["polite"]
    assert polite.is_error and "no text recorded" in str(polite.passed)
    assert result.labels["outcome"] == "good"
    assert result.labels["tone"] == "error"


def test_text_checks_on_a_recorded_trace_judge_the_text() -> None:
    spec = evaldsl.loads(SPEC)
    result = spec.evaluate(one(HERE / "genai_weather_paris.json"))
    assert result.checks["polite"].passed is False  # judged, not an error


def span_line(span_id: str, **extra: Any) -> str:
    span = {"traceId": "aa" * 16, "spanId": span_id, "name": "chat m",
            "startTimeUnixNano": "1760000000000000000", "endTimeUnixNano": "1760000000500000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                           {"key": "gen_ai.conversation.id", "value": {"stringValue": "c1"}}]}
    span.update(extra)
    return json.dumps(span)


def test_a_malformed_span_is_a_bad_row_and_the_rest_is_judged(tmp_path: Path) -> None:
    bad_messages = [{"key": "gen_ai.output.messages", "value": {"stringValue": "[{oops"}},
                    {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]
    path = tmp_path / "spans.jsonl"
    path.write_text("\n".join([
        span_line("0000000000000001"),
        span_line("0000000000000002", startTimeUnixNano="yesterday"),
        span_line("0000000000000003", attributes=bad_messages),
        "{not json",
        span_line("0000000000000004", startTimeUnixNano="1760000001000000000",
                  endTimeUnixNano="1760000000000000000"),
    ]) + "\n")
    items = cases(path)
    bad = [i for i in items if isinstance(i, BadRow)]
    good = [i for i in items if isinstance(i, Case)]
    assert [b.line for b in bad] == [2, 3, 4, 5]
    assert "span 0000000000000002" in bad[0].reason and "startTimeUnixNano" in bad[0].reason
    assert "span 0000000000000003" in bad[1].reason and "not valid JSON" in bad[1].reason
    assert "not valid JSON" in bad[2].reason
    assert "ends before it starts" in bad[3].reason
    assert all(str(b).startswith(f"{path}:") for b in bad)
    assert len(good) == 1 and good[0].id == "c1"
    assert [m.latency_ms for m in good[0].messages] == [500.0]


def test_a_bad_span_in_an_export_names_its_place_in_the_batch(tmp_path: Path) -> None:
    doc = json.loads((HERE / "genai_weather_paris.json").read_text())
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["endTimeUnixNano"] = -5
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc, indent=1))
    items = cases(path)
    bad = [i for i in items if isinstance(i, BadRow)]
    assert len(bad) == 1
    assert bad[0].field == "resourceSpans[0].scopeSpans[0].spans[1]"
    assert "span 1b2c3d4e5f607182" in bad[0].reason
    text = path.read_text().splitlines()
    assert '"1b2c3d4e5f607182"' in text[bad[0].line - 1]  # the line the span stands on
    good = [i for i in items if isinstance(i, Case)]
    assert len(good) == 1 and good[0].messages[-1].content.startswith("The weather in Paris")


def test_detection_by_content_and_forcing(tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"id": "x", "messages": [
        {"role": "user", "content": 'my "traceId" and "spanId" are here'}]}) + "\n")
    assert not is_trace_file(chat)
    assert one(chat).id == "x"
    assert is_trace_file(HERE / "openinference_booking.jsonl")
    forced = cases(HERE / "genai_weather_paris.json", "chat")
    assert len(forced) == 1 and isinstance(forced[0], BadRow)  # an export is not a chat row
    # forced to the GenAI conventions, OpenInference spans say nothing about a dialog
    assert cases(HERE / "openinference_booking.jsonl", "otel") == []


def test_rows_of_a_trace_file_have_distinct_places(tmp_path: Path) -> None:
    """Each conversation is one row whose `file:line` is unique (journals and --resume key
    on it), even when one export line holds several conversations."""
    text = (HERE / "openinference_booking.jsonl").read_text()
    docs = [json.loads(line) for line in text.splitlines()]
    docs[1]["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"] = []
    for span in docs[1]["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["attributes"] = [a for a in span["attributes"] if a["key"] != "session.id"]
    merged = docs[0]
    merged["resourceSpans"] += docs[1]["resourceSpans"]
    path = tmp_path / "one_line.jsonl"
    path.write_text(json.dumps(merged) + "\n")
    rows = list(read_rows([path]))
    assert len(rows) == 2 and len({r.origin for r in rows}) == 2


def test_run_reads_a_trace_file_from_the_command_line(tmp_path: Path) -> None:
    spec = tmp_path / "t.eval"
    spec.write_text(SPEC)
    out = tmp_path / "report.json"
    done = run_evaldsl("run", spec, HERE / "agentevals_content_capture_off.json",
                       HERE / "agentevals_three_trace_conversation.json", "-o", out, "-q")
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["cases"]["evaluated"] == 2
    forced = run_evaldsl("run", spec, HERE / "genai_weather_paris.json", "--input-format",
                         "openinference", "-o", out, "-q")
    assert forced.returncode in (0, 4), forced.stderr
    assert "Traceback" not in forced.stderr


# ------------------------------------------------------------------ hostile data


def test_deep_nesting_and_huge_attributes_are_bad_rows(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    nested: dict[str, Any] = {"stringValue": "x"}
    for _i in range(50):
        nested = {"arrayValue": {"values": [nested]}}
    huge = {"key": "gen_ai.output.messages", "value": {"stringValue": "x" * (9 * 1024 * 1024)}}
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join([
        '{"traceId": "a", "spanId": "b", "x": ' + deep + "}",
        span_line("0000000000000002", attributes=[{"key": "k", "value": nested}]),
        span_line("0000000000000003", attributes=[huge]),
        span_line("0000000000000004", startTimeUnixNano="99999999999999999999999"),
        span_line("0000000000000005"),
    ]) + "\n")
    started = time.perf_counter()
    items = cases(path)
    assert time.perf_counter() - started < 30
    bad = [i for i in items if isinstance(i, BadRow)]
    assert [b.line for b in bad] == [1, 2, 3, 4]
    assert "nested" in bad[0].reason and "nested" in bad[1].reason
    assert "longer than" in bad[2].reason
    assert "nanoseconds" in bad[3].reason or "out of range" in bad[3].reason
    assert [i.id for i in items if isinstance(i, Case)] == ["c1"]


@pytest.mark.slow
def test_a_hundred_thousand_spans_are_read_in_bounded_time_and_memory(tmp_path: Path) -> None:
    """100k content-less chat spans in 20k conversations: read whole, bounded (the rate is
    measured by benchmarks/trace_read.py, not asserted here)."""
    path = tmp_path / "many.jsonl"
    with path.open("w") as out:
        for i in range(100_000):
            out.write(json.dumps({
                "traceId": f"{i // 5:032x}", "spanId": f"{i:016x}", "name": "chat",
                "startTimeUnixNano": str(1760000000000000000 + i * 1000),
                "endTimeUnixNano": str(1760000000000000000 + i * 1000 + 500),
                "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                               {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "3"}}],
            }) + "\n")
    tracemalloc.start()
    started = time.perf_counter()
    count = sum(1 for item in cases(path) if isinstance(item, Case))
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count == 20_000
    assert elapsed < 300
    assert peak < 1024 * 1024 * 1024
