"""`evaldsl`: the command-line entry point; one module per verb.

Each verb module exposes `add_parser(subparsers)` and `run(args) -> int`.
Exit codes: 0 ok, 1 a failed verdict, 2 usage or spec errors, 3 data errors,
70 internal errors, 130 interrupted, 141 stdout's reader went away;
`evaldsl.cli.exits` holds the one table from exception to code. No input ever
ends in a traceback: an unexpected exception is one line, `evaldsl: internal
error: TYPE: message`, and the traceback is saved to a file that line names.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from types import ModuleType

from evaldsl.cli.exits import EXIT_USAGE, exit_for

VERBS = ("check", "fmt", "explain", "run", "merge", "test", "review", "calibrate",
         "primitives")
"""Verb names; `evaldsl.cli.<verb>` implements each."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"evaldsl: error: {message}\n")


def build_parser(verbs: Sequence[str] = VERBS) -> argparse.ArgumentParser:
    """The parser with the subcommands of `verbs` (all by default)."""
    parser = _Parser(prog="evaldsl", description="Judge conversational and tool-using agents.")
    parser.add_argument("--version", action="version", version=_version())
    subparsers = parser.add_subparsers(dest="verb", metavar="COMMAND", parser_class=_Parser)
    for verb in verbs:
        _verb_module(verb).add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one verb; stdout is flushed here, so a reader gone by then (`| head`) is met as
    any other broken pipe, not at interpreter exit where Python would complain of it."""
    try:
        try:
            return _main(argv)
        finally:
            sys.stdout.flush()
    except BrokenPipeError as exc:
        return exit_for(exc, "")


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser(_verbs_named(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    if not getattr(args, "verb", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(_verb_module(args.verb).run(args))
    except (Exception, KeyboardInterrupt) as exc:
        return exit_for(exc, args.verb)


def _verbs_named(argv: Sequence[str]) -> Sequence[str]:
    """Only the verb the command line names, when it names one: each verb module imports
    what its verb needs, and `check` should not pay for `run`'s or `explain`'s."""
    return argv[:1] if argv[:1] and argv[0] in VERBS else VERBS


def _verb_module(verb: str) -> ModuleType:
    return import_module(f"evaldsl.cli.{verb}")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"evaldsl {version('evaldsl')}"
    except PackageNotFoundError:
        return "evaldsl (not installed)"


if __name__ == "__main__":
    sys.exit(main())
