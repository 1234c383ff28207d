"""What every checker rule reads: the module, its symbols and shared analyses.

Rules are plain functions `rule(ctx) -> Iterable[Diagnostic]`. Analyses that
several rules need (folded check arguments, the types of lets, which
expressions sit where) are computed once, lazily, into the typed fields of the
`Context`, so adding a rule never makes the checker walk the spec again for the
same facts. The fact modules compute; the context only holds what they found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

import msgspec

from evaldsl.checker.facts.choices import read_choice_words
from evaldsl.checker.facts.symbols import SymbolTable, build_symbols
from evaldsl.diagnostics import Diagnostic, meant, similar
from evaldsl.primitives.registry import Primitive, Registry
from evaldsl.primitives.valuetypes import CASE_FIELD_TYPES, ValueType
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Source

if TYPE_CHECKING:
    from evaldsl.checker.facts.arguments import Arguments
    from evaldsl.checker.facts.conditions import Conjunction
    from evaldsl.checker.facts.ranges import Range
    from evaldsl.primitives.tables import NormalizationTable

V = TypeVar("V")

Role = Literal[
    "let", "arg", "condition", "metric", "where", "sample", "priority", "expect", "given",
    "example_case", "option", "group", "alert",
]
"""Where an expression sits; it decides which types and aggregates it may have."""

SCOPE_ARG = "scope"
"""The argument every check accepts; the framework, not the primitive, reads it."""

CONDITION_ROLES = frozenset({"condition", "where", "expect", "alert"})
"""Roles whose expression must be true or false."""


class Site(msgspec.Struct, frozen=True):
    """One top-level expression of the spec and the statement that holds it."""

    expr: n.Expr
    role: Role
    owner: object
    """The statement (or branch, rule, example item) the expression belongs to."""
    key: str = ""
    """The argument or option name when the expression is one's value."""


class Context:
    """The facts about one module that rules share; each computed at most once."""

    def __init__(self, module: n.Module, source: Source, registry: Registry) -> None:
        self.source = source
        self.registry = registry
        symbols = build_symbols(module)
        self.module = read_choice_words(module, symbols, registry)
        self.symbols: SymbolTable = (
            symbols if self.module is module else build_symbols(self.module))
        self._suggestions = 0
        self.let_values: LetFacts[Any] = LetFacts(self)
        """Each let's folded constant (`consts.let_value`)."""
        self.let_types: LetFacts[ValueType] = LetFacts(self)
        """Each let's static type (`typer.TypeEnv.let_type`)."""
        self.let_ranges: LetFacts[Range | None] = LetFacts(self)
        """Each let's value range (`ranges.value_range`)."""
        self.lets_with_unknowns: LetFacts[bool] = LetFacts(self)
        """Whether a let reads a name that refers to nothing (`arguments.mentions_unknown`)."""
        self.per_case_lets: LetFacts[bool] = LetFacts(self)
        """Whether a let's value differs between cases (`percase.is_per_case`)."""
        self.arguments: dict[int, Arguments | None] = {}
        """Each check's analysed arguments, by the check node's id (`arguments.arguments`)."""
        self.tables: dict[str, NormalizationTable] = {}
        """Each table as the runtime builds it (`consts.table_value`)."""
        self.conjunctions: dict[int, list[Conjunction] | None] = {}
        """Each condition in disjunctive normal form, by node id (`conditions.dnf`)."""
        self.expr_types: dict[int, ValueType] = {}
        """The static type of every expression the type rule visited, by node id."""
        self.reachable: set[str] | None = None
        """The names outcomes, metrics, reviews and examples read (`usage.reachable`)."""

    @cached_property
    def value_names(self) -> list[str]:
        """Every name an expression may use bare (checks, lets, tables, labels, outcomes)."""
        return self.symbols.value_names()

    def similar(self, name: str, candidates: Iterable[str]) -> str | None:
        """`similar` over names the spec defines, within a budget per module.

        Each lookup scans every candidate; a generated spec with thousands of
        unknown names would make that quadratic, so only the first
        `MAX_SUGGESTIONS` unknown names get a "did you mean".
        """
        self._suggestions += 1
        if self._suggestions > MAX_SUGGESTIONS:
            return None
        return similar(name, candidates)

    def did_you_mean(self, name: str, candidates: Iterable[str]) -> str:
        return meant(self.similar(name, candidates))

    @cached_property
    def case_types(self) -> Mapping[str, ValueType] | None:
        """Declared case field types, or None when the spec has no `case` block."""
        if self.symbols.case_block is None:
            return None
        return {
            name: CASE_FIELD_TYPES.get(f.type, ValueType.ANY)
            for name, f in self.symbols.case_fields.items()
        }

    @cached_property
    def checks(self) -> list[n.Check]:
        return self.module.of_type(n.Check)

    @cached_property
    def sites(self) -> list[Site]:
        """Every top-level expression in source order, with its role."""
        return list(_sites(self.module))

    @cached_property
    def site_exprs(self) -> list[tuple[Site, list[n.Expr]]]:
        """Each site with every expression under it, walked once for all rules."""
        return [(site, sub_exprs(site.expr)) for site in self.sites]

    def primitive_of(self, check: n.Check) -> Primitive | None:
        return self.registry.get(check.primitive)

    def primitive_named(self, check_name: str) -> Primitive | None:
        check = self.symbols.checks.get(check_name)
        return self.registry.get(check.primitive) if check is not None else None

    @cached_property
    def let_order(self) -> list[str]:
        """Lets with the lets they read first (cycles broken anywhere).

        Facts about lets are computed in this order, so reading a let's fact
        never recurses: a chain of a thousand lets costs no stack depth.
        """
        lets = self.symbols.lets
        done: set[str] = set()
        order: list[str] = []
        for root in lets:
            stack: list[tuple[str, bool]] = [(root, False)]
            while stack:
                name, expanded = stack.pop()
                if expanded:
                    order.append(name)
                    continue
                if name in done:
                    continue
                done.add(name)
                stack.append((name, True))
                for ref, is_case in names_in(lets[name].value):
                    if not is_case and ref.name in lets and ref.name not in done:
                        stack.append((ref.name, False))
        return order



class LetFacts(Generic[V]):
    """One fact per let, computed for every let in `let_order` on the first read.

    While the facts are being filled they are already readable, so computing
    one let's fact can read the facts of the lets it depends on; a let in a
    cycle finds none and gets the default.
    """

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._facts: dict[str, V] | None = None

    def get(self, name: str, compute: Callable[[str], V], default: V) -> V:
        """The fact of the let `name`, filling all of them with `compute` the first time."""
        if self._facts is None:
            self._facts = {}
            for let in self._ctx.let_order:
                self._facts[let] = compute(let)
        return self._facts.get(name, default)


Rule = Callable[[Context], Iterable[Diagnostic]]

MAX_SUGGESTIONS = 100
"""Unknown names per module that get a "did you mean" (see `Context.similar`)."""


def _sites(module: n.Module) -> Iterator[Site]:
    for statement in module.statements:
        yield from _statement_sites(statement)


def _statement_sites(s: n.Statement) -> Iterator[Site]:
    if isinstance(s, n.Let):
        yield Site(s.value, "let", s)
    elif isinstance(s, n.Check):
        yield from (Site(a.value, "arg", s, a.name) for a in s.args if a.name != SCOPE_ARG)
    elif isinstance(s, n.Outcome):
        yield from (Site(b.condition, "condition", b) for b in s.branches if b.condition)
    elif isinstance(s, n.Metric):
        yield from _metric_sites(s)
    elif isinstance(s, n.Review):
        yield from _review_sites(s)
    elif isinstance(s, n.Example):
        yield from _example_sites(s)
    elif isinstance(s, n.Alert) and s.window is None:
        yield Site(s.when, "alert", s)
    elif isinstance(s, n.Alert) and s.metric is not None:
        yield from _metric_sites(s.metric)
    elif isinstance(s, n.Table):
        yield from (Site(o.value, "option", s, o.name) for o in s.options if o.value is not None)


def _metric_sites(metric: n.Metric) -> Iterator[Site]:
    yield Site(metric.value, "metric", metric)
    if metric.where is not None:
        yield Site(metric.where, "where", metric)
    yield from (Site(key, "group", metric) for key in metric.by)


def _review_sites(review: n.Review) -> Iterator[Site]:
    for o in review.options:
        if o.value is not None:
            yield Site(o.value, "option", review, o.name)
    for rule in review.rules:
        yield Site(rule.rate, "sample", rule)
        if rule.where is not None:
            yield Site(rule.where, "where", rule)
        if rule.priority is not None:
            yield Site(rule.priority, "priority", rule)


def _example_sites(example: n.Example) -> Iterator[Site]:
    for item in example.items:
        if isinstance(item, n.ExampleExpect):
            yield Site(item.condition, "expect", item)
        elif isinstance(item, n.ExampleGiven):
            yield Site(item.value, "given", item)
        elif isinstance(item, n.ExampleCase):
            yield Site(item.fields, "example_case", item)
        elif isinstance(item, n.ExampleMessage) and item.extra is not None:
            yield Site(item.extra, "example_case", item)


def sub_exprs(expr: n.Expr) -> list[n.Expr]:
    """Every expression under `expr` (itself included) in source order, without recursion."""
    out: list[n.Expr] = []
    stack: list[n.Expr] = [expr]
    children = _CHILDREN.get
    while stack:
        e = stack.pop()
        out.append(e)
        found = children(type(e))
        if found is not None:
            stack.extend(found(e))
    return out


def expr_children(e: n.Expr) -> list[n.Expr]:
    """The direct sub-expressions of `e`, last first (ready to push on a stack)."""
    found = _CHILDREN.get(type(e))
    return found(e) if found is not None else []


_CHILDREN: dict[type, Callable[[Any], list[n.Expr]]] = {
    n.Binary: lambda e: [e.right, e.left],
    n.Unary: lambda e: [e.operand],
    n.Group: lambda e: [e.expr],
    n.Attribute: lambda e: [e.obj],
    n.Index: lambda e: [e.index, e.obj],
    n.Call: lambda e: [*reversed([k.value for k in e.kwargs]), *reversed(e.args)],
    n.ListLit: lambda e: list(reversed(e.items)),
    n.MapLit: lambda e: [entry.value for entry in reversed(e.entries)],
}


unwrap = n.unwrap
"""`expr` without enclosing parentheses (`evaldsl.syntax.nodes.unwrap`, read by many rules
from here)."""


def names_in(expr: n.Expr) -> Iterator[tuple[n.Name, bool]]:
    """Every name `expr` refers to, and whether it is the `case` of a `case.x` read."""
    stack: list[n.Expr] = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, n.Name):
            yield e, False
        elif isinstance(e, n.Attribute) and isinstance(e.obj, n.Name) and e.obj.name == "case":
            yield e.obj, True
        else:
            stack.extend(expr_children(e))
