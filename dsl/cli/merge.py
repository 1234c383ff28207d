"""`evaldsl merge SPEC RESULTS...`: the journals of sharded runs as one run's reports.

    evaldsl run spec.eval part1.jsonl --results r1.jsonl     # on one machine
    evaldsl run spec.eval part2.jsonl --results r2.jsonl     # on another
    evaldsl merge spec.eval r1.jsonl r2.jsonl -o report.json --html report.html

Counts and metrics are recomputed from the merged per-case results, so the
report is the one a single run over every case would give (dialogs, which
journals do not hold, are read back from the case files `--cases` gives, and from
no other file: a journal's header may name any).
The spec is needed for its metric formulas; journals of another spec (by
hash) are refused (exit 2), and so is a case found in two journals (exit 3).
Outputs, `--fail-under` and `--fail-over` as for `run`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from evaldsl.cli.flags import (
    add_gates,
    add_report_outputs,
    report_files,
    report_gates,
    summary_stream,
)
from evaldsl.i18n import _


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("merge", help=_("combine the journals of sharded runs into reports"),
                              description=_("Combine the --results journals of runs of one spec "
                                          "on disjoint cases into the reports of the whole."))
    p.add_argument("spec", type=Path, metavar="SPEC")
    p.add_argument("results", type=Path, nargs="+", metavar="RESULTS",
                   help=_("results.jsonl journals written by `evaldsl run --results`"))
    out = add_report_outputs(p)
    out.add_argument("-q", "--quiet", action="store_true", help=_("do not print the summary"))
    p.add_argument("--cases", type=Path, nargs="+", default=[], metavar="FILE",
                   help=_("case files the HTML report reads the dialogs from (no other file "
                          "is read)"))
    add_gates(p)


def run(args: argparse.Namespace) -> int:
    from evaldsl.api import load
    from evaldsl.report.gates import check_thresholds_of
    from evaldsl.run.merging import merge_runs

    files = report_files(args)
    files.check()
    spec = load(args.spec)
    check_thresholds_of(args.fail_under + args.fail_over, spec)
    report = merge_runs(spec, args.results, files, args.cases)
    if not args.quiet:
        from evaldsl.report.terminal import render_terminal

        print(render_terminal(report), file=summary_stream(args))
    return report_gates(args.fail_under + args.fail_over, report)
