"""The type rule: E301-E303, E307, E309 and E102 inside expressions, E306/E309 for their role.

The typer (`checker.facts.typer`) finds the types and the problems inside an
expression; this rule adds what the expression's place demands: a condition
in an outcome, a `where` or an `expect`, a number in a metric or a priority.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaldsl.checker.facts.context import Context, Site
from evaldsl.checker.facts.typer import Typer, condition_hint, is_condition, is_number, type_env
from evaldsl.diagnostics import Diagnostic, error
from evaldsl.i18n import _
from evaldsl.primitives.valuetypes import ValueType as T


def check_types(ctx: Context) -> Iterator[Diagnostic]:
    """E301-E303, E307, E309 and E102 inside every expression, then the role's demand."""
    env = type_env(ctx)
    for site in ctx.sites:
        sink: list[Diagnostic] = []
        found = Typer(env, sink).infer(site.expr)
        yield from sink
        problem = _role_problem(site, found)
        if problem is not None:
            yield problem


def _role_problem(site: Site, found: T) -> Diagnostic | None:
    span = site.expr.span
    if site.role == "condition" and not is_condition(found):
        return error(
            "E306",
            _("an outcome condition must be true or false, found {found}").format(found=found),
            span,
            condition_hint(found),
        )
    if site.role in ("where", "expect", "alert") and not is_condition(found):
        word = {"where": "`where`", "expect": "`expect`", "alert": "`alert`"}[site.role]
        return error(
            "E306",
            _("{word} needs a condition (true/false), found {found}").format(
                word=word, found=found
            ),
            span,
            condition_hint(found),
        )
    if site.role in ("metric", "priority") and not is_number(found):
        what = _("a metric") if site.role == "metric" else _("a review priority")
        hint = (
            _("count the cases where it holds with `rate(...)`")
            if found is T.BOOL and site.role == "metric"
            else _("give a number, e.g. `100 - overall`")
            if site.role == "priority"
            else _("give a number")
        )
        return error(
            "E309",
            _("{what} must be a number, found {found}").format(what=what, found=found),
            span,
            hint,
        )
    return None
