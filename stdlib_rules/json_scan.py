"""JSON values embedded in ordinary text, found with the standard library's decoder.

Replies wrap JSON in prose: a sentence, then a Markdown fence, or an object
in the middle of a sentence. Rather than guess where JSON starts with a
regular expression, every `{` (and `[`, unless arrays are not wanted) is
tried as the start of a value with `json.JSONDecoder.raw_decode`, which
stops at the value's end; a value found is skipped whole, so what it nests
is not found again. Only objects and arrays count: a number or a quoted word
in prose is no evidence of JSON.

The scan is bounded so that a long or hostile reply costs little: it reads
at most `MAX_CHARS` characters and tries at most `MAX_OPENINGS` openings
that do not decode (each failed try may read to the end of the text). When a
bound stops it, the last item yielded is a `Bound` naming which, and the
caller decides whether what was found already settles its verdict.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, NamedTuple

MAX_CHARS = 100_000
"""Characters scanned, as promptfoo's `contains-json` bounds one JSON value."""
MAX_OPENINGS = 1000
"""Openings (`{` or `[`) that fail to decode before the scan gives up."""

_DECODER = json.JSONDecoder()


class Found(NamedTuple):
    """One JSON value and where it stands in the text (end exclusive)."""

    start: int
    end: int
    data: Any


class Bound(NamedTuple):
    """The scan stopped at a limit: `chars` or `openings`."""

    limit: str


class Scan(NamedTuple):
    values: list[Found]
    complete: bool
    """False when a bound stopped the scan before the end of the text."""


def iter_json(text: str, arrays: bool = True) -> Iterator[Found | Bound]:
    """Each JSON object (and array) in `text`, left to right, then a `Bound` if one stopped it.

    >>> [f.data for f in iter_json('say {"a": 1} or [2]') if isinstance(f, Found)]
    [{'a': 1}, [2]]
    """
    window = text[:MAX_CHARS]
    openers = "{[" if arrays else "{"
    failures = 0
    at = _next_opening(window, 0, openers)
    while at >= 0:
        try:
            data, end = _DECODER.raw_decode(window, at)
        except (ValueError, RecursionError):
            failures += 1
            if failures >= MAX_OPENINGS:
                yield Bound("openings")
                return
            at = _next_opening(window, at + 1, openers)
            continue
        yield Found(at, end, data)
        at = _next_opening(window, end, openers)
    if len(text) > MAX_CHARS:
        yield Bound("chars")


def scan_json(text: str, arrays: bool = True) -> Scan:
    """Every value `iter_json` finds, and whether the whole text was read."""
    values: list[Found] = []
    complete = True
    for item in iter_json(text, arrays):
        if isinstance(item, Bound):
            complete = False
        else:
            values.append(item)
    return Scan(values, complete)


def _next_opening(text: str, start: int, openers: str) -> int:
    """The index of the next opener at or after `start`, or -1."""
    first = -1
    for opener in openers:
        at = text.find(opener, start)
        if at >= 0 and (first < 0 or at < first):
            first = at
    return first
