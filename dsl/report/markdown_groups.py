"""A grouped metric's groups as Markdown tables, one per metric, for CI comments.

Kept apart from `markdown` because it reads the rows `group_rows` builds, which
read the value and interval formatting of `markdown` itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaldsl.i18n import _
from evaldsl.report import group_rows
from evaldsl.report.document import Metric
from evaldsl.report.markdown_text import code, md

GROUPS_SHOWN = 20
"""Groups listed per grouped metric; the rest are counted on one line."""


def group_tables(metrics: Sequence[Metric]) -> list[str]:
    """Every grouped metric's table, each under its title, with the small-group note."""
    out: list[str] = []
    for m in group_rows.grouped(metrics):
        out += _table(m)
    return out


def _table(m: Metric) -> list[str]:
    shown, more = group_rows.rows(m, GROUPS_SHOWN)
    keys = ", ".join(code(k) for k in m.by or ())
    out = [_("**{name}** by {keys}").format(name=code(m.name), keys=keys), "",
           _("| group | value | n | 95% interval | errors left out | |"),
           "|---|---:|---:|:---:|---:|---|"]
    for r in shown:
        flag = _("small") if r.small else ""
        out.append(f"| {md(r.key)} | **{r.value}** | {r.fraction} | {r.interval} | "
                   f"{r.errors} | {flag} |")
    notes = [group_rows.more_groups(more)] if more else []
    if any(r.small for r in shown):
        notes.append(group_rows.small_note())
    return [*out, "", *(f"_{md(n)}_" for n in notes), *([""] if notes else [])]
