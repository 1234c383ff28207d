"""`evaldsl run SPEC CASES...`: evaluate cases and write the report and the results.

Cases are OpenAI-format transcripts (`id`, `messages`, other fields read as
`case.X`) in JSONL, YAML or JSON files, streamed. `-o report.json` writes the
counts per label of each outcome block and every metric with value,
numerator, denominator and errors left out; `--results results.jsonl` writes
one line per case (its id, label per block and check results) as soon as it
is done. The summary goes to stdout. Exit 0; 2 for usage or spec errors; 3
for data errors (a bad row under `--on-bad-row fail`, an unreadable file).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evaldsl.api import Spec, load
from evaldsl.cli.main import EXIT_DATA, EXIT_OK, EXIT_USAGE
from evaldsl.errors import CaseDataError, SpecError
from evaldsl.run_files import FileRun, run_files


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "run", help="evaluate cases and write a report",
        description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("spec", metavar="SPEC", help="a .eval file")
    p.add_argument("cases", nargs="+", metavar="CASES", help="case files (.jsonl, .yaml, .json)")
    p.add_argument("-o", "--output", metavar="REPORT", help="write report.json here")
    p.add_argument("--results", metavar="RESULTS", help="write one JSON line per case here")
    p.add_argument("--on-bad-row", choices=("skip", "fail"), default="fail",
                   help="what a malformed row does: stop the run (default) or be skipped")
    p.add_argument("--concurrency", type=int, default=8, metavar="N",
                   help="cases in flight at once when model checks are needed (default 8)")


def run(args: argparse.Namespace) -> int:
    try:
        spec = load(args.spec)
    except SpecError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_USAGE
    missing = [c for c in args.cases if not Path(c).is_file()]
    if missing:
        print(f"evaldsl run: error: no such case file `{missing[0]}`", file=sys.stderr)
        return EXIT_DATA
    try:
        outcome = run_files(spec, args.cases, results=args.results,
                            on_bad_row=args.on_bad_row, concurrency=args.concurrency)
    except CaseDataError as exc:
        print(f"evaldsl run: error: {exc}", file=sys.stderr)
        return EXIT_DATA
    _write_report(spec, outcome, args.output)
    print(outcome.report.summary())
    for bad in outcome.bad_rows[:10]:
        print(f"skipped: {bad}", file=sys.stderr)
    return EXIT_OK


def _write_report(spec: Spec, outcome: FileRun, path: str | None) -> None:
    if not path:
        return
    data = outcome.report.to_dict()
    data["bad_rows"] = [b.to_dict() for b in outcome.bad_rows]
    stats = spec.model_stats()
    if stats is not None:
        data["model_calls"] = stats.calls
    Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", "utf-8")
