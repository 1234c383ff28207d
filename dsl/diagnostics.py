"""Diagnostics: problems in a spec as values, rendered like a compiler's.

Every problem the parser or the checker finds is a `Diagnostic` with a stable
code (`E###` errors, `W###` warnings; the catalogue is `CODES`), a primary
span, a message in plain words and a hint. Rendering follows rustc: the
location, the source line, a caret underline, then `hint:`. The message and
the hint are in the language they were made in (`evaldsl.i18n`); the head
`error[E101]` stays as it is in every language, for the tools that parse it.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from evaldsl.i18n import _
from evaldsl.syntax.source import Source, Span


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in a spec."""

    code: str
    """Stable code such as `E101`; the letter gives the default severity."""
    message: str
    """What is wrong, lowercase, user text in backticks, no final period."""
    span: Span
    hint: str = ""
    """What to do about it; may be empty."""
    severity: Severity = Severity.ERROR
    suggestion: str = ""
    """The name a `did you mean` hint proposes in place of the text at `span`, exactly as
    it should be written; empty without one. Editors offer it as a quick fix, so it is set
    only where `span` covers the misspelt word and nothing else."""

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def as_error(self) -> Diagnostic:
        """This diagnostic promoted to an error (`--strict`)."""
        return Diagnostic(self.code, self.message, self.span, self.hint, Severity.ERROR,
                          self.suggestion)

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.span.file,
            "line": self.span.line,
            "col": self.span.col,
            "end_line": self.span.end_line,
            "end_col": self.span.end_col,
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
        }


def error(code: str, message: str, span: Span, hint: str = "", suggestion: str = "") -> Diagnostic:
    return Diagnostic(code, message, span, hint, Severity.ERROR, suggestion)


def warning(code: str, message: str, span: Span, hint: str = "",
            suggestion: str = "") -> Diagnostic:
    return Diagnostic(code, message, span, hint, Severity.WARNING, suggestion)


def sort_key(diagnostic: Diagnostic) -> tuple[str, int, int, str]:
    span = diagnostic.span
    return (span.file, span.line, span.col, diagnostic.code)


def render(diagnostic: Diagnostic, source: Source | None, color: bool = False) -> str:
    """Render one diagnostic as text: location line, source line, carets, hint."""
    span = diagnostic.span
    sev = diagnostic.severity.value
    head = f"{span.file}:{span.line}:{span.col}: {sev}[{diagnostic.code}]: {diagnostic.message}"
    lines = [_paint(head, _SEVERITY_COLOR[sev], color)]
    text = source.line_text(span.line) if source is not None else ""
    if text:
        text, shift = _window(text, span.col)
        span = Span(span.file, span.line, span.col - shift, span.end_line, span.end_col - shift)
        gutter = str(span.line)
        lines.append(f"{gutter} | {text}")
        width = _caret_width(span, text)
        pad = _display_width(text[: span.col - 1])
        carets = _paint("^" * width, _SEVERITY_COLOR[sev], color)
        lines.append(f"{' ' * len(gutter)} | {' ' * pad}{carets}")
    if diagnostic.hint:
        lines.append(_("hint: {hint}").format(hint=diagnostic.hint))
    return _UNPRINTABLE.sub("\ufffd", "\n".join(lines))


_UNPRINTABLE = re.compile("[\ud800-\udfff]")
"""Lone surrogates (spec text given as a str, a file name not in UTF-8): no terminal or
file can take them, so a rendered diagnostic shows U+FFFD in their place, one for one,
and the carets still line up."""


def render_all(
    diagnostics: Iterable[Diagnostic], sources: dict[str, Source], color: bool = False
) -> str:
    return "\n\n".join(render(d, sources.get(d.span.file), color) for d in diagnostics)


def to_json(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps([d.to_dict() for d in diagnostics], ensure_ascii=False, indent=2)


_WINDOW = 100


def _window(text: str, col: int) -> tuple[str, int]:
    """A long source line cut to about `_WINDOW` characters around `col`."""
    if len(text) <= _WINDOW:
        return text, 0
    start = max(0, min(col - 1 - _WINDOW // 2, len(text) - _WINDOW))
    return text[start : start + _WINDOW], start


def _caret_width(span: Span, text: str) -> int:
    end = span.end_col if span.end_line == span.line else len(text) + 1
    segment = text[span.col - 1 : max(end - 1, span.col)]
    return max(1, _display_width(segment))


def _display_width(text: str) -> int:
    """Terminal columns: East Asian wide characters take two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


_SEVERITY_COLOR = {"error": "31", "warning": "33"}


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[1;{code}m{text}\x1b[0m" if color else text


# ------------------------------------------------------------------ hints

LARGE_POOL = 1000
"""Above this many candidates, only those that could plausibly be meant are compared."""


def similar(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to `name`, if any is close enough to suggest."""
    import difflib  # only a spec with a mistake asks

    pool = [c for c in candidates if c != name]
    if len(pool) > LARGE_POOL:
        pool = [c for c in pool if c[:1] == name[:1] and abs(len(c) - len(name)) <= 2]
    cutoff = 0.5 if len(name) <= 3 else 0.6
    found = difflib.get_close_matches(name, pool, n=1, cutoff=cutoff)
    if not found:
        lowered = {c.lower(): c for c in pool}
        found = [lowered[m] for m in difflib.get_close_matches(name.lower(), lowered, n=1)]
    return found[0] if found else None


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """`did you mean `x`?`, or an empty string when nothing is close."""
    return meant(similar(name, candidates))


def meant(close: str | None) -> str:
    """`did you mean `x`?` for a name `similar` found, or an empty string for None."""
    return _("did you mean `{name}`?").format(name=close) if close else ""


def listing(items: Iterable[str], limit: int = 8) -> str:
    """`a`, `b` and `c`: names in backticks for a message or a hint."""
    quoted = [f"`{i}`" for i in items]
    if len(quoted) > limit:
        quoted = quoted[:limit] + ["…"]
    if len(quoted) <= 1:
        return quoted[0] if quoted else _("nothing")
    return _("{items} and {last}").format(items=_(", ").join(quoted[:-1]), last=quoted[-1])
