"""A run's review sample into the review store: the drawn cases, the machine's view, the dialogs.

The queue is exactly what `evaldsl review` writes to a file (the same
`evaldsl.review.sample.sample_rows`: drawn cases, highest priority first,
results of another spec refused); the store keeps more of each case than a
spreadsheet can: every check's status, value and reason, and the dialog with
tool calls and latencies, so a reviewer sees what the machine saw.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evaldsl.record import CaseRecord
from evaldsl.report.layout import VERDICT, SpecLayout
from evaldsl.review.sample import checked_records, read_layout, sample_rows
from evaldsl.review.store import QueuedCase, ReviewStore

CHECK_FIELDS = ("status", "passed", "score", "value", "reason")
"""What the page shows of each check's result."""


def import_results(store: ReviewStore, results: Path, spec: Path,
                   case_files: Iterable[Path] = ()) -> int:
    """Queue the cases `spec`'s review block drew in `results`; returns how many were new.

    Importing again (a resumed run, more case files) keeps every label already
    saved: cases are matched by id.
    """
    layout = read_layout(spec)
    rows = sample_rows(results, layout)
    records = {r.id: r for r in checked_records(results)}
    dialogs = read_dialogs(case_files, {r["id"] for r in rows})
    cases = [QueuedCase(row["id"], position, row["priority"], row["rule"],
                        machine_view(records[row["id"]]), dialogs.get(row["id"]))
             for position, row in enumerate(rows)]
    return store.add_cases(cases, {**store_meta(layout), "results": str(results)})


def store_meta(layout: SpecLayout) -> dict[str, Any]:
    """What a store records of the spec: its name and hash, every outcome block with its
    levels (`blocks`), and the default block a label is for when it names none, with its
    levels (the verdict block when there is one, else the first)."""
    block = VERDICT if any(b.key == VERDICT for b in layout.blocks) else next(
        (b.key for b in layout.blocks), None)
    levels = next((list(b.labels) for b in layout.blocks if b.key == block), [])
    return {"spec": layout.name, "spec_hash": layout.hash, "block": block, "levels": levels,
            "blocks": {b.key: list(b.labels) for b in layout.blocks}}


def machine_view(record: CaseRecord) -> dict[str, Any]:
    """What the spec said of a case, as the page shows it (the page's own JSON, which
    names its parts as the record does)."""
    checks = {name: {k: result.get(k) for k in CHECK_FIELDS if k in result}
              for name, result in record.checks.items()}
    return {"labels": dict(record.labels), "checks": checks, "skipped": list(record.skipped),
            "errors": dict(record.errors), "lets": dict(record.lets)}


def read_dialogs(files: Iterable[Path], wanted: set[str]) -> dict[str, list[dict[str, Any]]]:
    """The dialogs of the `wanted` cases in `files`, with tool calls and latencies."""
    from evaldsl.cases.bad_rows import BadRow
    from evaldsl.cases.loading import read_cases

    found: dict[str, list[dict[str, Any]]] = {}
    for item in read_cases(list(files), on_bad_row="skip"):
        if not isinstance(item, BadRow) and item.id in wanted:
            found[item.id] = [message_view(m) for m in item.messages]
    return found


def message_view(message: Any) -> dict[str, Any]:
    """One message as the page shows it: role, text, tool calls and latency."""
    out: dict[str, Any] = {"role": message.speaker, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [call.written for call in message.tool_calls]
    if message.latency_ms is not None:
        out["latency_ms"] = message.latency_ms
    return out
