"""Group keys: `metric m = rate(x) by case.tenant, case.lang` (E310, E311).

A group is the cases that share a value of every key, so a key must be a
value each case has before anything is judged: a field of the case. A number
field would make nearly every case a group of its own, and a list or a map
is no single value, so those are refused too; an undeclared field is an
unknown case field (E103, `names.unknown_case_fields`), like any other.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaldsl.checker.facts.context import Context
from evaldsl.diagnostics import Diagnostic, error
from evaldsl.i18n import _
from evaldsl.syntax import nodes as n

GROUPABLE = frozenset({"text", "bool", "any"})
"""Case field types a metric can be grouped by."""


def group_keys(ctx: Context) -> Iterator[Diagnostic]:
    """E310 for a key that is not a case field (or one given twice), E311 for a case field
    whose declared type cannot group."""
    for metric in ctx.module.metrics():
        seen: set[str] = set()
        for key in metric.by:
            field = _case_field(key)
            if field is None or field in seen:
                yield _not_a_field(key, field is not None)
                continue
            seen.add(field)
            declared = ctx.symbols.case_fields.get(field)
            if declared is not None and declared.type not in GROUPABLE:
                yield _ungroupable(key, declared)


def _case_field(key: n.Expr) -> str | None:
    """The field `case.NAME` reads, or None for any other expression."""
    if isinstance(key, n.Attribute) and isinstance(key.obj, n.Name) and key.obj.name == "case":
        return key.name
    return None


def _not_a_field(key: n.Expr, repeated: bool) -> Diagnostic:
    from evaldsl.syntax.formatter import expr as written  # only a mistake is written out

    text = written(key)
    if repeated:
        return error("E310", _("the group key `{key}` is given twice").format(key=text),
                     key.span, _("give each key once"))
    return error("E310", _("a group key must be a case field, found `{key}`").format(key=text),
                 key.span, _("group by a field of the `case` block, e.g. `by case.tenant`"))


def _ungroupable(key: n.Expr, declared: n.CaseField) -> Diagnostic:
    return error(
        "E311",
        _("cannot group by `case.{name}`: it is declared `{type}`").format(
            name=declared.name, type=declared.type),
        key.span,
        _("group by a `text` or `bool` field, e.g. a band of the number given in the data"),
    )
