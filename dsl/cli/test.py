"""`evaldsl test SPEC...`: run the specs' `example` blocks and report like a test runner.

Files or folders (searched recursively for `*.eval`). Each example is judged
offline with its pinned results; each `expect` must hold. Output lists every
example as PASS or FAIL, and for a failure each `expect` that did not hold
with what it evaluated to and the case's trace. Exit 0 when every example
passed, 1 when one failed, 2 when a spec has errors or nothing was found.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from evaldsl.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from evaldsl.errors import SpecError, UsageError
from evaldsl.i18n import _, ngettext


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("test", help=_("run the specs' example blocks"),
                              description=_("Run the `example` blocks of specs."))
    p.add_argument("paths", nargs="+", type=Path, metavar="SPEC",
                   help=_("spec files or folders holding them"))
    p.add_argument("-k", dest="keyword", default=None,
                   help=_("only examples whose name contains this text"))
    p.add_argument("-q", "--quiet", action="store_true",
                   help=_("print failures and the total only"))


def spec_files(paths: Iterable[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(path.rglob("*.eval"))
        else:
            yield path


def run(args: argparse.Namespace) -> int:
    from evaldsl.run.spec_tests import ExampleInterpreter, examples_of, run_example

    files = list(spec_files(args.paths))
    missing = [f for f in files if not f.is_file()]
    if missing or not files:
        raise UsageError(
            _("no spec at `{value}`").format(value=missing[0] if missing else args.paths[0])
        )
    passed = failed = broken = 0
    for path in files:
        try:
            from evaldsl.api import load

            spec = load(path)
        except SpecError as exc:
            broken += 1
            print(f"ERROR {path}\n{exc}\n", file=sys.stderr)
            continue
        interpreter = ExampleInterpreter(spec)
        examples = [e for e in examples_of(spec) if not args.keyword or args.keyword in e.name]
        if examples and not args.quiet:
            print(str(path))
        for example in examples:
            outcome = run_example(spec, example, interpreter)
            passed += outcome.passed
            failed += not outcome.passed
            _print(outcome, args.quiet)
    print(_total(passed, failed, broken, len(files)))
    if broken:
        return EXIT_USAGE
    return EXIT_FAILED if failed else EXIT_OK


def _print(outcome: Any, quiet: bool) -> None:
    from evaldsl.run.spec_tests import failure_report

    if outcome.passed:
        if not quiet:
            print(f"  PASS  {outcome.name}")
        return
    print(
        f"  FAIL  {outcome.name}"
        if not quiet
        else _("FAIL  {spec}: {name}").format(spec=outcome.spec, name=outcome.name)
    )
    for line in failure_report(outcome).splitlines():
        print(f"        {line}" if line else "")


def _total(passed: int, failed: int, broken: int, specs: int) -> str:
    total = passed + failed
    text = ngettext(
        "{total} example: {passed} passed, {failed} failed",
        "{total} examples: {passed} passed, {failed} failed",
        total,
    ).format(total=total, passed=passed, failed=failed)
    if broken:
        text += ngettext(
            "; {broken} spec with errors", "; {broken} specs with errors", broken
        ).format(broken=broken)
    return ngettext("{text} ({specs} spec)", "{text} ({specs} specs)", specs).format(
        text=text, specs=specs
    )
