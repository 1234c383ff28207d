"""Every place a spec names something: the one index behind hover, definition,
references and rename.

An `Occurrence` is a name at a span with what it names: a check, let, table, metric,
outcome block, label or case field (defined in the spec, so they can be renamed), or a
primitive, a parameter or a check's result field (defined by the registry). Bare names
in expressions are resolved the way the checker resolves them (`SymbolTable.kind_of`),
so a scope word or a choice word (`scope: dialog`, `mode: strict`) is no occurrence.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from evaldsl.checker.facts.context import unwrap
from evaldsl.checker.facts.symbols import CASE, SymbolTable
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Span

DEFINED_KINDS = frozenset({"check", "let", "table", "metric", "outcome", "label", "field"})
"""What the spec itself defines, and so what may be renamed."""


class Occurrence(NamedTuple):
    kind: str
    """check, let, table, metric, outcome, label, field, primitive, parameter or result."""
    name: str
    span: Span
    definition: bool
    owner: str = ""
    """The primitive of a parameter, the check of a result field."""

    @property
    def key(self) -> tuple[str, str, str]:
        """What two occurrences share when they name the same thing."""
        return self.kind, self.name, self.owner


def occurrences(module: n.Module, symbols: SymbolTable) -> list[Occurrence]:
    """Every occurrence in the module, in statement order."""
    found: list[Occurrence] = []
    for statement in module.statements:
        found.extend(_definitions(statement))
        found.extend(_uses(statement, symbols))
    return found


def at(found: list[Occurrence], line: int, col: int) -> Occurrence | None:
    """The occurrence under 1-based (`line`, `col`), a cursor just after a name included."""
    for occurrence in found:
        span = occurrence.span
        if span.line == line == span.end_line and span.col <= col <= span.end_col:
            return occurrence
    return None


def _definitions(statement: n.Statement) -> Iterator[Occurrence]:
    if isinstance(statement, n.Check):
        yield Occurrence("check", statement.name, statement.name_span, True)
        yield Occurrence("primitive", statement.primitive, statement.primitive_span, False)
        for arg in statement.args:
            yield Occurrence("parameter", arg.name, arg.name_span, False, statement.primitive)
    elif isinstance(statement, n.Alert) and statement.metric is not None:
        yield Occurrence("metric", statement.name, statement.name_span, True)
    elif isinstance(statement, (n.Let, n.Table, n.Metric)):
        kind = {n.Let: "let", n.Table: "table", n.Metric: "metric"}[type(statement)]
        yield Occurrence(kind, statement.name, statement.name_span, True)
    elif isinstance(statement, n.Outcome):
        if statement.name is not None and statement.name_span is not None:
            yield Occurrence("outcome", statement.name, statement.name_span, True)
        for branch in statement.branches:
            yield Occurrence("label", branch.label, branch.label_span, True)
    elif isinstance(statement, n.CaseBlock):
        for f in statement.fields:
            yield Occurrence("field", f.name, f.name_span, True)


def _uses(statement: n.Statement, symbols: SymbolTable) -> Iterator[Occurrence]:
    if isinstance(statement, n.Alert) and statement.window is not None:
        yield from _alert_metric(statement, symbols)
    for node in n.walk(statement):
        if isinstance(node, n.Attribute) and isinstance(node.obj, n.Name):
            yield from _attribute(node, node.obj, symbols)
        elif isinstance(node, n.Name) and node.name != CASE:
            kind = symbols.kind_of(node.name)
            if kind is not None:
                yield Occurrence(kind, node.name, node.span, False)
        elif isinstance(node, n.ExampleGiven):
            yield Occurrence("check", node.check, node.check_span, False)
        elif isinstance(node, n.ExampleCase):
            yield from (Occurrence("field", e.key, e.key_span, False)
                        for e in node.fields.entries if not e.quoted)


def _alert_metric(alert: n.Alert, symbols: SymbolTable) -> Iterator[Occurrence]:
    """A windowed alert reads its metric by name, the one place a metric is read."""
    when = unwrap(alert.when)
    left = unwrap(when.left) if isinstance(when, n.Binary) else None
    if isinstance(left, n.Name) and left.name in symbols.metrics:
        yield Occurrence("metric", left.name, left.span, False)


def _attribute(node: n.Attribute, obj: n.Name, symbols: SymbolTable) -> Iterator[Occurrence]:
    """`case.x` reads a case field; `check.x` a result field of the check."""
    if obj.name == CASE:
        yield Occurrence("field", node.name, node.name_span, False)
    elif obj.name in symbols.checks:
        yield Occurrence("result", node.name, node.name_span, False, obj.name)
