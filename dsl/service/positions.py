"""Positions as the Language Server Protocol counts them, and the spans of the parser.

LSP positions are 0-based lines and, by default, UTF-16 code units within the line (a
client may agree on UTF-8 bytes or UTF-32 characters instead); the parser's spans are
1-based lines and columns counting characters (code points). UTF-16 agrees with the
parser for Chinese in the Basic Multilingual Plane and differs for anything beyond it (an
emoji, a rare 𠮷); UTF-8 differs for every Chinese character. So every conversion goes
through `LineIndex`, and nothing past this module sees a code-unit count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from evaldsl.syntax.source import Span

_BREAK = re.compile(r"\r\n|\r|\n")
"""The line breaks LSP counts, the same three the parser reads as one (`one_newline`)."""


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """A place between two characters: 0-based line, UTF-16 code units into the line."""

    line: int
    character: int


@dataclass(frozen=True, slots=True)
class Range:
    """From `start` to `end` (exclusive)."""

    start: Position
    end: Position

    def contains(self, position: Position) -> bool:
        """Whether `position` is inside or at either end (a cursor just after a word)."""
        return self.start <= position <= self.end


ENCODINGS = ("utf-16", "utf-8", "utf-32")
"""The position encodings LSP names, the default first."""


def unit_width(ch: str, encoding: str = "utf-16") -> int:
    """The code units one character takes in `encoding`."""
    if encoding == "utf-8":
        return len(ch.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(ch) > 0xFFFF else 1


def utf16_length(text: str, encoding: str = "utf-16") -> int:
    """Code units of `text`, UTF-16 unless told: two for a character beyond U+FFFF.

    >>> utf16_length("意图识别"), utf16_length("😀"), utf16_length("意图", "utf-8")
    (4, 2, 6)
    """
    return sum(unit_width(ch, encoding) for ch in text)


def utf16_to_column(line: str, units: int, encoding: str = "utf-16") -> int:
    """The 0-based character index in `line` at `units` code units (clamped).

    >>> utf16_to_column("😀ab", 3)
    2
    """
    count = 0
    for index, ch in enumerate(line):
        if count >= units:
            return index
        count += unit_width(ch, encoding)
    return len(line)


class LineIndex:
    """A document's lines, for conversions between LSP positions, offsets and spans."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.text = text
        self.encoding = encoding

    @cached_property
    def starts(self) -> list[int]:
        """The offset each line starts at."""
        return [0, *(m.end() for m in _BREAK.finditer(self.text))]

    @cached_property
    def lines(self) -> list[str]:
        return _BREAK.split(self.text)

    def line(self, number: int) -> str:
        """The text of 0-based line `number` without its break ('' past the end)."""
        return self.lines[number] if 0 <= number < len(self.lines) else ""

    def column(self, position: Position) -> int:
        """The 0-based character index of `position` within its line."""
        return utf16_to_column(self.line(position.line), position.character, self.encoding)

    def offset(self, position: Position) -> int:
        """The character offset of `position` in the whole text (clamped to the text)."""
        if position.line >= len(self.starts):
            return len(self.text)
        return self.starts[max(position.line, 0)] + self.column(position)

    def position(self, line: int, column: int) -> Position:
        """The LSP position of 0-based `line` and character `column`."""
        return Position(line, utf16_length(self.line(line)[:column], self.encoding))

    def span_range(self, span: Span) -> Range:
        """The range a parser span covers."""
        return Range(self.position(span.line - 1, span.col - 1),
                     self.position(span.end_line - 1, span.end_col - 1))

    def end(self) -> Position:
        """The position after the last character."""
        last = len(self.lines) - 1
        return Position(last, utf16_length(self.lines[last], self.encoding))

    def at_span(self, position: Position) -> tuple[int, int]:
        """The parser's 1-based (line, column) of `position`."""
        return position.line + 1, self.column(position) + 1
