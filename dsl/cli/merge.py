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

from evaldsl.cli.flags import add_gates, add_report_outputs
from evaldsl.cli.run import (
    check_outputs,
    explorer_sink,
    junit_sink,
    report_gates,
    summary_stream,
    tool_version,
    write_outputs,
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
    from evaldsl.report.layout import layout_of
    from evaldsl.run.merging import merge_journals

    check_outputs(args)
    spec = load(args.spec)
    layout = layout_of(spec.source, str(args.spec))
    check_thresholds_of(args.fail_under + args.fail_over, spec)
    junit = junit_sink(args, layout)
    cases = explorer_sink(args, layout, _inputs(args.results, args.cases))
    try:
        state = merge_journals(spec, layout, args.results,
                               [sink for sink in (junit, cases) if sink is not None])
    except BaseException:
        if junit is not None:
            junit.discard()
        raise
    if junit is not None:
        junit.finish()
    report = state.report_dict({"merged_journals": [str(p) for p in args.results]},
                               generated_by=tool_version())
    write_outputs(args, report, cases)
    if not args.quiet:
        from evaldsl.report.terminal import render_terminal

        print(render_terminal(report), file=summary_stream(args))
    return report_gates(args.fail_under + args.fail_over, report)


def _inputs(journals: list[Path], given: list[Path]) -> tuple[str, ...]:
    """The case files the HTML report reads the dialogs back from: only those `--cases`
    gives, never a file a journal's header names (a journal may come from anywhere). A
    given file is read under the name a header gives the same file, so the journal's rows
    (`cases.jsonl:12`) find it however the command line spells it."""
    from evaldsl.report.journal import recover

    if not given:
        return ()
    wanted = {_same_file(path): str(path) for path in given}
    for journal in journals:
        header = recover(journal).header if journal.is_file() else None
        for name in header.inputs if header else ():
            key = _same_file(Path(name))
            if key in wanted and wanted[key] != name and Path(wanted[key]).exists():
                wanted[key] = name
    return tuple(dict.fromkeys(wanted.values()))


def _same_file(path: Path) -> Path | tuple[int, int]:
    """What tells one file from another: its device and inode, else its absolute path."""
    try:
        stat = path.stat()
    except OSError:
        return path.absolute()
    return stat.st_dev, stat.st_ino
