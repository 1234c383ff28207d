"""What a spec computes, and for which cases: `evaldsl explain`.

Every outcome block evaluates its first branch, every metric its `where` (or
its arguments when it has none), the review its first rule: the checks those
read first, cheapest operand first as the interpreter does, are needed by
*every* case. Checks reached only after a cheap operand leaves a branch open
(a model check behind a cheap gate, a metric argument behind its `where`)
are needed by *some* cases; checks nothing reads are never computed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from evaldsl.i18n import N_, _
from evaldsl.primitives.registry import Cost
from evaldsl.runtime.aggregation import AGGREGATES
from evaldsl.runtime.graph import BlockNode, CheckNode, Graph, flatten
from evaldsl.syntax import nodes as n

_Follow = Callable[[n.Expr | None], set[str]]

EVERY, SOME, NEVER = N_("every case"), N_("some cases"), N_("never")
"""Msgids: compared as they are, translated only where shown."""
FORMATS = ("text", "dot", "mermaid")


@dataclass(frozen=True)
class Needs:
    every: frozenset[str]
    some: frozenset[str]
    never: frozenset[str]

    def of(self, check: str) -> str:
        return EVERY if check in self.every else SOME if check in self.some else NEVER


def needs(graph: Graph) -> Needs:
    """Which checks every case needs, which only some cases, which none."""
    walker = _Walker(graph)
    every: set[str] = set()
    reached: set[str] = set()
    for block in graph.blocks:
        every |= walker.block_always(block)
        reached |= walker.block_reached(block)
    for metric in graph.metrics:
        args = _aggregate_args(metric.value)
        first = [metric.where] if metric.where is not None else args
        every |= set().union(*(walker.always(e) for e in first))
        reached |= set().union(*(walker.reached(e) for e in [*args, *first]))
    if graph.review is not None and graph.review.rules:
        rules = graph.review.rules
        if rules[0].where is not None:
            every |= walker.always(rules[0].where)
        for r in rules:
            reached |= walker.reached(r.where) | walker.reached(r.priority)
    names = {c.name for c in graph.checks}
    return Needs(frozenset(every), frozenset(reached - every), frozenset(names - reached))


def samples_of(check: CheckNode) -> tuple[int, int]:
    """(votes, judges): the samples asked of each judge, and the judges asked."""
    constants = check.facts.constants
    judges = constants.get("judges")
    return int(constants.get("votes", 1)), len(judges) if isinstance(judges, list) else 1


class Calls(NamedTuple):
    """The model calls one check makes for a case: at least `low`, at most `high`."""

    low: int
    high: int
    votes: int = 1
    """Samples of each answer (`votes:`), already counted in `low` and `high`."""
    judges: int = 1
    """Judge models asked (`judges:`), already counted in `low` and `high`."""

    def __str__(self) -> str:
        if self.high == 0:
            return _("no model call")
        if self.low == self.high:
            words = _("{count} model call per case").format(count=self.high)
        else:
            words = _("at most {count} model call per case").format(count=self.high)
        if self.judges > 1:
            words = _("{calls} (×{judges} judges)").format(calls=words, judges=self.judges)
        if self.votes > 1:
            return _("{calls} (×{votes} votes)").format(calls=words, votes=self.votes)
        return words


def model_calls(graph: Graph) -> dict[str, Calls]:
    """Each check's model calls per case, estimated from what cases need: a model check
    every case needs makes one, one only some cases need at most one, any other none;
    a check with `votes: N` makes N times as many, and one with `judges: [...]` as many
    times again as it names judges.

    An upper bound on requests: the model layer may fuse several checks about the same
    text into one request (`evaldsl.model.fusion`), and the answer cache may make none.
    """
    found = needs(graph)
    by_need = {EVERY: (1, 1), SOME: (0, 1), NEVER: (0, 0)}
    out: dict[str, Calls] = {}
    for c in graph.checks:
        low, high = by_need[found.of(c.name)] if c.cost is Cost.MODEL else (0, 0)
        votes, judges = samples_of(c)
        out[c.name] = Calls(low * votes * judges, high * votes * judges,
                            votes if high else 1, judges if high else 1)
    return out


def _aggregate_args(e: n.Expr) -> list[n.Expr]:
    return [x.args[0] for x in n.walk(e)
            if isinstance(x, n.Call) and x.func in AGGREGATES and x.args]


class _Walker:
    """`always`: checks computed whenever an expression is; `reached`: any it may compute."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self._busy: set[str] = set()

    def always(self, e: n.Expr | None) -> set[str]:
        if e is None:
            return set()
        while isinstance(e, n.Group):
            e = e.expr
        if isinstance(e, n.Binary) and e.op in n.LOGIC_OPS:
            return self._chain(self.graph.order(flatten(e, e.op)))
        if isinstance(e, n.Name):
            return self._name(e.name, self.always, first_only=True)
        return set().union(*(self.always(c) for c in _subexpressions(e)))

    def _chain(self, operands: list[n.Expr]) -> set[str]:
        """Operands are read in order until one may decide the chain; a model operand
        cannot before its round resolves, so the interpreter reads past it."""
        out: set[str] = set()
        for operand in operands:
            out |= self.always(operand)
            if not self._open_first_round(operand):
                break
        return out

    def _open_first_round(self, e: n.Expr) -> bool:
        """Whether `e` is pending (or an error) in a case's first round, whatever the rest."""
        while isinstance(e, (n.Group, n.Unary)):
            e = e.expr if isinstance(e, n.Group) else e.operand
        if isinstance(e, n.Attribute):
            e = e.obj
        if isinstance(e, n.Name):
            kind = self.graph.symbols.kind_of(e.name)
            if kind == "check":
                return self.graph.check(e.name).cost is Cost.MODEL
            if kind == "let" and self.graph.per_case(f"let:{e.name}"):
                return self._open_first_round(self.graph.symbols.lets[e.name].value)
            return False
        if isinstance(e, n.Binary) and e.op not in n.LOGIC_OPS:
            return self._open_first_round(e.left) or self._open_first_round(e.right)
        return False

    def reached(self, e: n.Expr | None) -> set[str]:
        if e is None:
            return set()
        out: set[str] = set()
        for x in n.walk(e):
            if isinstance(x, n.Name):
                out |= self._name(x.name, self.reached, first_only=False)
        return out

    def block_always(self, block: BlockNode) -> set[str]:
        return self._branches(block.branches)

    def _branches(self, branches: tuple[n.Branch, ...]) -> set[str]:
        """Checks read on every path through the branches: the first condition's, and
        those read both when it holds and when it fails and the next branches are read
        (`ok if gate and polite` then `partial if polite` reads `polite` either way)."""
        if not branches or branches[0].condition is None:
            return set()
        first = branches[0].condition
        return self.always(first) | (
            self.when(first, True) & (self.when(first, False) | self._branches(branches[1:])))

    def when(self, e: n.Expr, outcome: bool) -> set[str]:
        """Checks read whenever `e` comes out `outcome`: every operand of an `and` that
        holds, of an `or` that fails; otherwise what is read whatever the outcome."""
        while isinstance(e, n.Group):
            e = e.expr
        if isinstance(e, n.Unary) and e.op == "not":
            return self.when(e.operand, not outcome)
        if isinstance(e, n.Binary) and e.op in n.LOGIC_OPS and (e.op == "and") == outcome:
            return set().union(*(self.when(x, outcome) for x in flatten(e, e.op)))
        return self.always(e)

    def block_reached(self, block: BlockNode) -> set[str]:
        return set().union(*(self.reached(b.condition) for b in block.branches))

    def _name(self, name: str, follow: _Follow, first_only: bool) -> set[str]:
        node_id = self.graph.node_of(name)
        if node_id is None or node_id in self._busy:
            return set()
        self._busy.add(node_id)
        try:
            return self._node(node_id, follow, first_only)
        finally:
            self._busy.discard(node_id)

    def _node(self, node_id: str, follow: _Follow, first_only: bool) -> set[str]:
        kind, name = node_id.split(":", 1)
        graph = self.graph
        if kind == "check":
            args = [a.value for a in graph.check(name).args if graph.expr_per_case(a.value)]
            return {name}.union(*(follow(a) for a in args))
        if kind == "let" and graph.per_case(node_id):
            return follow(graph.symbols.lets[name].value)
        if kind == "outcome":
            block = graph.block(name)
            return self.block_always(block) if first_only else self.block_reached(block)
        return set()


def _subexpressions(e: n.Expr) -> Iterable[n.Expr]:
    for child in n.children(e):
        if isinstance(child, n.KeywordArg):
            yield child.value
        elif isinstance(child, n.MapEntry):
            yield child.value
        else:
            yield child  # type: ignore[misc]
