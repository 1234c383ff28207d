"""Comparisons against constants the other side's range makes pointless: E406, W106.

A comparison whose constant lies outside the range of what it is compared
with decides every case the same way (E406: `completion >= 1.5` never holds,
`score > 5` on a 1..5 scale neither). A percentage compared with a value that
is not a share (W106: `overall >= 80%` where `overall` is 0..100) is inside
that range, so it decides something, but almost never what was meant.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from evaldsl.checker.facts.consts import number_of
from evaldsl.checker.facts.context import Context
from evaldsl.checker.facts.ranges import UNIT, Range, value_range
from evaldsl.diagnostics import Diagnostic, error, warning
from evaldsl.i18n import _
from evaldsl.syntax import nodes as n

_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


class _Comparison(NamedTuple):
    """A comparison read as `subject op constant`, whichever side the constant was on."""

    op: str
    subject: n.Expr
    literal: n.Expr
    constant: float


def _comparisons(ctx: Context) -> Iterator[tuple[n.Binary, _Comparison]]:
    """Every comparison of a non-constant with a constant number, in every site."""
    for _site, exprs in ctx.site_exprs:
        for e in exprs:
            if isinstance(e, n.Binary) and e.op in _COMPARISONS:
                found = _read(ctx, e)
                if found is not None:
                    yield e, found


def _read(ctx: Context, e: n.Binary) -> _Comparison | None:
    c = number_of(e.right, ctx)
    if c is not None:
        found = _Comparison(e.op, e.left, e.right, c)
    else:
        c = number_of(e.left, ctx)
        if c is None:
            return None
        found = _Comparison(_FLIP[e.op], e.right, e.left, c)
    return None if number_of(found.subject, ctx) is not None else found


def thresholds_out_of_range(ctx: Context) -> Iterator[Diagnostic]:
    """E406: a comparison that can never (or always) hold given the value's range."""
    for e, cmp in _comparisons(ctx):
        if any(isinstance(side, n.Percent) and side.value > 1 for side in (e.left, e.right)):
            continue  # E407 says what is wrong with `150%`
        bounds = value_range(cmp.subject, ctx)
        verdict = _verdict(cmp.op, cmp.constant, bounds) if bounds is not None else None
        if bounds is None or verdict is None:
            continue
        lo, hi = bounds
        message = _("{what} lies between {lo:g} and {hi:g}, so `{op} {c:g}` {verdict}").format(
            what=_subject_text(cmp.subject), lo=lo, hi=hi, op=cmp.op, c=cmp.constant,
            verdict=verdict)
        yield error("E406", message, e.span, _range_hint(bounds, cmp.constant))


def percentages_for_points(ctx: Context) -> Iterator[Diagnostic]:
    """W106: a percentage compared with a value whose range is wider than a share."""
    for _binary, cmp in _comparisons(ctx):
        literal = cmp.literal
        if not isinstance(literal, n.Percent) or literal.value > 1:
            continue
        bounds = value_range(cmp.subject, ctx)
        if bounds is None or bounds[1] <= UNIT[1] or bounds[0] < 0:
            continue
        lo, hi = bounds
        what = _subject_text(cmp.subject)
        meant = lo + literal.value * (hi - lo)
        message = _("`{text}` is {value:g}, but {what} lies between {lo:g} and {hi:g}").format(
            text=literal.text, value=literal.value, what=what, lo=lo, hi=hi)
        hint = _("did you mean `{meant:g}`? a percentage is a share, and {what} is not one")
        yield warning("W106", message, literal.span, hint.format(meant=meant, what=what))


def _verdict(op: str, c: float, bounds: Range) -> str | None:
    lo, hi = bounds
    outside = c < lo or c > hi
    if op == "==":
        return _("never holds") if outside else None
    if op == "!=":
        return _("always holds") if outside else None
    if op in (">", ">="):
        if c > hi or (op == ">" and c == hi):
            return _("never holds")
        return _("always holds") if c < lo else None
    if c < lo or (op == "<" and c == lo):
        return _("never holds")
    return _("always holds") if c > hi else None


def _range_hint(bounds: Range, c: float) -> str:
    if bounds == UNIT and 5 <= c <= 100:
        return _("scores and rates run from 0 to 1; write `{c:g}%` or `{value:g}`").format(
            c=c, value=c / 100)
    return _("choose a threshold between {bounds:g} and {bounds2:g}").format(
        bounds=bounds[0], bounds2=bounds[1])


def _subject_text(e: n.Expr) -> str:
    if isinstance(e, n.Name):
        return f"`{e.name}`"
    if isinstance(e, n.Attribute) and isinstance(e.obj, n.Name):
        return f"`{e.obj.name}.{e.name}`"
    if isinstance(e, n.Call):
        return _("the result of `{func}`").format(func=e.func)
    return _("the value")
