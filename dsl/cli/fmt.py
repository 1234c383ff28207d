"""`evaldsl fmt [--check] PATH...`: rewrite specs in the canonical layout.

Folders are searched recursively for `*.eval` files; `-` formats standard
input to standard output. With `--check` nothing is written: the files that
would change are listed and the exit code is 1. A file that does not parse
is reported and left alone (exit 2); so is one the formatter would change the
meaning of, which is a bug in the formatter (exit 70).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from evaldsl.atomic import replace_file
from evaldsl.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from evaldsl.cli.flags import spec_files
from evaldsl.diagnostics import render
from evaldsl.errors import FormatterBug, SpecError
from evaldsl.i18n import _, ngettext
from evaldsl.syntax.formatter import format_module
from evaldsl.syntax.parser import parse


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "fmt", help=_("rewrite specs in the canonical layout"),
        description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("paths", nargs="+", metavar="PATH", help=_("spec files or folders, or -"))
    p.add_argument("--check", action="store_true",
                   help=_("write nothing; list files that would change and exit 1 if any"))


def run(args: argparse.Namespace) -> int:
    if args.paths == ["-"]:
        return _stdin()
    files, problems = spec_files([p for p in args.paths if p != "-"])
    for problem in problems:
        print(_("evaldsl fmt: error: {problem}").format(problem=problem), file=sys.stderr)
    status = EXIT_USAGE if problems else EXIT_OK
    changed = 0
    for path in files:
        try:
            data = path.read_bytes()
            new = formatted(data, str(path))
            old = data.decode("utf-8-sig")  # as it is: `\r` line breaks are a change
        except (OSError, UnicodeDecodeError, SpecError) as exc:
            print(_why(path, exc), file=sys.stderr)
            status = EXIT_USAGE
            continue
        if new == old:
            continue
        changed += 1
        if args.check:
            print(_("would reformat {path}").format(path=path))
        else:
            _write(path, new)
            print(f"reformatted {path}", file=sys.stderr)
    if status == EXIT_OK and args.check and changed:
        status = EXIT_FAILED
    print(_summary(len(files), changed, args.check), file=sys.stderr)
    return status


def formatted(data: bytes | str, name: str) -> str:
    """The canonical text of a spec; `SpecError` when it does not parse."""
    result = parse(data, name)
    if result.module is None:
        rendered = "\n".join(render(d, result.source) for d in result.diagnostics)
        raise SpecError(result.diagnostics, rendered)
    text = format_module(result.module)
    if parse(text, name).module != result.module:
        raise FormatterBug(
            _("formatting `{name}` would change its meaning; the file is left as it is").format(
                name=name
            )
        )
    return text


def _stdin() -> int:
    sys.stdout.write(formatted(sys.stdin.buffer.read(), "<stdin>"))
    return EXIT_OK


def _why(path: Path, exc: Exception) -> str:
    if isinstance(exc, OSError):
        return _("evaldsl fmt: error: cannot read `{path}`: {value}").format(
            path=path, value=exc.strerror or exc
        )
    if isinstance(exc, UnicodeDecodeError):
        return _("evaldsl fmt: error: `{path}` is not UTF-8 text").format(path=path)
    return str(exc)


def _write(path: Path, text: str) -> None:
    """Replace the file atomically, so an interrupted run never leaves half a spec."""
    replace_file(path, text)


def _summary(total: int, changed: int, check: bool) -> str:
    verb = _("would be reformatted") if check else "reformatted"
    return ngettext(
        "{changed} of {total} file {verb}", "{changed} of {total} files {verb}", total
    ).format(changed=changed, total=total, verb=verb)
