"""`evaldsl`: the command-line entry point; one module per verb.

Each verb module exposes `add_parser(subparsers)` and `run(args) -> int`.
Exit codes: 0 ok, 1 a failed verdict, 2 usage or spec errors, 3 data errors,
70 internal errors, 130 interrupted, 141 stdout's reader went away;
`evaldsl.cli.exits` holds the one table from exception to code. No input ever
ends in a traceback: an unexpected exception is one line, `evaldsl: internal
error: TYPE: message`, and the traceback is saved to a file that line names.

`--lang zh|en` may stand before or after the verb; it is read before anything
else, so even a usage error is in the chosen language (`evaldsl.i18n`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from types import ModuleType
from typing import Any

from evaldsl.cli.collector import ends_process
from evaldsl.cli.exits import EXIT_USAGE, exit_for
from evaldsl.i18n import LANGUAGES, _, set_language
from evaldsl.run.lifeline import follow_parent

VERBS = ("check", "fmt", "explain", "run", "collect", "merge", "compare", "test", "review",
         "calibrate", "primitives", "lsp", "studio", "watch")
"""Verb names; `evaldsl.cli.<verb>` implements each."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"evaldsl: error: {message}\n")


def build_parser(verbs: Sequence[str] = VERBS) -> argparse.ArgumentParser:
    """The parser with the subcommands of `verbs` (all by default)."""
    parser = _Parser(prog="evaldsl", description=_("Judge conversational and tool-using agents."))
    parser.add_argument("--version", action=_Version, nargs=0,
                        help=_("show the program's version number and exit"))
    _add_lang(parser)
    subparsers = parser.add_subparsers(dest="verb", metavar="COMMAND", parser_class=_Parser)
    for verb in verbs:
        _verb_module(verb).add_parser(subparsers)
    for sub in subparsers.choices.values():
        _add_lang(sub, default=argparse.SUPPRESS)
    return parser


def _add_lang(parser: argparse.ArgumentParser, default: object = None) -> None:
    """`--lang`, the same option on the program and on every verb."""
    parser.add_argument(
        "--lang", choices=LANGUAGES, default=default,
        help=_("the language of messages and reports (default: EVALDSL_LANG, else the locale)"),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run one verb; stdout is flushed here, so a reader gone by then (`| head`) is met as
    any other broken pipe, not at interpreter exit where Python would complain of it.
    A verb may have closed stdout itself (`lsp`, whose server closes it on exit). Without
    `argv` it is the program, which ends when the verb returns (`evaldsl.cli.collector`)."""
    ends_process(argv is None)
    try:
        try:
            return _main(argv)
        finally:
            if not sys.stdout.closed:
                sys.stdout.flush()
    except BrokenPipeError as exc:
        return exit_for(exc, "")


def _main(argv: Sequence[str] | None) -> int:
    follow_parent()  # a child of the studio ends with it
    words = sys.argv[1:] if argv is None else argv
    set_language(language_named(words))
    parser = build_parser(_verbs_named(words))
    args = parser.parse_args(argv)
    if not getattr(args, "verb", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(_verb_module(args.verb).run(args))
    except (Exception, KeyboardInterrupt) as exc:
        return exit_for(exc, args.verb)


def language_named(argv: Sequence[str]) -> str | None:
    """The last valid `--lang X` or `--lang=X` of the command line, None without one.

    An invalid value is left for argparse to reject, in the language of the environment.
    """
    named = None
    for i, word in enumerate(argv):
        value = argv[i + 1] if word == "--lang" and i + 1 < len(argv) else None
        if word.startswith("--lang="):
            value = word.removeprefix("--lang=")
        if value in LANGUAGES:
            named = value
    return named


def _verbs_named(argv: Sequence[str]) -> Sequence[str]:
    """Only the verb the command line names, when it names one: each verb module imports
    what its verb needs, and `check` should not pay for `run`'s or `explain`'s."""
    verbs = [word for word in _without_lang(argv)[:1] if word in VERBS]
    return verbs or VERBS


def _without_lang(argv: Sequence[str]) -> list[str]:
    """The command line without a leading `--lang X`, so `evaldsl --lang zh check` finds its
    verb."""
    words = list(argv)
    while words[:1] and words[0].startswith("--lang"):
        words = words[2:] if words[0] == "--lang" else words[1:]
    return words


def _verb_module(verb: str) -> ModuleType:
    return import_module(f"evaldsl.cli.{verb}")


class _Version(argparse.Action):
    """`--version`, looked up only when asked: reading the installed version scans every
    installed distribution, tens of milliseconds that every other command would pay."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(_version())
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"evaldsl {version('evaldsl')}"
    except PackageNotFoundError:
        return "evaldsl (not installed)"


if __name__ == "__main__":
    sys.exit(main())
