"""Hovers: what the name under the cursor is, in the checker's words.

A primitive shows its doc, parameters, result fields and cost class; a parameter its
type, default and meaning; a name of the spec where it is defined and its static type
(the checker's typed facts); a check also its cost class and, when the spec checks
clean, the model calls per case `explain` estimates for it.
"""

from __future__ import annotations

from collections.abc import Callable

from evaldsl.checker.facts.annotations import param_fields
from evaldsl.checker.facts.typer import type_env
from evaldsl.i18n import _
from evaldsl.service.describe import cost_text, parameter_line, primitive_markdown
from evaldsl.service.documents import Snapshot
from evaldsl.service.occurrences import Occurrence
from evaldsl.syntax.source import Span

_Describe = Callable[[Snapshot, Occurrence], str | None]


def describe(snapshot: Snapshot, occurrence: Occurrence) -> str | None:
    """The hover's Markdown for `occurrence`, None when there is nothing to say."""
    return _KINDS[occurrence.kind](snapshot, occurrence)


def _primitive(snapshot: Snapshot, o: Occurrence) -> str | None:
    primitive = snapshot.registry.get(o.name)
    return primitive_markdown(primitive) if primitive is not None else None


def _parameter(snapshot: Snapshot, o: Occurrence) -> str | None:
    primitive = snapshot.registry.get(o.owner)
    info = param_fields(primitive).get(o.name) if primitive is not None else None
    if primitive is None or info is None:
        return None
    return _("parameter of `{primitive}`").format(primitive=o.owner) + "\n\n" + \
        parameter_line(primitive, o.name, info)


def _check(snapshot: Snapshot, o: Occurrence) -> str | None:
    ctx = snapshot.context
    check = ctx.symbols.checks.get(o.name) if ctx is not None else None
    primitive = snapshot.registry.get(check.primitive) if check is not None else None
    if check is None or primitive is None:
        return None
    fields = ", ".join(f"`.{k}` ({v.value})" for k, v in primitive.result_fields().items())
    lines = [_defined(snapshot, check.span),
             _("cost: {cost}").format(cost=cost_text(primitive)),
             _("result: {fields}").format(fields=fields),
             _("a bare check name is `.passed` in a condition and `.score` in a number")]
    graph = snapshot.graph
    if graph is not None:
        from evaldsl.analysis.explain import model_calls

        lines.insert(2, _("estimate: {calls}").format(calls=model_calls(graph)[o.name]))
    return "\n\n".join(lines)


def _let(snapshot: Snapshot, o: Occurrence) -> str | None:
    ctx = snapshot.context
    let = ctx.symbols.lets.get(o.name) if ctx is not None else None
    if ctx is None or let is None:
        return None
    kind = type_env(ctx).let_type(o.name)
    return _defined(snapshot, let.span) + "\n\n" + _("type: {type}").format(type=kind.value)


def _field(snapshot: Snapshot, o: Occurrence) -> str | None:
    ctx = snapshot.context
    f = ctx.symbols.case_fields.get(o.name) if ctx is not None else None
    if f is None:
        return _("case field `{name}`, not declared in `case {{}}`").format(name=o.name)
    optional = _(" (optional)") if f.optional else ""
    return _("case field `{name}`: {type}{optional}").format(
        name=o.name, type=f.type, optional=optional)


def _result(snapshot: Snapshot, o: Occurrence) -> str | None:
    ctx = snapshot.context
    primitive = ctx.primitive_named(o.owner) if ctx is not None else None
    kind = primitive.result_fields().get(o.name) if primitive is not None else None
    if kind is None:
        return None
    return _("result field of `{check}`: {type}").format(check=o.owner, type=kind.value)


def _label(snapshot: Snapshot, o: Occurrence) -> str | None:
    ctx = snapshot.context
    owners = ctx.symbols.labels.get(o.name, []) if ctx is not None else []
    blocks = ", ".join(f"`{b}`" if b is not None else _("the verdict") for b in owners)
    return _("label `{name}` of {blocks}: a condition (true/false)").format(
        name=o.name, blocks=blocks)


def _statement(attribute: str) -> _Describe:
    """Hover for a definition shown by its source text (tables, metrics, outcomes)."""
    def hover(snapshot: Snapshot, o: Occurrence) -> str | None:
        ctx = snapshot.context
        found = getattr(ctx.symbols, attribute).get(o.name) if ctx is not None else None
        return _defined(snapshot, found.span) if found is not None else None
    return hover


def _defined(snapshot: Snapshot, span: Span) -> str:
    """The definition's source, its first lines, as a code block."""
    lines = [snapshot.parsed.source.line_text(i) for i in range(span.line, span.end_line + 1)]
    shown = lines[:6] + (["  …"] if len(lines) > 6 else [])
    return "```evaldsl\n" + "\n".join(shown) + "\n```"


_KINDS: dict[str, _Describe] = {
    "primitive": _primitive, "parameter": _parameter, "check": _check, "let": _let,
    "field": _field, "result": _result, "label": _label, "table": _statement("tables"),
    "metric": _statement("metrics"), "outcome": _statement("outcomes"),
}
