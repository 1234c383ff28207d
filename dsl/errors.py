"""Exceptions raised to callers of the library.

Problems *in a spec* are diagnostics and problems *during evaluation* are
error values; exceptions are for the caller: misuse of the API, unreadable
input, or a spec that does not compile.

    EvaldslError
     +-- SpecError        a spec has errors; `.diagnostics` lists them
     +-- CaseDataError    a data row is malformed; names file, line, field
     +-- ConfigError      settings (model endpoints, evaldsl.toml) are unusable
     +-- OptionsError     options of a run or a gate that are malformed or do not go together
     +-- UnknownNameError a name asked of a report or spec it does not have (also a KeyError)
     +-- RequestError     what a call asks of its inputs they cannot give (results of another
                          spec, an outcome block no case has); the hint says what to do
"""

from __future__ import annotations

from collections.abc import Sequence

from evaldsl.diagnostics import Diagnostic
from evaldsl.i18n import _


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
