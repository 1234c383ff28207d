"""`run --where EXPR`: one condition over `case`, checked and compiled as a spec's own.

The expression is not given a parser or a type rule of its own: it becomes the
only condition of a tiny spec made of the spec's `case {}` block and one
outcome block (`selected if EXPR`, `other otherwise`), which the parser, the
checker and the compiler treat like any other spec. So a `--where` accepts
exactly what a `where` of a metric accepts over `case`, an unknown field is
E103 against the spec's block, a number is refused where a condition is
wanted, and at run time a missing field is an error value, not a silent false.

Diagnostics point into the expression as written, `<--where>:1:col`: the
expression starts a line of the tiny spec at column 1, so only lines shift.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from evaldsl.api import Spec, compile_spec
from evaldsl.cases.case import Case
from evaldsl.diagnostics import Diagnostic, error, render_all
from evaldsl.errors import SpecError
from evaldsl.i18n import _
from evaldsl.primitives.registry import Registry
from evaldsl.results import VERDICT
from evaldsl.runtime.graph import Graph
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Source, Span

NAME = "<--where>"
"""The file name diagnostics about the expression carry."""
SELECTED = "selected"


class Held(NamedTuple):
    """What the condition said of one case: `held`, or the error that stands for it."""

    held: bool
    error: str | None = None


class Where:
    """A compiled `--where`: `held(case)` for each case, never raising for a case."""

    def __init__(self, text: str, spec: Spec, registry: Registry) -> None:
        self.text = text
        graph = _compile(text, spec, registry)
        self._spec = Spec(graph)
        branch = graph.module.of_type(n.Outcome)[0].branches[0]
        self._wrapper = f"error({graph.text(branch.span)}: "
        """How the outcome block words an error of the condition, around the error itself."""

    def held(self, case: Case) -> Held:
        result = self._spec.evaluate(case)
        if result.branches.get(VERDICT) is None:
            return Held(False, self._unwrapped(result.errors.get(VERDICT, "")))
        return Held(result.labels[VERDICT] == SELECTED)

    def _unwrapped(self, reason: str) -> str:
        """`case.level: the case has no field `level``, without the tiny spec's branch."""
        if reason.startswith(self._wrapper) and reason.endswith(")"):
            return reason[len(self._wrapper):-1]
        return reason or _("the condition is an error")


def _compile(text: str, spec: Spec, registry: Registry) -> Graph:
    head = _case_block(spec)
    prefix = f"{head}outcome {{\n{SELECTED} if (\n"
    first_line = prefix.count("\n") + 1
    synthetic = f"{prefix}{text}\n)\nother otherwise\n}}\n"
    expression = Source(text, NAME)
    try:
        graph = compile_spec(synthetic, NAME, registry)
    except SpecError as exc:
        moved = [_moved(d, first_line, expression) for d in exc.diagnostics]
        raise SpecError(moved, render_all(moved, {NAME: expression})) from None
    _one_condition(graph.module, expression)
    return graph


def _case_block(spec: Spec) -> str:
    """The spec's `case {}` block as written (nothing without one: any `case.x` is allowed)."""
    blocks = spec.graph.module.of_type(n.CaseBlock)
    if not blocks:
        return ""
    span = blocks[0].span
    lines = spec.source.text.splitlines()[span.line - 1:span.end_line]
    lines[-1] = lines[-1][:span.end_col - 1]
    lines[0] = lines[0][span.col - 1:]
    return "\n".join(lines) + "\n"


def _moved(d: Diagnostic, first_line: int, expression: Source) -> Diagnostic:
    """A diagnostic of the tiny spec moved onto the expression's own lines; one past its end
    (the parser met the closing parenthesis around it) says the expression is unfinished."""
    last = max(expression.line_count, 1)
    line = d.span.line - first_line + 1
    if line == 0:  # the parenthesised group around the expression: the whole of it
        whole = Span(NAME, 1, 1, last, len(expression.line_text(last)) + 1)
        return replace(d, span=whole)
    if not 1 <= line <= last:
        end = Span.point(NAME, last, len(expression.line_text(last)) + 1)
        return error("E012", _("`--where` ends in the middle of an expression"), end,
                     _("finish the condition, e.g. `case.category == \"live_simple\"`"))
    end_line = min(d.span.end_line - first_line + 1, last)
    end_col = d.span.end_col if end_line == d.span.end_line - first_line + 1 else (
        len(expression.line_text(end_line)) + 1)
    span = replace(d.span, file=NAME, line=line, end_line=end_line, end_col=end_col)
    return replace(d, span=span)


def _one_condition(module: n.Module, expression: Source) -> None:
    """The expression stayed one condition: text that closed the block and went on to define
    checks or branches of its own is not an expression."""
    outcomes = module.of_type(n.Outcome)
    if len(module.statements) - len(module.of_type(n.CaseBlock)) == 1 and \
            len(outcomes) == 1 and len(outcomes[0].branches) == 2:
        return
    problem = error("E011", _("`--where` takes one condition over `case`"),
                    Span.point(NAME, 1, 1),
                    _("write a condition such as `case.category == \"live_simple\"`"))
    raise SpecError([problem], render_all([problem], {NAME: expression}))
