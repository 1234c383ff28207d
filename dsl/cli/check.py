"""`evaldsl check PATH...`: report errors and warnings in specs, like a compiler.

Folders are searched recursively for `*.eval` files. Human output shows each
problem as `file:line:col: error[E101]: message`, the source line, carets
and a hint (in colour on a terminal); `--format json` prints a list of
objects instead. Exit 0 without errors; 2 with errors, as every verb ends on a
spec error, and when a path cannot be read or the command is misused; 1, a
failed verdict, when `--strict` finds warnings (and no errors).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from evaldsl.checker import check_source
from evaldsl.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from evaldsl.cli.flags import spec_files
from evaldsl.diagnostics import Diagnostic, Severity, render, to_json
from evaldsl.errors import UsageError
from evaldsl.i18n import _, ngettext
from evaldsl.syntax.source import Source


class Checked(NamedTuple):
    source: Source
    diagnostics: list[Diagnostic]


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "check", help=_("report errors and warnings in specs"),
        description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("paths", nargs="+", metavar="PATH", help=_("spec files or folders"))
    p.add_argument("--format", choices=("human", "json"), default="human",
                   help=_("human-readable text (default) or a JSON list"))
    p.add_argument("--strict", action="store_true", help=_("treat warnings as errors"))
    p.add_argument("--no-color", action="store_true", help=_("never colour the output"))


def run(args: argparse.Namespace) -> int:
    files, problems = spec_files(args.paths)
    for problem in problems:
        print(_("evaldsl check: error: {problem}").format(problem=problem), file=sys.stderr)
    if problems:
        return EXIT_USAGE
    checked: list[Checked] = []
    for path in files:
        result = check_file(path)
        if isinstance(result, str):
            raise UsageError(result)
        checked.append(result)
    status = _status([d for c in checked for d in c.diagnostics], args.strict)
    if args.strict:
        checked = [Checked(c.source, [d.as_error() for d in c.diagnostics]) for c in checked]
    everything = [d for c in checked for d in c.diagnostics]
    if args.format == "json":
        print(to_json(everything))
    else:
        _print_human(checked, _use_color(args.no_color))
    return status


def _status(diagnostics: Sequence[Diagnostic], strict: bool) -> int:
    """2 for errors (a spec error, as from every verb); 1 for warnings `--strict` fails on."""
    if any(d.is_error for d in diagnostics):
        return EXIT_USAGE
    return EXIT_FAILED if strict and diagnostics else EXIT_OK


def check_file(path: Path) -> Checked | str:
    """The diagnostics of one spec file, or why it could not be read."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return _("cannot read `{path}`: {value}").format(path=path, value=exc.strerror or exc)
    result, diagnostics = check_source(data, str(path))
    return Checked(result.source, diagnostics)


def _use_color(disabled: bool) -> bool:
    if disabled or "NO_COLOR" in os.environ:
        return False
    return sys.stdout.isatty()


def _print_human(checked: list[Checked], color: bool) -> None:
    blocks = [render(d, c.source, color) for c in checked for d in c.diagnostics]
    if blocks:
        print("\n\n".join(blocks))
        print()
    print(summary(checked))


def summary(checked: list[Checked]) -> str:
    """`2 errors and 1 warning in 3 files`, or that everything is clean."""
    errors = sum(1 for c in checked for d in c.diagnostics if d.severity is Severity.ERROR)
    warnings = sum(1 for c in checked for d in c.diagnostics if d.severity is Severity.WARNING)
    files = ngettext("{count} file", "{count} files", len(checked)).format(count=len(checked))
    if not errors and not warnings:
        return _("no problems in {files}").format(files=files)
    found = [
        ngettext("{count} error", "{count} errors", errors).format(count=errors) if errors else "",
        ngettext("{count} warning", "{count} warnings", warnings).format(count=warnings)
        if warnings
        else "",
    ]
    problems = _("{first} and {second}") if all(found) else "{first}{second}"
    return _("{problems} in {files}").format(
        problems=problems.format(first=found[0], second=found[1]), files=files
    )
