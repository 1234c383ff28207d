"""Evaluate case files into a report and a results file: the logic of `evaldsl run`.

Kept apart from the command so the runner (resumable runs, progress, every
report format) and engines can reuse it. Cases stream from their files;
results are written one JSON line per case as soon as the case is done.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from evaldsl.api import Spec
from evaldsl.caserows import CaseSchema
from evaldsl.cases import Case
from evaldsl.interpreter import run_concurrently
from evaldsl.loading import BadRow, Policy, read_cases
from evaldsl.results import CaseResult, Report


@dataclass
class FileRun:
    report: Report
    bad_rows: list[BadRow] = field(default_factory=list)


def run_files(spec: Spec, paths: Iterable[str | Path], *, results: str | Path | None = None,
              on_bad_row: Policy = "fail", concurrency: int = 8) -> FileRun:
    """Evaluate every case of `paths`; write `results` (JSONL) when given."""
    outcome = FileRun(spec.new_report())
    cases = _good_cases(read_cases(list(paths), CaseSchema.of(spec), on_bad_row),
                        outcome.bad_rows)
    sink = open(results, "w", encoding="utf-8") if results else None  # noqa: SIM115
    try:
        if spec.has_model_checks:
            asyncio.run(_run_async(spec, cases, outcome.report, sink, concurrency))
        else:
            for case in cases:
                _record(spec.evaluate(case), outcome.report, sink)
    finally:
        if sink is not None:
            sink.close()
    return outcome


async def _run_async(spec: Spec, cases: Iterable[Case], report: Report, sink: IO[str] | None,
                     concurrency: int) -> None:
    try:
        async for result in run_concurrently(spec.evaluate_async, cases, concurrency):
            _record(result, report, sink)
    finally:
        await spec.aclose()


def _record(result: CaseResult, report: Report, sink: IO[str] | None) -> None:
    report.add(result)
    if sink is not None:
        sink.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
        sink.flush()


def _good_cases(items: Iterable[Case | BadRow], bad_rows: list[BadRow]) -> Iterator[Case]:
    for item in items:
        if isinstance(item, BadRow):
            bad_rows.append(item)
        else:
            yield item
