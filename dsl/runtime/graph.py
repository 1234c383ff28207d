"""A checked module as an evaluation graph: nodes, edges, a plan and costs.

Nodes are the spec's tables, lets, checks, outcome blocks, metrics and review
rules; an edge goes from a node to every name its expressions read. Each check
node knows its primitive's cost class, so the compiler can order the operands
of `and`/`or` cheapest first, and `evaldsl explain` can tell which checks every
case needs and which only some cases need (a model check behind a cheap gate).
The graph is built from the checker's `Analysis` (scopes, primitives, what is
per case) and adds structure only; `compiler` and `interpreter` give it
behaviour.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from evaldsl.cases.scopes import Scope
from evaldsl.checker.facts.analysis import Analysis, CheckFacts
from evaldsl.checker.facts.symbols import SymbolTable
from evaldsl.diagnostics import Diagnostic
from evaldsl.primitives.registry import Cost, Primitive, Registry
from evaldsl.results import VERDICT
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Source, Span

ExprCost = tuple[int, int]
"""(highest cost class read, number of model checks read): smaller goes first."""


@dataclass(frozen=True)
class CheckNode:
    name: str
    primitive: Primitive
    scope: Scope
    args: tuple[n.KeywordArg, ...]
    """Every argument except `scope`."""
    node: n.Check
    facts: CheckFacts
    """What the checker established about it: folded and per-case arguments, params."""

    @property
    def cost(self) -> Cost:
        return self.primitive.cost

    @property
    def id(self) -> str:
        return f"check:{self.name}"


@dataclass(frozen=True)
class BlockNode:
    """An outcome block; `key` is its name, or "outcome" for the unnamed verdict block."""

    key: str
    name: str | None
    branches: tuple[n.Branch, ...]
    node: n.Outcome

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(b.label for b in self.branches)

    @property
    def id(self) -> str:
        return f"outcome:{self.key}"


@dataclass
class Graph:
    """The evaluation graph of one spec."""

    title: str
    facts: Analysis
    """The checker's facts the graph and the compiler read instead of recomputing."""
    checks: tuple[CheckNode, ...]
    blocks: tuple[BlockNode, ...]
    metrics: tuple[n.Metric, ...]
    review: n.Review | None
    edges: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Node id -> the node ids it reads."""
    plan: tuple[str, ...] = ()
    """Every node id, each after the nodes it reads."""
    _costs: dict[str, ExprCost] = field(default_factory=dict)
    alerts: tuple[n.Alert, ...] = ()
    """The spec's `alert` statements; a per-case one is a slot of every case, a windowed one
    reads its metric's input (`evaldsl.watch`)."""
    warnings: tuple[Diagnostic, ...] = ()
    """The parser's and the checker's warnings about the spec, sorted (`Spec.warnings`)."""

    @property
    def source(self) -> Source:
        return self.facts.source

    @property
    def module(self) -> n.Module:
        return self.facts.module

    @property
    def registry(self) -> Registry:
        return self.facts.registry

    @property
    def symbols(self) -> SymbolTable:
        return self.facts.symbols

    @property
    def has_model_checks(self) -> bool:
        return any(c.cost is Cost.MODEL for c in self.checks)

    def check(self, name: str) -> CheckNode:
        """The check named `name` (`KeyError` when the spec has none)."""
        return self._checks_by_name[name]

    @cached_property
    def _checks_by_name(self) -> dict[str, CheckNode]:
        """Checks by name: looking one up is not a scan (10,000 checks were 50 million steps)."""
        return {c.name: c for c in self.checks}

    @cached_property
    def _blocks_by_key(self) -> dict[str, BlockNode]:
        return {b.key: b for b in self.blocks}

    def block_of_label(self, label: str) -> BlockNode:
        """The block that gives `label` (the first one when several can)."""
        owner = self.symbols.labels[label][0]
        return self.block(VERDICT if owner is None else owner)

    def block(self, key: str) -> BlockNode:
        return self._blocks_by_key[key]

    def text(self, span: Span) -> str:
        """The source text under a span, on one line."""
        src = self.source
        lines = [src.line_text(i) for i in range(span.line, span.end_line + 1)]
        if not lines:
            return ""
        if len(lines) == 1:
            return lines[0][span.col - 1 : span.end_col - 1]
        lines[0] = lines[0][span.col - 1 :]
        lines[-1] = lines[-1][: span.end_col - 1]
        return " ".join(line.strip() for line in lines)

    # ------------------------------------------------------------ dependencies

    def node_of(self, name: str) -> str | None:
        """The node a bare name in an expression reads, or None (scope words, `case`)."""
        kind = self.symbols.kind_of(name)
        if kind == "check":
            return f"check:{name}"
        if kind == "let":
            return f"let:{name}"
        if kind == "table":
            return f"table:{name}"
        if kind == "label":
            return self.block_of_label(name).id
        if kind == "outcome":
            return f"outcome:{name}"
        return None

    def reads(self, expr: n.Expr | None) -> set[str]:
        """Node ids an expression reads directly."""
        if expr is None:
            return set()
        out = set()
        for node in n.walk(expr):
            if isinstance(node, n.Name):
                target = self.node_of(node.name)
                if target is not None:
                    out.add(target)
        return out

    def per_case(self, node_id: str) -> bool:
        """Whether a node's value can differ between cases."""
        kind, name = node_id.split(":", 1)
        if kind in ("check", "outcome"):
            return True
        return kind == "let" and self.facts.let_per_case(name)

    def expr_per_case(self, expr: n.Expr) -> bool:
        return self.facts.is_per_case(expr)

    # ------------------------------------------------------------ costs

    def cost(self, expr: n.Expr | None) -> ExprCost:
        """What evaluating `expr` may cost at most: evaluate cheaper operands first."""
        total = (0, 0)
        for node_id in self.reads(expr):
            c = self.node_cost(node_id)
            total = (max(total[0], c[0]), total[1] + c[1])
        return total

    def node_cost(self, node_id: str) -> ExprCost:
        if node_id not in self._costs:
            self._costs[node_id] = (0, 0)
            kind, _, name = node_id.partition(":")
            if kind == "check":
                node = self.check(name)
                base = (int(node.cost), int(node.cost is Cost.MODEL))
                extra = self.cost_all(a.value for a in node.args)
                self._costs[node_id] = (max(base[0], extra[0]), base[1] + extra[1])
            elif kind == "let":
                self._costs[node_id] = self.cost(self.symbols.lets[name].value)
            elif kind == "outcome":
                conds = (b.condition for b in self.block(name).branches if b.condition)
                self._costs[node_id] = self.cost_all(conds)
        return self._costs[node_id]

    def cost_all(self, exprs: Iterable[n.Expr]) -> ExprCost:
        total = (0, 0)
        for e in exprs:
            c = self.cost(e)
            total = (max(total[0], c[0]), total[1] + c[1])
        return total

    def order(self, operands: Iterable[n.Expr]) -> list[n.Expr]:
        """Operands of a commutative `and`/`or` chain, cheapest first (stable)."""
        return sorted(operands, key=self.cost)


def flatten(expr: n.Expr, op: str) -> list[n.Expr]:
    """The operands of a chain of one logical operator: `a and (b and c)` -> [a, b, c]."""
    while isinstance(expr, n.Group):
        expr = expr.expr
    if isinstance(expr, n.Binary) and expr.op == op:
        return flatten(expr.left, op) + flatten(expr.right, op)
    return [expr]


# ---------------------------------------------------------------- building


def build_graph(facts: Analysis) -> Graph:
    """The graph of a module the checker passed, from the checker's facts."""
    symbols = facts.symbols
    checks = tuple(_check_node(s, facts.checks[s.name]) for s in symbols.checks.values())
    blocks = tuple(BlockNode(VERDICT if o.name is None else o.name, o.name, o.branches, o)
                   for o in symbols.outcomes.values())
    title = symbols.header.title if symbols.header else facts.source.name
    graph = Graph(title, facts, checks, blocks, tuple(symbols.metrics.values()), symbols.review)
    graph.alerts = tuple(facts.module.of_type(n.Alert))
    graph.edges = _edges(graph)
    graph.plan = _topological(graph.edges)
    for node_id in graph.plan:  # each cost then reads costs already known: no recursion
        graph.node_cost(node_id)
    return graph


def _check_node(check: n.Check, facts: CheckFacts) -> CheckNode:
    args = tuple(a for a in check.args if a.name != "scope")
    return CheckNode(check.name, facts.primitive, facts.scope, args, check, facts)


def _edges(graph: Graph) -> dict[str, tuple[str, ...]]:
    sym = graph.symbols
    edges: dict[str, set[str]] = {f"table:{t}": set() for t in sym.tables}
    for let in sym.lets.values():
        edges[f"let:{let.name}"] = graph.reads(let.value)
    for check in graph.checks:
        edges[check.id] = set().union(*(graph.reads(a.value) for a in check.args))
    for block in graph.blocks:
        edges[block.id] = set().union(*(graph.reads(b.condition) for b in block.branches))
    for metric in graph.metrics:
        edges[f"metric:{metric.name}"] = graph.reads(metric.value) | graph.reads(metric.where)
    if graph.review is not None:
        rules = graph.review.rules
        edges["review"] = set().union(
            *(graph.reads(r.where) | graph.reads(r.priority) | graph.reads(r.rate) for r in rules))
    return {k: tuple(sorted(v)) for k, v in edges.items()}


def _topological(edges: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Every node after the nodes it reads, keeping spec order among independent nodes.

    The order of Kahn's rounds: a node's round is one more than the latest round among
    the nodes it reads (0 when it reads none), and nodes are sorted stably by round. The
    rounds are computed in one pass over a stack, not by rescanning the pending nodes each
    round, so a chain of n lets costs n steps, not n squared. The checker has rejected
    every cycle (E109).
    """
    rounds: dict[str, int] = {}
    bound = len(edges) + sum(map(len, edges.values()))
    """More entries than nodes plus edges on the stack only a cycle can push."""
    for root in edges:
        stack = [root]
        while stack:
            node = stack[-1]
            if node in rounds:
                stack.pop()
                continue
            waiting = [d for d in edges[node] if d not in rounds]
            if waiting:
                assert len(stack) <= bound, "the checker reports cycles (E109)"
                stack.extend(waiting)
                continue
            rounds[node] = 1 + max((rounds[d] for d in edges[node]), default=-1)
            stack.pop()
    return tuple(sorted(edges, key=rounds.__getitem__))
