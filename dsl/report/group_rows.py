"""A grouped metric's groups as rows of text, the one reading the terminal, Markdown and
HTML tables share: the key in words, the value as the metric shows its own, the
fraction, the interval, the errors and the small-group flag.

A writer shows at most its own number of rows and says how many it left out
("… 12 more groups"): a metric by tenant over thousands of tenants must not
bury the summary, and a group left out of the table is still counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from evaldsl.i18n import _, ngettext
from evaldsl.report.document import Metric
from evaldsl.report.figures import shown as shown_value
from evaldsl.report.figures import span_of
from evaldsl.runtime.grouping import SMALL_GROUP
from evaldsl.stats import fraction


class GroupRow(msgspec.Struct, frozen=True):
    key: str
    """The key's values joined by ` · `; a missing one is `(none)`."""
    value: str
    fraction: str
    interval: str
    errors: int
    small: bool


def key_text(key: Sequence[Any]) -> str:
    """`acme · en`; null is `(none)`, true and false as the language writes them.

    >>> key_text(["acme", None, True])
    'acme · (none) · true'
    """
    return " · ".join(_part(v) for v in key)


def _part(value: Any) -> str:
    if value is None:
        return _("(none)")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def title(m: Metric) -> str:
    """`ok_rate by case.tenant, case.lang`."""
    return _("{name} by {keys}").format(name=m.name, keys=", ".join(m.by or ()))


def rows(m: Metric, limit: int | None = None, sep: str = "/",
         ) -> tuple[list[GroupRow], int]:
    """The first `limit` groups of `m` (all without one) and how many are left out; `sep`
    goes between numerator and denominator."""
    groups = m.groups or []
    shown = groups if limit is None else groups[:limit]
    out = []
    for g in shown:
        out.append(GroupRow(key_text(g.key), shown_value(m.is_rate, g.value),
                            fraction(g.numerator, g.denominator, sep),
                            span_of(g.interval, m.is_rate, "–"), g.errors, g.small))
    return out, len(groups) - len(shown)


def more_groups(count: int) -> str:
    """`… 12 more groups`."""
    return ngettext("… {count} more group", "… {count} more groups", count).format(count=count)


def small_note() -> str:
    """What the `small` flag means, said once under a table that has one."""
    return _("small: fewer than {count} cases, too few to read the group on its own").format(
        count=SMALL_GROUP)


def grouped(metrics: Sequence[Metric]) -> list[Metric]:
    """The metrics that have groups, in the report's order."""
    return [m for m in metrics if m.groups]
