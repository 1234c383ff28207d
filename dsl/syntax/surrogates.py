"""Lone surrogates in a spec: code points that are no character, refused by the parser.

A UTF-16 surrogate half (U+D800 to U+DFFF) on its own cannot be encoded as
UTF-8, so a spec holding one would crash `evaldsl fmt` and every report
writer far from its cause. It reaches a spec two ways: raw, in text handed to
`loads`, or spelt as an escape (`"\\ud800"`) in a quoted text. Both are E004 at
the place they stand. An escaped high half followed by an escaped low half is
one character (`"\\ud83d\\ude00"`), as in JSON, and is decoded as such by the
builder.
"""

from __future__ import annotations

import re

from evaldsl.diagnostics import Diagnostic, error
from evaldsl.i18n import _
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Source, Span

LONE = re.compile("[\ud800-\udfff]")
_ESCAPED = re.compile(r"\\u[dD][89a-fA-F]")
"""The only way a lone surrogate can enter a built text once raw ones are refused."""


def raw_surrogate(source: Source) -> Diagnostic | None:
    """The first lone surrogate written raw in the text, if any."""
    found = LONE.search(source.text)
    if found is None:
        return None
    return surrogate(found.group(), source.span(found.start(), found.end()))


def escaped_surrogates(module: n.Module, source: Source) -> list[Diagnostic]:
    """Every quoted text of `module` that an escape left holding a lone surrogate."""
    if _ESCAPED.search(source.text) is None:
        return []
    found = []
    for node in n.walk(module):
        for value in _texts(node):
            lone = LONE.search(value)
            if lone is not None:
                found.append(surrogate(lone.group(), node.span))  # type: ignore[attr-defined]
                break
    return found


def surrogate(char: str, span: Span) -> Diagnostic:
    """E004 for the lone surrogate `char` at `span`."""
    return error(
        "E004",
        _("a lone surrogate `{escape}` is not a character").format(escape=f"\\u{ord(char):04x}"),
        span,
        _("write the character itself; a high and a low half together (`\\ud83d\\ude00`) "
          "spell one character"),
    )


def _texts(node: object) -> list[str]:
    assert isinstance(node, n.Node)
    return [v for f in node.__struct_fields__ if isinstance(v := getattr(node, f), str)]
