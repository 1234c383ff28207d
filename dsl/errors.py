"""Every exception evaldsl declares, here or in the one `errors` module of a package named below.

Problems *in a spec* are diagnostics and problems *during evaluation* are
error values; exceptions are for the caller: misuse of the API, unreadable
input, or a spec that does not compile.

    EvaldslError
     +-- SpecError           a spec has errors; `.diagnostics` lists them
     +-- CaseDataError       a data row is malformed; names file, line, field (also a ValueError)
     +-- ConfigError         settings (model endpoints, evaldsl.toml) are unusable (a ValueError)
     |    +-- ForeignJournalError  a watch journal another spec wrote
     +-- OptionsError        options of a run or a gate that are malformed or do not go together
     |    +-- UsageError     a command line that cannot be carried out (exit 2)
     +-- UnknownNameError    a name asked of a report or spec it does not have (also a KeyError)
     +-- ResumeError         a journal that cannot be resumed: another spec wrote it
     +-- JournalExistsError  a run that would truncate an earlier run's journal
     +-- JournalBusyError    a journal another process is writing
     +-- JournalVersionError a journal in a form this version does not read
     +-- OtherSpecError      a shard's journal written by another spec (merge)
     +-- WorkerError         a worker process that raised or died
     +-- RenameError         a rename the language service refuses (also a ValueError)
     +-- SinkError           an alert that could not be delivered
     +-- RequestError        what a call asks of its inputs they cannot give (results of another
     |                       spec, an outcome block no case has); the hint says what to do
     +-- evaldsl.model.errors.ModelError   why a model call failed, inside the model layer

Beside them, `Interrupted` (a KeyboardInterrupt): Ctrl-C, with advice on how to go on.

Signals a stage raises and catches inside itself, never seen by a caller:

    PathMissing (ValueError)       a dotted path that is not in an agent's JSON answer
    SimulatorFailed (Exception)    the simulated user, not the agent, ended a conversation
    FormError (ValueError)         a spec without a score of the form `calibrate --fit` fits
    SpanError (ValueError)         a trace span whose attributes are malformed
    FormatterBug (AssertionError)  a canonical text that would parse to another syntax tree
    FramingError (Exception)       the editor's bytes no longer say where messages begin and end
    ExampleFailed (Exception)      an `example` block that failed, as a pytest item
    ExampleProblem (ValueError)    an `example` block that cannot be run
    Fallback (Exception)           a text the parser's fast path leaves to lark

The packages with an `errors` module of their own, the only other place an exception class is
declared (`tests/project/test_errors.py`):

- `evaldsl.model.errors`: why a model call failed (transient, permanent, misconfigured), and the
  answers a model layer cannot use.

A private class (`_Name`) a module raises and catches within itself is a control-flow signal,
not an exception of the library, and stays where it is used.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from evaldsl.diagnostics import Diagnostic
from evaldsl.i18n import _

if TYPE_CHECKING:
    from evaldsl.agents.user_brief import Failure


class EvaldslError(Exception):
    """Base class of every exception evaldsl raises on purpose."""

    hint: str = ""
    """Advice on what to do about it, shown after the message (as a diagnostic's hint)."""


class SpecError(EvaldslError):
    """A spec did not pass the checker."""

    def __init__(self, diagnostics: Sequence[Diagnostic], rendered: str = "") -> None:
        self.diagnostics = list(diagnostics)
        self.rendered = rendered
        first = self.diagnostics[0] if self.diagnostics else None
        summary = f"{first.span}: {first.code}: {first.message}" if first else "spec error"
        super().__init__(rendered or summary)


class CaseDataError(EvaldslError, ValueError):
    """A case row could not be read or does not fit the spec's `case` block."""

    def __init__(self, file: str, line: int, reason: str, field: str | None = None,
                 hint: str = "") -> None:
        self.file = file
        self.line = line
        self.field = field
        self.reason = reason
        self.hint = hint
        where = f" field `{field}`:" if field else ""
        super().__init__(f"{file}:{line}:{where} {reason}")


class ConfigError(EvaldslError, ValueError):
    """Model or run settings are missing or invalid."""


class OptionsError(EvaldslError, ValueError):
    """Options given to a run or a gate are malformed or do not go together (`workers` with
    a `deadline`, a threshold naming no metric); `.hint` says what to do instead."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


class UnknownNameError(EvaldslError, KeyError):
    """A lookup by a name the object does not hold; a `KeyError` too, so `except KeyError`
    code keeps working, but worded as a sentence with the known names and a hint."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        return str(self.args[0])


class ResumeError(EvaldslError):
    """The journal cannot be resumed: another spec wrote it."""


class JournalExistsError(EvaldslError):
    """A run without `resume` or `overwrite` would truncate the results of an earlier one."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.hint = _("add --resume to continue it, or --overwrite to start over")


class RequestError(EvaldslError):
    """A call asks of its inputs what they cannot give: results another spec wrote, an
    outcome block none of their cases has, labels that name no case. The message says
    why, the hint what to do."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


class PathMissing(ValueError):
    """The answer has nothing at the path: a malformed answer, naming where."""


class SimulatorFailed(Exception):
    """The simulator, not the agent, ended the conversation badly: a `Failure` to count."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.reason)
        self.failure = failure


class FormError(ValueError):
    """The spec has no score of the fittable form; the message names where and why."""


class SpanError(ValueError):
    """Raised by a convention's reader with the reason a span's attributes are malformed."""


class UsageError(OptionsError):
    """The command line asks for something impossible; the message says what."""


class FormatterBug(AssertionError):
    """The canonical text would parse to another syntax tree: a bug, never the spec's fault."""


class FramingError(Exception):
    """The editor's bytes no longer say where messages begin and end."""


class JournalBusyError(EvaldslError):
    """Another process holds the journal's lock: it is writing its results there."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.hint = _("wait for that run to end, or give this one another --results")


class JournalVersionError(EvaldslError):
    """The journal was written by another version of evaldsl, in a form this one does not read."""

    def __init__(self, path: Path, version: int, reads: int) -> None:
        super().__init__(_("`{path}` is a version {found} journal; this evaldsl reads version "
                           "{version}").format(path=path, found=version, version=reads))
        self.hint = _("run the cases again with --overwrite (or without --results) to make a "
                      "new journal")


class OtherSpecError(EvaldslError):
    """A journal to merge was written by another spec than the one given."""


class WorkerError(EvaldslError):
    """A worker process died, or raised an exception that could not be sent back as it was."""


class ExampleFailed(Exception):
    """An example whose `expect` lines did not all hold."""


class ExampleProblem(ValueError):
    """An example that cannot run as written (reported as a failed example, not a crash)."""


class RenameError(EvaldslError, ValueError):
    """A rename the service refuses; the message says why, for the editor to show."""


class Fallback(Exception):
    """The fast path cannot decide this input; use lark.

    `statement_start` is the offset where the statement it stopped in begins: every
    statement before it parsed, so lark can word a syntax error by reading from there.
    """

    def __init__(self, statement_start: int = 0) -> None:
        super().__init__(statement_start)
        self.statement_start = statement_start


class ForeignJournalError(ConfigError):
    """The state folder's journal was written by a watch of another spec (or none)."""

    def __init__(self, path: Path) -> None:
        super().__init__(_("`{path}` is not the journal of this spec: sessions judged by one "
                           "spec cannot be counted under another").format(path=path))
        self.hint = _("give this spec its own --state folder")


class SinkError(EvaldslError):
    """An alert could not be delivered to one sink."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, with advice on how to go on (a run with a journal can be resumed)."""

    def __init__(self, hint: str = "") -> None:
        super().__init__()
        self.hint = hint
