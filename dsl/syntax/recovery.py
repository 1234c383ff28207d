"""The statements that parse, when the whole text does not: what an editor reads mid-edit.

While an author types, the spec rarely parses: one statement is half written, the
rest is whole. A language server that answers only for text that parses goes blind
on every keystroke. The recovery here is the statement's: every statement starts
with a keyword, so the statement the parser stopped in ends where the next one
begins, a line whose first word is a statement keyword, indented no deeper. That
statement is blanked (every character but line breaks made a space, so every
other span stays where it is) and the text parsed again, until it parses or a
bound is reached. Only the fast path runs, never lark: this is for each
keystroke, the syntax error itself is worded by `parser.parse`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from evaldsl.syntax import nodes as n
from evaldsl.syntax.parser import fast_module, one_newline
from evaldsl.syntax.source import Source

MAX_BLANKED = 64
"""At most this many broken statements are set aside; a text with more gets no module."""

STATEMENT_KEYWORDS = ("spec", "case", "table", "let", "check", "outcome", "metric", "review",
                      "example", "alert")
_STATEMENT = re.compile(r"^([ \t]*)(?:" + "|".join(STATEMENT_KEYWORDS) + r")(?!\w)", re.M)
_NOT_A_BREAK = re.compile(r"[^\n]")


class Recovered(NamedTuple):
    """The module of the statements that parse, and the text it was parsed from."""

    module: n.Module
    text: str
    """The text with each broken statement blanked; the same length and lines."""
    blanked: tuple[tuple[int, int], ...]
    """(start, end) offsets of the statements set aside, in the order they were."""


def recover(text: str, name: str = "<spec>") -> Recovered | None:
    """The statements of `text` that parse, at their own positions; None when even the
    text without its broken statements does not parse by the fast path."""
    text = one_newline(text)
    blanked: list[tuple[int, int]] = []
    for _attempt in range(MAX_BLANKED + 1):
        found = fast_module(text, Source(text, name))
        if isinstance(found, n.Module):
            return Recovered(found, text, tuple(sorted(blanked)))
        end = statement_end(text, found)
        if end <= found or not text[found:end].strip():
            return None
        blanked.append((found, end))
        text = text[:found] + _NOT_A_BREAK.sub(" ", text[found:end]) + text[end:]
    return None


def statement_end(text: str, start: int) -> int:
    """Where the statement starting at `start` ends: the start of the next line, after
    its first, whose first word is a statement keyword and that is indented no deeper
    than the statement's own line; the end of the text when there is none.

    >>> statement_end("check a = judge(\\n  x\\nlet b = 1\\n", 0)
    21
    >>> statement_end("example \\"e\\" {\\n  case {}\\n}\\nlet b = 1\\n", 0)
    26
    """
    line_start = text.rfind("\n", 0, start) + 1
    indent = len(text[line_start:start]) - len(text[line_start:start].lstrip(" \t"))
    first_break = text.find("\n", start)
    if first_break < 0:
        return len(text)
    for match in _STATEMENT.finditer(text, first_break + 1):
        if len(match.group(1)) <= indent:
            return match.start()
    return len(text)
