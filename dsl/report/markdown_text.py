"""Text made safe for Markdown: table cells and code spans."""

from __future__ import annotations

import html
import re


def md(text: object) -> str:
    """Text safe in a Markdown table cell."""
    escaped = html.escape("" if text is None else str(text), quote=False)
    return escaped.replace("|", "\\|").replace("\n", " ").replace("`", "'")

def code(text: object, cell: bool = False) -> str:
    """A code span: its text is literal in Markdown, so nothing is HTML-escaped;
    line breaks become spaces, and in a table cell pipes are escaped (the table
    splits on them before the span is read).
    A backtick inside is fenced by a longer run (the CommonMark rule), padded by a
    space where the text touches the fence or a space could be stripped."""
    body = ("" if text is None else str(text)).replace("\n", " ")
    if cell:
        body = body.replace("|", "\\|")
    runs = re.findall("`+", body)
    fence = "`" * (max((len(r) for r in runs), default=0) + 1)
    if body.startswith("`") or body.endswith("`"):
        body = f" {body} "
    return f"{fence}{body}{fence}"
