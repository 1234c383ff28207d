"""`run --otel-out`: verdicts as `gen_ai.evaluation.result` events tied to trace and span."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.run_kit import evaldsl

TRACES = Path(__file__).resolve().parents[1] / "cases" / "traces"
SPEC = """spec "traces"

check fast = latency(max_ms: 1000)
check polite = keyword(any: ["please", "thanks"], scope: last_reply)

outcome {
  quick if fast
  slow otherwise
}

outcome tone {
  kind if polite
  curt otherwise
}
"""


def events(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text().splitlines():
        export = json.loads(line)
        for resource in export["resourceLogs"]:
            for scope in resource["scopeLogs"]:
                for record in scope["logRecords"]:
                    attrs = {a["key"]: next(iter(a["value"].values()))
                             for a in record["attributes"]}
                    out.append({**record, "attrs": attrs})
    return out


def test_each_verdict_is_an_event_on_the_judged_trace_and_span(tmp_path: Path) -> None:
    spec = tmp_path / "t.eval"
    spec.write_text(SPEC)
    out = tmp_path / "events.jsonl"
    done = evaldsl("run", spec, TRACES / "genai_weather_paris.json",
                   TRACES / "agentevals_content_capture_off.json", "--otel-out", out, "-q")
    assert done.returncode == 0, done.stderr
    found = events(out)
    assert {e["eventName"] for e in found} == {"gen_ai.evaluation.result"}
    by_case: dict[str, dict[str, dict[str, Any]]] = {}
    for e in found:
        by_case.setdefault(e["attrs"]["evaldsl.case.id"], {})[
            e["attrs"]["gen_ai.evaluation.name"]] = e
    weather = by_case["4bf92f3577b34da6a3ce929d0e0e4736"]
    assert {e["traceId"] for e in weather.values()} == {"4bf92f3577b34da6a3ce929d0e0e4736"}
    assert {e["spanId"] for e in weather.values()} == {"2c3d4e5f60718293"}
    assert weather["outcome"]["attrs"]["gen_ai.evaluation.score.label"] == "slow"
    assert weather["fast"]["attrs"]["gen_ai.evaluation.score.value"] == 0.5
    assert weather["fast"]["attrs"]["gen_ai.evaluation.explanation"] == "1 of 2 pass"
    off = by_case["9a62c054318281c6df259d306ca5faed"]
    assert off["fast"]["spanId"] == "e43d2f49cf5ee8c6"
    assert off["polite"]["attrs"]["gen_ai.evaluation.score.label"] == "error"
    assert "no text recorded" in off["polite"]["attrs"]["gen_ai.evaluation.explanation"]
    assert off["tone"]["attrs"]["gen_ai.evaluation.score.label"] == "error"

    again = tmp_path / "workers.jsonl"
    done = evaldsl("run", spec, TRACES / "genai_weather_paris.json",
                   TRACES / "agentevals_content_capture_off.json", "--otel-out", again, "-q",
                   "--workers", "2")
    assert done.returncode == 0, done.stderr

    def key(e: dict[str, Any]) -> tuple[Any, ...]:
        return (e.get("traceId"), e.get("spanId"), sorted(e["attrs"].items()))
    assert sorted(map(key, events(again))) == sorted(map(key, found))


def test_a_chat_case_without_trace_ids_still_gets_its_events(tmp_path: Path) -> None:
    spec = tmp_path / "t.eval"
    spec.write_text(SPEC)
    cases = tmp_path / "c.jsonl"
    cases.write_text(json.dumps({"id": "a", "span_id": "ab", "trace_id": "cd", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "thanks", "latency_ms": 10}]}) + "\n"
        + json.dumps({"id": "b", "messages": [{"role": "assistant", "content": "x"}]}) + "\n")
    out = tmp_path / "events.jsonl"
    assert evaldsl("run", spec, cases, "--otel-out", out, "-q").returncode == 0
    found = events(out)
    assert {(e["attrs"]["evaldsl.case.id"], e.get("traceId")) for e in found} == {
        ("a", "cd"), ("b", None)}
