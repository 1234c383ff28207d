"""One table from outcome to exit code, shared by every verb.

    0   ok
    1   a check or threshold failed (`check` found errors, an `example` or a
        `--fail-under` threshold failed, `fmt --check` would change a file)
    2   usage or spec errors: `UsageError`, `SpecError`, `ConfigError`, any other `EvaldslError`
    3   data errors: `CaseDataError`, and an `OSError` reading or writing a file
    4   no results: `run` evaluated cases and every one errored (the reports are
        written; the summary lists the reasons). Not 1, which says a verdict was
        reached and was bad, nor 2, kept for settings caught as wrong (a judge
        that refuses the key or cannot be reached stops the run with 2 first)
    70  an internal error (a bug): one line on stderr, the traceback saved to a file
    130 interrupted (Ctrl-C)

A verb returns 0 or 1, or one of these codes after reporting problems it has
already printed; everything else it raises, and `main` turns the exception
into its code and one message here, so no two verbs word the same failure
differently and no input ends in a traceback.
"""

from __future__ import annotations

import sys
import tempfile
import traceback
from collections.abc import Callable
from typing import NamedTuple

from evaldsl.errors import CaseDataError, ConfigError, EvaldslError, SpecError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_NO_RESULTS = 4
"""Every case errored: the run produced reports but no result."""
EXIT_INTERNAL = 70
"""`EX_SOFTWARE` of sysexits.h: distinct from every code a user's input can cause."""
EXIT_INTERRUPTED = 130


class UsageError(EvaldslError):
    """The command line asks for something impossible; the message says what."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


class Exit(NamedTuple):
    """How one kind of exception ends a verb."""

    kind: type[BaseException]
    code: int
    words: Callable[[BaseException, str], str | None]
    """The message for stderr, given the exception and the verb; None prints nothing."""


def _quiet(exc: BaseException, verb: str) -> str | None:
    return None


def _interrupted(exc: BaseException, verb: str) -> str:
    return "evaldsl: interrupted"


def _spec(exc: BaseException, verb: str) -> str:
    """Rendered diagnostics stand alone; a spec that cannot be read is one error line."""
    assert isinstance(exc, SpecError)
    return str(exc) if exc.diagnostics else _error(exc, verb)


def _error(exc: BaseException, verb: str) -> str:
    hint = getattr(exc, "hint", "")
    return f"evaldsl {verb}: error: {exc}" + (f"\nhint: {hint}" if hint else "")


def _os(exc: BaseException, verb: str) -> str:
    assert isinstance(exc, OSError)
    where = f"`{exc.filename}`: " if exc.filename else ""
    return f"evaldsl {verb}: error: {where}{exc.strerror or exc}"


EXITS: tuple[Exit, ...] = (
    Exit(BrokenPipeError, EXIT_OK, _quiet),
    Exit(KeyboardInterrupt, EXIT_INTERRUPTED, _interrupted),
    Exit(SpecError, EXIT_USAGE, _spec),
    Exit(CaseDataError, EXIT_DATA, _error),
    Exit(ConfigError, EXIT_USAGE, _error),
    Exit(EvaldslError, EXIT_USAGE, _error),
    Exit(OSError, EXIT_DATA, _os),
)
"""First match wins, so a subclass comes before its base."""


def exit_for(exc: BaseException, verb: str) -> int:
    """Print what `exc` means on stderr and return its exit code."""
    for row in EXITS:
        if isinstance(exc, row.kind):
            message = row.words(exc, verb)
            if message is not None:
                print(message, file=sys.stderr)
            return row.code
    print(internal_error(exc), file=sys.stderr)
    return EXIT_INTERNAL


def internal_error(exc: BaseException) -> str:
    """`evaldsl: internal error: TYPE: message`, naming the file that keeps the traceback."""
    summary = " ".join(str(exc).split())
    line = f"evaldsl: internal error: {type(exc).__name__}" + (f": {summary}" if summary else "")
    saved = _save_traceback(exc)
    return line + (f" (traceback in {saved}; please report it)" if saved else "")


def _save_traceback(exc: BaseException) -> str | None:
    """The path of a new file holding the traceback, or None when none can be written."""
    try:
        with tempfile.NamedTemporaryFile(
                "w", encoding="utf-8", prefix="evaldsl-traceback-", suffix=".txt",
                delete=False) as out:
            out.write("".join(traceback.format_exception(exc)))
            return out.name
    except OSError:
        return None
