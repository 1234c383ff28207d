"""Completions at a cursor: what may be written there, from the text around it and the
names of the newest version of the spec that parsed.

Where the cursor stands comes from the current text (`context_scan`), since a spec being
typed seldom parses; which names exist comes from the newest snapshot that did. So
`case.` offers the fields of `case {}`, `intent.` the result fields of the check
`intent`, `check x = ` the primitives, a call's parentheses its parameters (those not
given yet, with types and defaults), a choice parameter's value its words, `scope:` the
scopes, and an expression the checks, lets, tables, labels and outcome blocks.
"""

from __future__ import annotations

from evaldsl.checker.facts.annotations import param_fields
from evaldsl.checker.facts.context import SCOPE_ARG
from evaldsl.checker.facts.scopes import NAMED_SCOPES
from evaldsl.checker.facts.symbols import CASE, SymbolTable
from evaldsl.checker.facts.typer import AGGREGATES, FUNCTIONS
from evaldsl.i18n import _
from evaldsl.primitives.registry import Primitive, Registry
from evaldsl.service.context_scan import Place, place
from evaldsl.service.describe import (
    choice_values,
    cost_text,
    parameter_line,
    parameter_signature,
    primitive_markdown,
    summary,
)
from evaldsl.service.items import Completion, Kind

STATEMENTS = ("spec", "case", "table", "let", "check", "outcome", "metric", "review",
              "example")
"""The keywords a statement starts with (grammar/evaldsl.lark)."""


def complete(before: str, symbols: SymbolTable, registry: Registry) -> list[Completion]:
    """The completions for a cursor after `before`, whose word typed so far they match."""
    where = place(before)
    found = _offers(where, symbols, registry)
    return [c for c in found if c.label.startswith(where.prefix)]


def _offers(where: Place, symbols: SymbolTable, registry: Registry) -> list[Completion]:
    if where.kind == "attribute":
        return _attributes(where.subject, symbols, registry)
    if where.kind == "primitive":
        return [_primitive(p) for p in registry]
    if where.kind == "statement":
        return [Completion(word, Kind.KEYWORD) for word in STATEMENTS]
    primitive = registry.get(where.primitive) if where.primitive else None
    if where.kind == "parameter" and primitive is not None:
        return _parameters(primitive, where.given)
    if where.kind == "argument" and primitive is not None:
        return _argument(primitive, where.subject, symbols)
    return _names(symbols)


def _attributes(subject: str, symbols: SymbolTable, registry: Registry) -> list[Completion]:
    if subject == CASE:
        return [Completion(name, Kind.FIELD, f.type + ("?" if f.optional else ""))
                for name, f in symbols.case_fields.items()]
    check = symbols.checks.get(subject)
    primitive = registry.get(check.primitive) if check is not None else None
    if primitive is None:
        return []
    return [Completion(name, Kind.FIELD, t.value)
            for name, t in primitive.result_fields().items()]


def _primitive(primitive: Primitive) -> Completion:
    return Completion(primitive.name, Kind.FUNCTION, f"{cost_text(primitive)} · "
                      f"{summary(primitive)}", primitive_markdown(primitive))


def _parameters(primitive: Primitive, given: tuple[str, ...]) -> list[Completion]:
    """The parameters not given yet in this call; `scope` when the primitive has scopes."""
    offers = [Completion(name, Kind.PROPERTY, parameter_signature(name, info),
                         parameter_line(primitive, name, info), f"{name}: ")
              for name, info in param_fields(primitive).items() if name not in given]
    if primitive.scopes and SCOPE_ARG not in given:
        default = primitive.default_scope or _("none")
        offers.append(Completion(SCOPE_ARG, Kind.PROPERTY, _("scope (default {scope})").format(
            scope=default), insert_text=f"{SCOPE_ARG}: "))
    return offers


def _argument(primitive: Primitive, name: str, symbols: SymbolTable) -> list[Completion]:
    if name == SCOPE_ARG:
        scopes = primitive.scopes or frozenset(NAMED_SCOPES)
        return [Completion(s, Kind.ENUM_MEMBER) for s in NAMED_SCOPES if s in scopes]
    words = choice_values(primitive, name)
    if words:
        return [Completion(w, Kind.ENUM_MEMBER, _("choice of `{name}`").format(name=name))
                for w in words]
    return _values(symbols)


def _names(symbols: SymbolTable) -> list[Completion]:
    aggregates = [Completion(f, Kind.FUNCTION, _("aggregate")) for f in AGGREGATES]
    functions = [Completion(f, Kind.FUNCTION, _("a condition as 1 or 0")) for f in FUNCTIONS]
    return [*_values(symbols), *aggregates, *functions]


def _values(symbols: SymbolTable) -> list[Completion]:
    """Every name an expression may use bare, and `case`."""
    offers = [Completion(name, Kind.VARIABLE, _("check: {primitive}").format(
        primitive=check.primitive)) for name, check in symbols.checks.items()]
    offers.extend(Completion(name, Kind.VARIABLE, _("let")) for name in symbols.lets)
    offers.extend(Completion(name, Kind.VARIABLE, _("table")) for name in symbols.tables)
    offers.extend(Completion(name, Kind.ENUM_MEMBER, _("label")) for name in symbols.labels)
    offers.extend(Completion(name, Kind.VARIABLE, _("outcome block"))
                  for name in symbols.outcomes if name is not None)
    offers.append(Completion(CASE, Kind.VARIABLE, _("the case being judged")))
    return offers
