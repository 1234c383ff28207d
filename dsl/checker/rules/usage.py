"""Warnings: definitions nothing uses (W101-W103) and `where`s that never hold (W104).

"Used" means reachable from what a run reports: outcome blocks, metrics,
review rules and example expectations. A spec with no outcome and no metric
reports its checks directly, so there every check counts as used.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from evaldsl.checker.facts.conditions import never_holds
from evaldsl.checker.facts.context import SCOPE_ARG, Context, names_in
from evaldsl.diagnostics import Diagnostic, warning
from evaldsl.i18n import _
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Span


def _reachable(ctx: Context) -> set[str]:
    """Names of the checks, lets and tables that something reported reads.

    A misspelt name counts as a use of the definition it was probably meant
    for, so `intnt` reports one error, not also "`intent` is never used".
    """
    symbols = ctx.symbols
    roots = [site.expr for site in ctx.sites if site.role in
             ("condition", "metric", "where", "sample", "priority", "expect", "group", "alert")]
    seen: set[str] = set()
    if not symbols.outcomes and not symbols.metrics:
        roots.extend(a.value for c in symbols.checks.values() for a in c.args
                     if a.name != SCOPE_ARG)
        seen.update(symbols.checks)
    stack = roots
    while stack:
        for name, is_case in names_in(stack.pop()):
            word = name.name
            if is_case or word in seen:
                continue
            if symbols.kind_of(word) is None:
                word = ctx.similar(word, ctx.value_names) or word
                if word in seen:
                    continue
            seen.add(word)
            if word in symbols.lets:
                stack.append(symbols.lets[word].value)
            elif word in symbols.checks:
                stack.extend(a.value for a in symbols.checks[word].args if a.name != SCOPE_ARG)
    return seen


def reachable(ctx: Context) -> set[str]:
    if ctx.reachable is None:
        ctx.reachable = _reachable(ctx)
    return ctx.reachable


def unused_checks(ctx: Context) -> Iterator[Diagnostic]:
    """W101: a check no outcome, metric, review rule or expectation reads."""
    for name, span in _unused(ctx, ctx.symbols.checks):
        yield warning(
            "W101",
            _("the check `{name}` is never used").format(name=name),
            span,
            _("use it in an outcome or a metric, or remove it to save its cost"),
        )


def unused_lets(ctx: Context) -> Iterator[Diagnostic]:
    """W102: a let nothing reported reads."""
    for name, span in _unused(ctx, ctx.symbols.lets):
        yield warning(
            "W102",
            _("the let `{name}` is never used").format(name=name),
            span,
            _("use it, or remove it"),
        )


def unused_tables(ctx: Context) -> Iterator[Diagnostic]:
    """W103: a normalization table no check reads."""
    for name, span in _unused(ctx, ctx.symbols.tables):
        yield warning(
            "W103",
            _("the table `{name}` is never used").format(name=name),
            span,
            _("pass it to a check, e.g. `table: {name}`, or remove it").format(name=name),
        )


def _unused(ctx: Context, defined: Mapping[str, n.Check | n.Let | n.Table]
            ) -> Iterator[tuple[str, Span]]:
    """(name, span) of each definition nothing reported reaches."""
    used = reachable(ctx)
    return ((name, node.name_span) for name, node in defined.items() if name not in used)


def impossible_wheres(ctx: Context) -> Iterator[Diagnostic]:
    """W104: a metric or review `where` that no case can satisfy."""
    for site in ctx.sites:
        if site.role == "where" and never_holds(site.expr, ctx):
            what = "metric" if isinstance(site.owner, n.Metric) else _("review rule")
            yield warning(
                "W104",
                _("this `where` can never hold"),
                site.expr.span,
                _(
                    "the {what} would always have an empty denominator; "
                    "its conditions contradict each other"
                ).format(what=what),
            )
