"""`watch` takes traces: `POST /v1/traces` over real HTTP, conversations judged once idle or
ended, and a restart (even `kill -9`) that loses and repeats nothing."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.watch_kit import Watch, wait_for

TRACES = Path(__file__).resolve().parents[1] / "cases" / "traces"
SPEC = """spec "watched traces"

check fast = latency(max_ms: 1000)

outcome {
  quick if fast
  slow otherwise
}
"""


def post_traces(w: Watch, doc: dict[str, Any]) -> tuple[int, Any]:
    request = urllib.request.Request(w.base + "/v1/traces", json.dumps(doc).encode(),
                                     {"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        with refused:
            return refused.code, refused.read().decode()


def judged(state: Path) -> list[str]:
    path = state / "watch.jsonl"
    if not path.exists():
        return []
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return [x["id"] for x in lines if x.get("kind") == "session"]


def split(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """An export as one export a span, as an exporter's batches may come."""
    out = []
    for resource in doc["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                out.append({"resourceSpans": [{**resource, "scopeSpans": [
                    {**scope, "spans": [span]}]}]})
    return out


def spec_file(tmp_path: Path) -> Path:
    path = tmp_path / "t.eval"
    path.write_text(SPEC)
    return path


def test_spans_posted_apart_are_judged_once_idle(tmp_path: Path) -> None:
    state = tmp_path / "state"
    w = Watch(spec_file(tmp_path), "--state", state, "--session-idle", "1s")
    try:
        parts = split(json.loads((TRACES / "genai_weather_paris.json").read_text()))
        for part in parts:
            status, answer = post_traces(w, part)
            assert status == 200 and answer == {"partialSuccess": {}}
        assert judged(state) == []  # not idle yet
        wait_for(lambda: judged(state) == ["4bf92f3577b34da6a3ce929d0e0e4736"], timeout=30)
        report = w.get("/report")
        assert report["windows"][0]["report"]["cases"]["evaluated"] == 1
    finally:
        w.stop()


def test_an_end_marker_judges_at_once_and_bad_spans_are_rejected(tmp_path: Path) -> None:
    state = tmp_path / "state"
    w = Watch(spec_file(tmp_path), "--state", state, "--session-idle", "10m")
    try:
        doc = json.loads((TRACES / "agentevals_three_trace_conversation.json").read_text())
        spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
        spans[-1]["attributes"].append(
            {"key": "evaldsl.conversation.end", "value": {"boolValue": True}})
        spans.append({"traceId": "ab" * 16, "spanId": "0000000000000009",
                      "startTimeUnixNano": "x", "endTimeUnixNano": "1"})
        status, answer = post_traces(w, doc)
        assert status == 200
        assert answer["partialSuccess"]["rejectedSpans"] == 1
        assert "startTimeUnixNano" in answer["partialSuccess"]["errorMessage"]
        assert judged(state) == ["conv-ada-1"]  # judged before the answer
        status, _text = post_traces(w, {"resourceSpans": "nope"})
        assert status == 200
        refused = urllib.request.Request(w.base + "/v1/traces", b"{not json",
                                         {"Content-Type": "application/json"}, method="POST")
        try:
            urllib.request.urlopen(refused, timeout=30)
            raise AssertionError("a body that is not JSON was taken")
        except urllib.error.HTTPError as exc:
            assert exc.code == 400
            exc.close()
    finally:
        w.stop()


def test_a_restart_loses_and_repeats_nothing(tmp_path: Path) -> None:
    state = tmp_path / "state"
    spec = spec_file(tmp_path)
    w = Watch(spec, "--state", state, "--session-idle", "1s")
    try:
        assert post_traces(w, json.loads(
            (TRACES / "genai_weather_paris.json").read_text()))[0] == 200
        wait_for(lambda: judged(state) == ["4bf92f3577b34da6a3ce929d0e0e4736"], timeout=30)
    finally:
        w.stop()
    w = Watch(spec, "--state", state, "--session-idle", "10m")
    try:
        assert post_traces(w, json.loads(
            (TRACES / "agentevals_content_capture_off.json").read_text()))[0] == 200
    finally:
        w.kill()  # acknowledged, not yet idle: only the spool holds it
    started = time.monotonic()
    w = Watch(spec, "--state", state, "--session-idle", "1s")
    try:
        wait_for(lambda: len(judged(state)) == 2, timeout=30)
        time.sleep(1.5)  # anything judged twice would show by now
        assert judged(state) == ["4bf92f3577b34da6a3ce929d0e0e4736",
                                 "9a62c054318281c6df259d306ca5faed"]
        assert time.monotonic() - started < 60
    finally:
        w.stop()
