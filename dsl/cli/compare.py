"""`evaldsl compare SPEC BASE NEW`: two runs' journals side by side, with paired statistics.

    evaldsl run spec.eval cases.jsonl --results base.jsonl
    evaldsl run spec.eval cases.jsonl --results new.jsonl      # after the change
    evaldsl compare spec.eval base.jsonl new.jsonl --md compare.md \
        --fail-if-worse success_rate:2%

The spec gives the metric formulas, as for `evaldsl merge`. Journals written
by another spec than SPEC, or by different specs, are compared with a warning
(the figures may not mean the same thing); `--strict` refuses them (exit 2).
Exit 1 only when a `--fail-if-worse` gate fails (docs/compare.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evaldsl.cli.exits import EXIT_FAILED, EXIT_OK, UsageError
from evaldsl.errors import OptionsError
from evaldsl.i18n import _

STDOUT = Path("-")


def _gate(text: str) -> Any:
    """`--fail-if-worse METRIC[:MARGIN]` (`evaldsl.analysis.compare.parse_gate`)."""
    from evaldsl.analysis.compare import parse_gate

    try:
        return parse_gate(text)
    except OptionsError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(
            _("`{value}` is not a whole number above 0").format(value=text))
    return number


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("compare", help=_("compare two runs of one spec, case by case"),
                              description=_("Pair the cases of two --results journals by id "
                                            "and compare every metric with paired tests."))
    p.add_argument("spec", type=Path, metavar="SPEC")
    p.add_argument("base", type=Path, metavar="BASE", help=_("the journal of the earlier run"))
    p.add_argument("new", type=Path, metavar="NEW", help=_("the journal of the changed run"))
    p.add_argument("-o", "--output", type=Path,
                   help=_("the comparison as JSON (docs/compare.schema.json; `-` is stdout)"))
    p.add_argument("--md", type=Path, help=_("the comparison as Markdown, for a PR comment"))
    p.add_argument("--fail-if-worse", action="append", default=[], metavar="METRIC[:MARGIN]",
                   type=_gate,
                   help=_("exit 1 when METRIC dropped significantly by more than MARGIN"))
    p.add_argument("--seed", type=int, default=20240601,
                   help=_("the seed of the bootstrap and permutation draws"))
    p.add_argument("--resamples", type=_positive, default=2000,
                   help=_("bootstrap and permutation resamples (default 2000)"))
    p.add_argument("--changed", type=_positive, default=100, metavar="N",
                   help=_("list the N worst changed cases (default 100); the rest are "
                          "counted"))
    p.add_argument("--strict", action="store_true",
                   help=_("refuse journals written by another spec"))
    p.add_argument("-q", "--quiet", action="store_true", help=_("do not print the summary"))


def run(args: argparse.Namespace) -> int:
    from evaldsl.analysis.compare import Settings, check_gates, compare_runs, gate, read_run
    from evaldsl.analysis.compare_render import to_dict
    from evaldsl.api import load

    if args.output == STDOUT and args.md == STDOUT:
        raise UsageError(_("only one of -o and --md can write to stdout"))
    spec = load(args.spec)
    plan = spec.new_report(details=False).plan
    check_gates(args.fail_if_worse, [m.name for m in plan.metrics])
    base, new = read_run(args.base, plan), read_run(args.new, plan)
    _check_hashes(spec.hash, [(args.base, base.spec_hash), (args.new, new.spec_hash)],
                  args.strict)
    comparison = compare_runs(plan, base, new,
                              Settings(args.seed, args.resamples, args.changed))
    gates = [gate(comparison, g.metric, g.margin) for g in args.fail_if_worse]
    data = to_dict(comparison, spec.hash, gates)
    _write(args, data)
    return EXIT_FAILED if any(g.reason for g in gates) else EXIT_OK


def _check_hashes(spec_hash: str, journals: list[tuple[Path, str | None]],
                  strict: bool) -> None:
    """Warn of each journal another spec wrote (or one without a header); refuse with
    `--strict`."""
    for path, found in journals:
        if found == spec_hash:
            continue
        what = (_("hash {hash}").format(hash=found[:12]) if found else _("no header"))
        message = _("`{path}` holds results of another spec ({found}, this spec "
                    "{hash})").format(path=path, found=what, hash=spec_hash[:12])
        if strict:
            raise UsageError(message, hint=_("compare runs of this spec, or drop --strict"))
        print(_("warning: {message}").format(message=message), file=sys.stderr)


def _write(args: argparse.Namespace, data: dict[str, Any]) -> None:
    from evaldsl.analysis.compare_render import render_markdown, render_terminal
    from evaldsl.atomic import replace_file

    outputs = [(args.output, json.dumps(data, ensure_ascii=False, indent=2) + "\n"),
               (args.md, None)]
    for path, text in outputs:
        if path is None:
            continue
        text = text if text is not None else render_markdown(data)
        if path == STDOUT:
            sys.stdout.write(text)
        else:
            replace_file(path, text)
    if not args.quiet:
        on_stdout = STDOUT in (args.output, args.md)
        print(render_terminal(data), end="", file=sys.stderr if on_stdout else sys.stdout)
