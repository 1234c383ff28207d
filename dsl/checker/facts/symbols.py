"""The names a spec defines, gathered once for the checker and the compiler.

Building the table never fails: duplicates keep the first definition and are
listed in `duplicates` for the checker to report.
"""

from __future__ import annotations

import msgspec

from evaldsl.syntax import nodes as n

CASE = "case"
"""The reserved name through which case fields are read: `case.intent`."""


class SymbolTable(msgspec.Struct):
    checks: dict[str, n.Check] = msgspec.field(default_factory=dict)
    lets: dict[str, n.Let] = msgspec.field(default_factory=dict)
    tables: dict[str, n.Table] = msgspec.field(default_factory=dict)
    metrics: dict[str, n.Metric] = msgspec.field(default_factory=dict)
    case_fields: dict[str, n.CaseField] = msgspec.field(default_factory=dict)
    outcomes: dict[str | None, n.Outcome] = msgspec.field(default_factory=dict)
    """Outcome blocks by name; the unnamed verdict block under None."""
    labels: dict[str, list[str | None]] = msgspec.field(default_factory=dict)
    """Label -> the outcome blocks (names) that can give it."""
    case_block: n.CaseBlock | None = None
    header: n.SpecHeader | None = None
    review: n.Review | None = None
    examples: list[n.Example] = msgspec.field(default_factory=list)
    duplicates: list[tuple[str, object, object]] = msgspec.field(default_factory=list)
    """(name, first definition, later definition) for every clash."""

    def kind_of(self, name: str) -> str | None:
        """What a bare name refers to: check, let, table, label, outcome, or None."""
        if name in self.checks:
            return "check"
        if name in self.lets:
            return "let"
        if name in self.tables:
            return "table"
        if name in self.labels:
            return "label"
        if name in self.outcomes:
            return "outcome"
        return None

    def value_names(self) -> list[str]:
        """Every name an expression may use bare, for "did you mean" suggestions."""
        names: list[str] = [*self.checks, *self.lets, *self.tables, *self.labels]
        names.extend(o for o in self.outcomes if o is not None)
        return names


def build_symbols(module: n.Module) -> SymbolTable:
    table = SymbolTable()
    for statement in module.statements:
        _add(table, statement)
    return table


def _add(table: SymbolTable, statement: n.Statement) -> None:
    if isinstance(statement, n.Check):
        _define(table, table.checks, statement.name, statement)
    elif isinstance(statement, n.Let):
        _define(table, table.lets, statement.name, statement)
    elif isinstance(statement, n.Table):
        _define(table, table.tables, statement.name, statement)
    elif isinstance(statement, n.Metric):
        _define(table, table.metrics, statement.name, statement)
    elif isinstance(statement, n.Alert) and statement.metric is not None:
        _define(table, table.metrics, statement.name, statement.metric)
    elif isinstance(statement, n.Outcome):
        _add_outcome(table, statement)
    elif isinstance(statement, n.CaseBlock):
        _add_case_block(table, statement)
    elif isinstance(statement, n.SpecHeader):
        table.header = table.header or statement
    elif isinstance(statement, n.Review):
        table.review = table.review or statement
    elif isinstance(statement, n.Example):
        table.examples.append(statement)


def _define(table: SymbolTable, where: dict, name: str, node: object) -> None:  # type: ignore[type-arg]
    if name in where:
        table.duplicates.append((name, where[name], node))
    else:
        where[name] = node


def _add_outcome(table: SymbolTable, outcome: n.Outcome) -> None:
    if outcome.name in table.outcomes:
        table.duplicates.append((outcome.name or "", table.outcomes[outcome.name], outcome))
        return
    table.outcomes[outcome.name] = outcome
    for branch in outcome.branches:
        owners = table.labels.setdefault(branch.label, [])
        if outcome.name not in owners:
            owners.append(outcome.name)


def _add_case_block(table: SymbolTable, block: n.CaseBlock) -> None:
    if table.case_block is None:
        table.case_block = block
    for f in block.fields:
        _define(table, table.case_fields, f.name, f)
