"""One table from outcome to exit code, shared by every verb.

    0   ok
    1   a failed verdict, and only that: a `--fail-under` threshold missed, an
        `example` failed, `fmt --check` would change a file, `check --strict`
        found warnings
    2   usage or spec errors, from every verb (`check` finding errors included):
        `UsageError`, `SpecError`, `ConfigError`, any other `EvaldslError`
    3   data errors: `CaseDataError`, and an `OSError` reading or writing a file
    4   no results: `run` evaluated cases and every one errored (the reports are
        written; the summary lists the reasons). Not 1, which says a verdict was
        reached and was bad, nor 2, kept for settings caught as wrong (a judge
        that refuses the key or cannot be reached stops the run with 2 first)
    5   cut short: `run --deadline` passed before every case was judged (the
        reports and the journal hold what finished; `--resume` goes on). A run
        whose every case errored exits 4 even then
    70  an internal error (a bug): one line on stderr, the traceback saved to a file
    130 interrupted (Ctrl-C)
    141 the reader of stdout went away (`evaldsl ... | head`): nothing on stderr,
        the code a shell gives a command that SIGPIPE ended (128 + 13)

A verb returns 0 or 1, or one of these codes after reporting problems it has
already printed; everything else it raises, and `main` turns the exception
into its code and one message here, so no two verbs word the same failure
differently and no input ends in a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import NamedTuple

from evaldsl.errors import CaseDataError, ConfigError, EvaldslError, SpecError
from evaldsl.errors import Interrupted as Interrupted  # the verbs import them from here
from evaldsl.errors import UsageError as UsageError
from evaldsl.i18n import _

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_NO_RESULTS = 4
"""Every case errored: the run produced reports but no result."""
EXIT_DEADLINE = 5
"""The deadline passed before every case was judged: the reports hold what finished."""
EXIT_INTERNAL = 70
"""`EX_SOFTWARE` of sysexits.h: distinct from every code a user's input can cause."""
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE: what `cmd | head` leaves in `$PIPESTATUS` for a C tool."""


class Exit(NamedTuple):
    """How one kind of exception ends a verb."""

    kind: type[BaseException]
    code: int
    words: Callable[[BaseException, str], str | None]
    """The message for stderr, given the exception and the verb; None prints nothing."""


def _broken_pipe(exc: BaseException, verb: str) -> str | None:
    silence_stdout()
    return None


def silence_stdout() -> None:
    """Point stdout at /dev/null once its reader is gone, so the flush at exit has nowhere
    to fail and Python prints no "Exception ignored" (the Python docs' note on SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # stdout is not a file (a test's capture): nothing will flush to a pipe


def _interrupted(exc: BaseException, verb: str) -> str:
    hint = getattr(exc, "hint", "")
    message = _("evaldsl: interrupted")
    return message + ("\n" + _("hint: {hint}").format(hint=hint) if hint else "")


def _spec(exc: BaseException, verb: str) -> str:
    """Rendered diagnostics stand alone; a spec that cannot be read is one error line."""
    assert isinstance(exc, SpecError)
    return str(exc) if exc.diagnostics else _error(exc, verb)


def _error(exc: BaseException, verb: str) -> str:
    hint = getattr(exc, "hint", "")
    return _("evaldsl {verb}: error: {exc}").format(verb=verb, exc=exc) + (
        "\n" + _("hint: {hint}").format(hint=hint) if hint else ""
    )


def _os(exc: BaseException, verb: str) -> str:
    assert isinstance(exc, OSError)
    where = f"`{exc.filename}`: " if exc.filename else ""
    return _("evaldsl {verb}: error: {where}{value}").format(
        verb=verb, where=where, value=exc.strerror or exc
    )


EXITS: tuple[Exit, ...] = (
    Exit(BrokenPipeError, EXIT_BROKEN_PIPE, _broken_pipe),
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
    line = _("evaldsl: internal error: {kind}").format(kind=type(exc).__name__) + (
        f": {summary}" if summary else ""
    )
    saved = _save_traceback(exc)
    return line + (
        _(" (traceback in {saved}; please report it)").format(saved=saved) if saved else ""
    )


def _save_traceback(exc: BaseException) -> str | None:
    """The path of a new file holding the traceback, or None when none can be written."""
    import tempfile  # only an internal error writes one
    import traceback

    try:
        with tempfile.NamedTemporaryFile(
                "w", encoding="utf-8", prefix="evaldsl-traceback-", suffix=".txt",
                delete=False) as out:
            out.write("".join(traceback.format_exception(exc)))
            return out.name
    except OSError:
        return None
