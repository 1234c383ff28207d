"""Matching a regular expression on data under one shared time limit.

Patterns can come from case data and texts from agents: a pattern that
backtracks catastrophically (`^(a+)+$` on thirty `a` and a `!`) would hold a
run for minutes. Every primitive that matches a pattern on data searches
through here, so each gives up after the same `PATTERN_TIMEOUT_S` and the
check becomes an error value (the text could not be judged), never a pass or
a fail.
"""

from __future__ import annotations

import regex

from evaldsl.i18n import _
from evaldsl.primitives.pattern_bound import unclocked_length

PATTERN_TIMEOUT_S = 1.0
"""Longest time one search of one pattern on one text may take, in seconds."""


def timed_search(
    pattern: str | regex.Pattern[str], text: str, timeout: float = PATTERN_TIMEOUT_S
) -> regex.Match[str] | None:
    """The first match of `pattern` in `text`; raises `TimeoutError` past `timeout`."""
    if isinstance(pattern, str):
        return regex.search(pattern, text, timeout=timeout)
    if len(text) <= unclocked_length(pattern.pattern, pattern.flags, timeout):
        return pattern.search(text)
    return pattern.search(text, timeout=timeout)


def timed_finditer(
    pattern: regex.Pattern[str], text: str, timeout: float = PATTERN_TIMEOUT_S
) -> list[regex.Match[str]]:
    """Every match of `pattern` in `text`; raises `TimeoutError` past `timeout`. The
    searches of one text start at its `n + 1` positions at most, all of them together,
    so one search's bound holds for the whole walk."""
    if len(text) <= unclocked_length(pattern.pattern, pattern.flags, timeout):
        return list(pattern.finditer(text))
    return list(pattern.finditer(text, timeout=timeout))


def timeout_reason(timeout: float = PATTERN_TIMEOUT_S) -> str:
    """The reason of the error value a timed-out search gives."""
    return _("the pattern took longer than {ms} ms").format(ms=round(timeout * 1000))
