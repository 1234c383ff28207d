"""Edits the service proposes besides renames: quick fixes and formatting.

A quick fix comes from a diagnostic's structured suggestion (`Diagnostic.suggestion`,
the name a `did you mean` hint proposes), never from the hint's words; formatting is
`evaldsl fmt`'s canonical layout, offered only when it keeps the syntax tree.
"""

from __future__ import annotations

from evaldsl.i18n import _
from evaldsl.service.documents import Snapshot
from evaldsl.service.items import Problem, QuickFix, TextEdit
from evaldsl.service.positions import Range
from evaldsl.syntax.formatter import format_module
from evaldsl.syntax.parser import parse


def problems(snapshot: Snapshot) -> list[Problem]:
    """The snapshot's diagnostics placed in the document."""
    return [Problem(snapshot.lines.span_range(d.span), d.severity.value, d.code, d.message,
                    d.hint, d.suggestion) for d in snapshot.diagnostics]


def quick_fixes(snapshot: Snapshot, where: Range) -> list[QuickFix]:
    """A replacement for each suggested name among the problems touching `where`."""
    return [QuickFix(_("replace with `{name}`").format(name=p.suggestion),
                     TextEdit(p.range, p.suggestion), p)
            for p in problems(snapshot) if p.suggestion and _touches(p.range, where)]


def _touches(a: Range, b: Range) -> bool:
    return a.start <= b.end and b.start <= a.end


def formatting(snapshot: Snapshot) -> list[TextEdit]:
    """One edit to the canonical layout; none when the text does not parse, is canonical
    already, or would change meaning (a formatter bug `evaldsl fmt` reports as such)."""
    module = snapshot.module
    if module is None or not snapshot.whole:
        return []
    text = format_module(module)
    if text == snapshot.text or parse(text, snapshot.uri).module != module:
        return []
    whole = Range(snapshot.lines.position(0, 0), snapshot.lines.end())
    return [TextEdit(whole, text)]
