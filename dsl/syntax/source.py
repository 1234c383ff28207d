"""Source text and spans: where every node and every diagnostic points.

A `Span` is 1-based in lines and columns (columns count characters, not bytes,
so a Chinese identifier is one column per character) and carries the file
name, so a diagnostic can be rendered without any other context.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    """A region of a source file; `end_col` is exclusive."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    @classmethod
    def point(cls, file: str, line: int, col: int) -> Span:
        return cls(file, line, col, line, col + 1)

    def to(self, other: Span) -> Span:
        """The span from the start of `self` to the end of `other`."""
        return Span(self.file, self.line, self.col, other.end_line, other.end_col)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


_NEWLINE = re.compile("\n")


@dataclass(frozen=True)
class Source:
    """A spec's text with the name it is reported under."""

    text: str
    name: str = "<spec>"
    _line_starts: list[int] = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        starts = [0]
        starts.extend(m.end() for m in _NEWLINE.finditer(self.text))
        self._line_starts.extend(starts)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line without its newline ('' when out of range)."""
        if not 1 <= line <= len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start : end if end >= 0 else len(self.text)].rstrip("\r")

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based (line, column) of a character offset."""
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def offset(self, line: int, col: int) -> int:
        """The character offset of 1-based `line` and `col`: the inverse of `position`."""
        return self._line_starts[line - 1] + col - 1

    def span(self, start: int, end: int) -> Span:
        """The span of the character offsets `start` to `end` (exclusive)."""
        line, col = self.position(start)
        end_line, end_col = self.position(max(end, start + 1))
        return Span(self.name, line, col, end_line, end_col)

    @property
    def line_count(self) -> int:
        return len(self._line_starts)
