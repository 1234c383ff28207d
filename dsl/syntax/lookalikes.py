"""What an input method types where the language wants ASCII, found in one pass.

A spec written with a Chinese IME often has several full-width characters
(`（`, `，`, `：`, curly quotes), sometimes the Chinese words `且`, `或`,
`非` where `and`, `or`, `not` belong, and the signs `≥`, `≤`, `≠` for
`>=`, `<=`, `!=`. The parser stops at the first syntax error, so fixing them
one run at a time is tedious: when a spec does not parse, this scan reports
every one of them at once, each with the ASCII character or keyword to
write. Texts and comments are content and skipped; a curly-quoted text is
skipped too, after its quotes are reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from evaldsl.diagnostics import Diagnostic, error
from evaldsl.i18n import _
from evaldsl.syntax.messages import FULLWIDTH_HINTS
from evaldsl.syntax.source import Source

CHARACTER_HINTS = {ch: hint for ch, hint in FULLWIDTH_HINTS.items() if hint and not ch.isascii()}
"""The look-alike characters: the full-width and curly ones the parser's hints name."""

WORD_OPERATORS = {"且": "and", "或": "or", "非": "not"}
"""Chinese words an author may write for the logical operators."""

SIGN_OPERATORS = {"≥": ">=", "≤": "<=", "≠": "!=", "＝": "==", "＞": ">", "＜": "<"}
"""Mathematical signs (and full-width ones) an input method types for the comparisons."""

_OPEN_CURLY, _CLOSE_CURLY = "“", "”"
_WORD = re.compile(r"(?<!\w)(且|或|非)(?!\w)")
_DECLARES = re.compile(r"(?:check|let|metric|table|outcome|case|spec|example|review)\s*$")


def lookalikes(source: Source) -> list[Diagnostic]:
    """Every look-alike character and operator word outside texts and comments."""
    found: list[Diagnostic] = []
    for start, end in _code_regions(source.text):
        found.extend(_characters(source, start, end))
        found.extend(_words(source, start, end))
    return sorted(found, key=lambda d: (d.span.line, d.span.col))


def _characters(source: Source, start: int, end: int) -> Iterator[Diagnostic]:
    text = source.text
    for offset in range(start, end):
        ch = text[offset]
        hint = CHARACTER_HINTS.get(ch)
        if hint:
            yield error("E010", _("unexpected character `{ch}`").format(ch=ch),
                        source.span(offset, offset + 1), _(hint))
        elif ch in SIGN_OPERATORS:
            yield error("E010", _("`{word}` is not an operator").format(word=ch),
                        source.span(offset, offset + 1),
                        _("write `{operator}`").format(operator=SIGN_OPERATORS[ch]))


def _words(source: Source, start: int, end: int) -> Iterator[Diagnostic]:
    """`且` standing alone where an operator could be: not declared, assigned or a key."""
    text = source.text
    for match in _WORD.finditer(text, start, end):
        before = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        after = text[match.end() : end].lstrip(" \t")
        if _DECLARES.search(before) or before.rstrip().endswith(".") or after[:1] in ("=", ":"):
            continue
        word = match.group()
        yield error("E011", _("`{word}` is not an operator").format(word=word),
                    source.span(*match.span()),
                    _("write `{operator}`").format(operator=WORD_OPERATORS[word]))


def _code_regions(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) offsets of the text outside texts and comments, curly quotes kept."""
    start, i = 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "#" or ch in "\"'" or ch == _OPEN_CURLY:
            yield start, i + (1 if ch == _OPEN_CURLY else 0)
            i = _skip(text, i)
            start = i - 1 if ch == _OPEN_CURLY and text[i - 1 : i] == _CLOSE_CURLY else i
            continue
        i += 1
    yield start, len(text)


def _skip(text: str, i: int) -> int:
    """The offset after the comment or text starting at `i` (texts end at the line's end)."""
    ch, line_end = text[i], text.find("\n", i)
    line_end = len(text) if line_end < 0 else line_end
    if ch == "#":
        return line_end
    close = _CLOSE_CURLY if ch == _OPEN_CURLY else ch
    j = i + 1
    while j < line_end:
        if text[j] == "\\" and close != _CLOSE_CURLY:
            j += 2
            continue
        if text[j] == close:
            return j + 1
        j += 1
    return line_end
