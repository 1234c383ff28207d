"""`evaldsl collect`: drive the agent with the scenarios and record the transcripts, no more.

`evaldsl run SPEC TRANSCRIPTS` then judges them offline, as often as the spec changes,
without sending anything again. The spec is read for its `case {}` block, which the
scenario rows must satisfy. With `--resume`, the transcripts file is the record of what
was sent: a scenario it holds is not sent again.

Exit codes: 0 when the conversations were collected (the ones the agent failed are named on
stderr and counted), 4 when every one failed, 2 and 3 as for `run`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evaldsl.cli.exits import EXIT_NO_RESULTS, EXIT_OK
from evaldsl.cli.flags import add_target_flags, check_target_flags, drive_of
from evaldsl.i18n import _

FAILURES_SHOWN = 10
"""Failed conversations named on stderr; all are counted."""


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("collect", help=_("drive a live agent with scenarios and record "
                                                "the transcripts, without judging"))
    p.add_argument("spec", type=Path, metavar="SPEC")
    p.add_argument("cases", type=Path, nargs="+", metavar="SCENARIOS",
                   help=_("scenario files: rows whose `messages` are the user's turns"))
    add_target_flags(p.add_argument_group(_("the agent (docs/targets.md)")), required=True)
    journal = p.add_mutually_exclusive_group()
    journal.add_argument("--resume", action="store_true",
                         help=_("send only the scenarios --transcripts does not hold yet"))
    journal.add_argument("--overwrite", action="store_true",
                         help=_("start --transcripts afresh"))
    p.add_argument("--config", type=Path, default=None, help=_("settings (evaldsl.toml)"))
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help=_("the seed of the simulated users (default: 0)"))
    p.add_argument("-q", "--quiet", action="store_true", help=_("do not print the summary"))


def run(args: argparse.Namespace) -> int:
    import asyncio

    from evaldsl.api import load
    from evaldsl.run.driving import Driving, collect

    check_target_flags(args)
    spec = load(args.spec)
    missing = [c for c in args.cases if not c.is_file()]
    if missing:
        raise FileNotFoundError(2, _("no such file"), str(missing[0]))
    driving = Driving(drive_of(args), spec, None)
    shown = 0

    def failed_one(case_id: str, reason: str) -> None:
        nonlocal shown
        shown += 1
        if shown <= FAILURES_SHOWN:
            print(_("error: {id}: {reason}").format(id=case_id, reason=reason),
                  file=sys.stderr)

    try:
        failed = asyncio.run(collect(driving, driving.scenarios(args.cases, spec), failed_one))
    finally:
        driving.close()
    summary = driving.tally.summary()
    if not args.quiet:
        from evaldsl.report.terminal import target_line

        print("\n".join(target_line(summary)))
    return EXIT_NO_RESULTS if summary.conversations and failed == summary.conversations \
        else EXIT_OK
