"""The pieces every section of the HTML report is built of: escaping, a titled section, the
outcome blocks' names and colours, a check status in words."""

from __future__ import annotations

import html

from evaldsl.i18n import N_, _

PALETTE = ("#2e7d4f", "#3b6fd8", "#b7791f", "#c05621", "#c0392b", "#805ad5", "#2c7a7b")
STATUS_WORDS = {
    "passed": N_("passed"),
    "failed": N_("failed"),
    "error": N_("error"),
    "not_needed": N_("not needed"),
}


def esc(value: object) -> str:
    """Text safe inside HTML elements and attribute values."""
    return html.escape("" if value is None else str(value), quote=True)


def section(ident: str, title: str, body: str) -> str:
    """A titled section of the page; `body` is markup already escaped."""
    return f'<section id="{ident}">\n<h2>{esc(title)}</h2>\n{body}\n</section>'


def outcome_name(key: str | None) -> str:
    """An outcome block as the page names it: the unnamed one is the verdict."""
    return _("verdict") if key in (None, "outcome") else str(key)
