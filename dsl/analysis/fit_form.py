"""The numbers of a spec that `calibrate --fit` may change, read from its syntax tree.

A fittable score is a `let` of the form `[SCALE *] (W1 * CHECK1 + W2 * CHECK2 + ...)`
where every CHECK is a check of the spec (its score, 0..1) and every W a number
literal; a fittable outcome block cuts that let with `LABEL if LET >= NUMBER`
branches, highest first, and ends with `otherwise`. Nothing is evaluated: the
form is matched on the nodes, and each number keeps its span, so the patch
replaces exactly the characters a human wrote and leaves every comment and
every other line as it is.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from evaldsl.analysis.fit import POINTS, Scoring
from evaldsl.errors import FormError as FormError  # `cli/calibrate_fit.py` imports it here
from evaldsl.i18n import _
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Source, Span


@dataclass(frozen=True)
class Literal:
    """A number as written in the spec."""

    value: float
    span: Span


@dataclass(frozen=True)
class ScoreForm:
    """A weighted-sum let and the thresholds of the outcome block that cuts it."""

    let: str
    scale: float
    """The factor before the sum: 100 for a 0-100 score, 1 for a 0-1 one."""
    checks: tuple[str, ...]
    weights: tuple[Literal, ...]
    levels: tuple[str, ...]
    """The outcome block's labels, highest first; empty when the block does not cut the let."""
    thresholds: tuple[Literal, ...]
    strict: tuple[bool, ...]
    why_no_levels: str = ""

    def written(self) -> Scoring:
        """The spec as written, on the 0-100 points the fit works in."""
        return Scoring(tuple(w.value for w in self.weights),
                       tuple(t.value * POINTS / self.scale for t in self.thresholds),
                       self.levels, self.strict)


def find_form(module: n.Module, block: str | None) -> ScoreForm:
    """The weighted-sum let the outcome `block` cuts, or the spec's only weighted-sum let.

    `block` is the outcome block's name, None for the unnamed one (the verdict).
    """
    checks = {c.name for c in module.of_type(n.Check)}
    outcome = next((o for o in module.of_type(n.Outcome) if o.name == block), None)
    lets = module.of_type(n.Let)
    cut = _cut_let(outcome) if outcome is not None else None
    chosen = [let for let in lets if let.name == cut] or lets
    found = [(let, _weighted(let, checks)) for let in chosen]
    forms = [(let, terms) for let, terms in found if not isinstance(terms, str)]
    if len(forms) != 1:
        raise FormError(_why_none(found, module) if not forms else _(
            "several lets are weighted sums of checks ({names}): none is cut by the outcome block"
        ).format(names=", ".join(f"`{let.name}`" for let, _t in forms)))
    let, terms = forms[0]
    assert not isinstance(terms, str)
    scale, pairs = terms
    levels, thresholds, strict, why = _levels(outcome, let.name)
    return ScoreForm(let.name, scale, tuple(c for c, _w in pairs), tuple(w for _c, w in pairs),
                     levels, thresholds, strict, why)


def _cut_let(outcome: n.Outcome) -> str | None:
    for branch in outcome.branches:
        condition = branch.condition
        if isinstance(condition, n.Binary) and isinstance(condition.left, n.Name):
            return condition.left.name
    return None


def _why_none(found: Sequence[tuple[n.Let, object]], module: n.Module) -> str:
    if not found:
        return _("`{file}` has no `let`: `--fit` fits the weights of a let such as "
                 "`let score = 100 * (0.5 * a + 0.5 * b)`").format(file=module.span.file)
    let, why = found[0]
    return _("{where}: `let {name}` is not a weighted sum of checks: {why}").format(
        where=let.span, name=let.name, why=why)


Terms = tuple[float, list[tuple[str, Literal]]]


def _weighted(let: n.Let, checks: set[str]) -> Terms | str:
    """(scale, [(check, weight)]) of the let, or a sentence saying what does not fit."""
    value, scale = _ungroup(let.value), 1.0
    if isinstance(value, n.Binary) and value.op == "*" and isinstance(value.left, n.Number):
        scale = value.left.value
        value = _ungroup(value.right)
    terms: list[tuple[str, Literal]] = []
    for term in _summands(value):
        pair = _term(term, checks)
        if isinstance(pair, str):
            return pair
        terms.append(pair)
    if len(terms) < 2:
        return _("it has fewer than two weighted checks")
    if len({c for c, _w in terms}) != len(terms):
        return _("a check appears twice")
    return scale, terms


def _ungroup(expr: n.Expr) -> n.Expr:
    while isinstance(expr, n.Group):
        expr = expr.expr
    return expr


def _summands(expr: n.Expr) -> list[n.Expr]:
    expr = _ungroup(expr)
    if isinstance(expr, n.Binary) and expr.op == "+":
        return _summands(expr.left) + _summands(expr.right)
    return [expr]


def _term(expr: n.Expr, checks: set[str]) -> tuple[str, Literal] | str:
    if not (isinstance(expr, n.Binary) and expr.op == "*"):
        return _("{where}: a term is not `NUMBER * CHECK`").format(where=expr.span)
    number, check = (expr.left, expr.right) if isinstance(expr.left, n.Number) else (
        expr.right, expr.left)
    name = _check_name(_ungroup(check))
    if not isinstance(number, n.Number) or name is None or name not in checks:
        return _("{where}: a term is not `NUMBER * CHECK`").format(where=expr.span)
    return name, Literal(number.value, number.span)


def _check_name(expr: n.Expr) -> str | None:
    if isinstance(expr, n.Name):
        return expr.name
    if isinstance(expr, n.Attribute) and expr.name == "score" and isinstance(expr.obj, n.Name):
        return expr.obj.name
    return None


def _levels(outcome: n.Outcome | None, let: str
            ) -> tuple[tuple[str, ...], tuple[Literal, ...], tuple[bool, ...], str]:
    """The labels and cuts of `LABEL if LET >= NUMBER ... LABEL otherwise`, highest first."""
    if outcome is None:
        return (), (), (), _("no outcome block cuts `{let}`").format(let=let)
    labels, cuts, strict = [], [], []
    for branch in outcome.branches[:-1]:
        c = branch.condition
        if not (isinstance(c, n.Binary) and c.op in (">=", ">") and isinstance(c.left, n.Name)
                and c.left.name == let and isinstance(c.right, n.Number)):
            return (), (), (), _("{where}: the branch is not `LABEL if {let} >= NUMBER`").format(
                where=branch.span, let=let)
        labels.append(branch.label)
        cuts.append(Literal(c.right.value, c.right.span))
        strict.append(c.op == ">")
    last = outcome.branches[-1]
    descending = all(a.value >= b.value for a, b in zip(cuts, cuts[1:], strict=False))
    if last.condition is not None or not descending:
        return (), (), (), _("{where}: the block does not end with `otherwise` after "
                             "descending thresholds").format(where=last.span)
    return (*labels, last.label), tuple(cuts), tuple(strict), ""


# ---------------------------------------------------------------- the patch


def patch(source: Source, form: ScoreForm, fitted: Scoring, path: str) -> str:
    """The fitted weights and thresholds as a unified diff of the spec (empty if unchanged)."""
    return "".join(difflib.unified_diff(source.text.splitlines(keepends=True),
                                        rewritten(source, form, fitted).splitlines(keepends=True),
                                        f"a/{path.lstrip('/')}", f"b/{path.lstrip('/')}"))


def rewritten(source: Source, form: ScoreForm, scoring: Scoring) -> str:
    """The spec's text with `scoring`'s weights and thresholds in place of the written ones."""
    edits = [(w.span, text) for w, text in zip(form.weights, weight_texts(scoring.weights),
                                                strict=True)]
    edits += [(t.span, number_text(cut * form.scale / POINTS, 1 if form.scale >= 10 else 3))
              for t, cut in zip(form.thresholds, scoring.thresholds, strict=False)]
    text = source.text
    for span, new in sorted(edits, key=lambda e: (e[0].line, e[0].col), reverse=True):
        start = source.offset(span.line, span.col)
        end = source.offset(span.end_line, span.end_col)
        text = text[:start] + new + text[end:]
    return text


def weight_texts(weights: tuple[float, ...], digits: int = 3) -> list[str]:
    """Weights rounded to `digits` places that still sum to exactly 1 (largest remainder).

    >>> weight_texts((1 / 3, 1 / 3, 1 / 3))
    ['0.334', '0.333', '0.333']
    """
    unit = 10**digits
    raw = [w * unit for w in weights]
    whole = [int(r) for r in raw]
    order = sorted(range(len(raw)), key=lambda i: (whole[i] - raw[i], i))
    for i in order[: unit - sum(whole)]:
        whole[i] += 1
    return [number_text(w / unit, digits) for w in whole]


def number_text(value: float, digits: int) -> str:
    """A number as a spec literal, without trailing zeros.

    >>> number_text(0.250, 3), number_text(80.0, 1), number_text(0.0, 3)
    ('0.25', '80', '0')
    """
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return text or "0"
