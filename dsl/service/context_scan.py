"""Where the cursor stands, read from the text before it: completion's view of a spec
mid-edit, which seldom parses.

The scan skips strings and comments and keeps the brackets still open, so it can tell a
parameter name inside `check x = judge(` from its value after `criteria:`, and both from
an expression or the start of a statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD_END = re.compile(r"\w*\Z")
_CALL_HEAD = re.compile(r"check\s+\w+\s*=\s*(\w+)\s*\Z")
_PRIMITIVE_SLOT = re.compile(r"(?:^|\n)[ \t]*check\s+\w+\s*=\s*\Z")
_ARG_VALUE = re.compile(r"(\w+)\s*:\s*\Z")
_ARG_NAME = re.compile(r"\s*(\w+)\s*:")
_ATTRIBUTE = re.compile(r"(\w+)\.\Z")
_LINE_START = re.compile(r"(?:^|\n)[ \t]*\Z")
_CLOSE = {")": "(", "]": "[", "}": "{"}


@dataclass(frozen=True, slots=True)
class Place:
    """What may be written at the cursor."""

    kind: str
    """`attribute`, `primitive`, `parameter`, `argument`, `statement` or `expression`."""
    prefix: str
    """The part of a word typed already, before the cursor."""
    subject: str = ""
    """The object before the dot (`attribute`), the argument's name (`argument`)."""
    primitive: str = ""
    """The primitive whose call the cursor is in, if any."""
    given: tuple[str, ...] = ()
    """The arguments written before the cursor in that call."""


def place(before: str) -> Place:
    """Where the cursor is, from the text before it."""
    prefix = _WORD_END.search(before)
    word = prefix.group(0) if prefix else ""
    head = before[: len(before) - len(word)]
    dotted = _ATTRIBUTE.search(head)
    if dotted:
        return Place("attribute", word, dotted.group(1))
    if _PRIMITIVE_SLOT.search(head):
        return Place("primitive", word)
    opened = open_brackets(head)
    if not opened:
        return Place("statement" if _LINE_START.search(head) else "expression", word)
    return _inside(head, opened, word)


def _inside(head: str, opened: list[int], word: str) -> Place:
    """In brackets: a primitive call's parameter or argument, or an expression."""
    innermost = opened[-1]
    call = _CALL_HEAD.search(head[:innermost]) if head[innermost] == "(" else None
    if call is None:
        return Place("expression", word, primitive=_enclosing_primitive(head, opened))
    primitive = call.group(1)
    *earlier, current = _top_level_parts(head[innermost + 1:])
    given = tuple(m.group(1) for m in map(_ARG_NAME.match, earlier) if m)
    if not current.strip():
        return Place("parameter", word, primitive=primitive, given=given)
    value = _ARG_VALUE.search(current)
    if value and current[: value.start()].strip() == "":
        return Place("argument", word, value.group(1), primitive, given)
    return Place("expression", word, primitive=primitive, given=given)


def _enclosing_primitive(head: str, opened: list[int]) -> str:
    for index in reversed(opened):
        call = _CALL_HEAD.search(head[:index]) if head[index] == "(" else None
        if call:
            return call.group(1)
    return ""


def _top_level_parts(text: str) -> list[str]:
    """`text` split at the commas outside nested brackets and strings."""
    depth, cuts = 0, [-1]
    for index, ch in _code(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            cuts.append(index)
    ends = [*cuts[1:], len(text)]
    return [text[start + 1 : end] for start, end in zip(cuts, ends, strict=True)]


def open_brackets(text: str) -> list[int]:
    """Offsets of the brackets `text` leaves open, outermost first."""
    stack: list[int] = []
    for index, ch in _code(text):
        if ch in "([{":
            stack.append(index)
        elif ch in _CLOSE and stack and text[stack[-1]] == _CLOSE[ch]:
            stack.pop()
    return stack


def _code(text: str) -> list[tuple[int, str]]:
    """The characters of `text` outside strings and comments, with their offsets."""
    out: list[tuple[int, str]] = []
    quote = ""
    comment = False
    escaped = False
    for index, ch in enumerate(text):
        if comment:
            comment = ch != "\n"
        elif quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote or ch == "\n":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            comment = True
        else:
            out.append((index, ch))
    return out
