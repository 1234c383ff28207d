"""`evaldsl`: the command-line entry point; one module per verb.

Each verb module exposes `add_parser(subparsers)` and `run(args) -> int`.
Exit codes: 0 ok, 1 a check or threshold failed, 2 usage or spec errors,
3 data errors. No input ever ends in a traceback: unexpected exceptions are
reported as internal errors with a one-line summary.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

VERBS = ("check", "fmt", "explain", "run", "test", "review", "calibrate", "primitives")
"""Verb names; `evaldsl.cli.<verb>` implements each (a missing module is skipped)."""

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_DATA = 0, 1, 2, 3


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
        module = _verb_module(verb)
        if module is not None:
            module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(_verbs_named(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    if not getattr(args, "verb", None):
        parser.print_help()
        return EXIT_USAGE
    module = _verb_module(args.verb)
    assert module is not None
    try:
        return int(module.run(args))
    except KeyboardInterrupt:
        print("evaldsl: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


def _verbs_named(argv: Sequence[str]) -> Sequence[str]:
    """Only the verb the command line names, when it names one: each verb module imports
    what its verb needs, and `check` should not pay for `run`'s or `explain`'s."""
    return argv[:1] if argv[:1] and argv[0] in VERBS else VERBS


def _verb_module(verb: str):  # type: ignore[no-untyped-def]
    try:
        return import_module(f"evaldsl.cli.{verb}")
    except ModuleNotFoundError as exc:
        if exc.name == f"evaldsl.cli.{verb}":
            return None
        raise


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"evaldsl {version('evaldsl')}"
    except PackageNotFoundError:
        return "evaldsl (not installed)"


if __name__ == "__main__":
    sys.exit(main())
