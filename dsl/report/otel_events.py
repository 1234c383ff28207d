"""`--otel-out FILE`: each verdict as an OpenTelemetry `gen_ai.evaluation.result` event.

One OTLP/JSON logs export per line (`{"resourceLogs": [...]}`), as a collector's file
exporter writes them, so a collector (`otlpjsonfile` receiver) or a trace viewer that
reads OTLP takes them in. A case gives one event per outcome block (its label) and one per
check (pass, fail or error, its score and reason), with the GenAI attributes
`gen_ai.evaluation.name`, `gen_ai.evaluation.score.value`, `gen_ai.evaluation.score.label`
and `gen_ai.evaluation.explanation`, and `evaldsl.case.id`. An event is tied to the judged
trace and span: a case read from a trace file (`evaldsl.cases.traces`) carries `trace_id`
and `span_id` (the span of its last reply), as may a chat file's row; they become the log
record's `traceId` and `spanId`.

The ids are read back from the case files by row when the run ends (the records a run's
sinks get name the row, not the case's fields); each case's events wait in memory until
then as a few short tuples.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evaldsl.atomic import replace_file
from evaldsl.record import CaseRecord

EVENT = "gen_ai.evaluation.result"
Compact = tuple[str, str, tuple[tuple[str, float | None, str, str], ...]]
"""A case as its events need it: row, id, and (name, score, label, explanation) each."""


def compact(record: CaseRecord) -> Compact:
    """The events of one case record (a journal line)."""
    results: list[tuple[str, float | None, str, str]] = []
    errors = record.errors
    for block, label in record.labels.items():
        results.append((str(block), None, str(label), str(errors.get(block) or "")))
    for name, check in record.checks.items():
        if not isinstance(check, Mapping):
            continue
        status = str(check.get("status") or "")
        score = check.get("score")
        value = float(score) if isinstance(score, (int, float)) and not isinstance(
            score, bool) else None
        reason = check.get("reason")
        if status == "error":
            passed = check.get("passed")
            reason = passed.get("error") if isinstance(passed, Mapping) else reason
        results.append((str(name), value, status, str(reason or "")))
    return str(record.row or ""), record.id, tuple(results)


class Renderer:
    """What a worker process runs per case (picklable): the record to its compact events."""

    def render(self, record: CaseRecord) -> Compact:
        return compact(record)

    @staticmethod
    def join(rendered: Sequence[Compact]) -> list[Compact]:
        return list(rendered)


class OtelEvents:
    """The run's sink: cases' events kept compact, written with their trace ids at the end."""

    def __init__(self, path: Path, spec: str, inputs: Iterable[str],
                 input_format: str | None = None) -> None:
        self.path = path
        self.spec = spec
        self.inputs = [str(i) for i in inputs]
        self.input_format = input_format
        self.cases: list[Compact] = []

    def add(self, record: CaseRecord) -> None:
        self.cases.append(compact(record))

    def renderer(self) -> Renderer:
        return Renderer()

    def add_rendered(self, part: Sequence[Compact]) -> None:
        self.cases.extend(part)

    def finish(self) -> None:
        ids = _trace_ids(self.inputs, self.input_format, {c[0] for c in self.cases})
        now = str(time.time_ns())
        replace_file(self.path, (json.dumps(_export(self.spec, case, ids.get(case[0]), now),
                                            ensure_ascii=False) + "\n" for case in self.cases))


def _trace_ids(inputs: list[str], input_format: str | None,
               rows: set[str]) -> dict[str, tuple[str, str]]:
    """Row -> (trace id, span id) of the cases that carry them."""
    from evaldsl.cases.loading import RawRow, read_rows

    out: dict[str, tuple[str, str]] = {}
    for row in read_rows(inputs, input_format):
        if not isinstance(row, RawRow) or row.origin not in rows:
            continue
        data = row.data
        if isinstance(data, bytes):
            if b'"trace_id"' not in data:
                continue
            try:
                data = json.loads(data)
            except ValueError:
                continue
        if isinstance(data, dict):
            trace, span = data.get("trace_id"), data.get("span_id")
            if isinstance(trace, str) and trace:
                out[row.origin] = (trace, span if isinstance(span, str) else "")
    return out


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    return {"key": key, "value": {"stringValue": str(value)}}


def _export(spec: str, case: Compact, ids: tuple[str, str] | None, now: str) -> dict[str, Any]:
    row, case_id, results = case
    records = []
    for name, score, label, explanation in results:
        attrs = [_attr("gen_ai.evaluation.name", name),
                 _attr("gen_ai.evaluation.score.label", label),
                 _attr("evaldsl.case.id", case_id)]
        if score is not None:
            attrs.append(_attr("gen_ai.evaluation.score.value", score))
        if explanation:
            attrs.append(_attr("gen_ai.evaluation.explanation", explanation))
        if label == "error":
            attrs.append(_attr("error.type", "evaldsl.error"))
        record: dict[str, Any] = {"timeUnixNano": now, "observedTimeUnixNano": now,
                                  "eventName": EVENT, "attributes": attrs}
        if ids is not None:
            record["traceId"], record["spanId"] = ids
        records.append(record)
    return {"resourceLogs": [{
        "resource": {"attributes": [_attr("service.name", "evaldsl"),
                                    _attr("evaldsl.spec", spec),
                                    _attr("evaldsl.row", row)]},
        "scopeLogs": [{"scope": {"name": "evaldsl"}, "logRecords": records}]}]}
