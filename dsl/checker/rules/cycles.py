"""E109: definitions that depend on themselves.

Lets, checks (through per-case arguments) and outcome blocks (through the
labels and outcome names their conditions read) form one dependency graph;
any cycle in it would make evaluation loop, so each is reported once, at the
definition that comes first in the file.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaldsl.checker.facts.context import Context, names_in
from evaldsl.diagnostics import Diagnostic, error
from evaldsl.i18n import _
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Span

Node = tuple[str, str | None]
"""("let" | "check" | "outcome", name); the unnamed verdict block is ("outcome", None)."""


def definition_cycles(ctx: Context) -> Iterator[Diagnostic]:
    """E109 for every strongly connected group of definitions."""
    graph = dependency_graph(ctx)
    order = {node: i for i, node in enumerate(graph)}
    for component in _components(graph):
        start = min(component, key=order.__getitem__)
        if len(component) == 1 and start not in graph[start]:
            continue
        path = _cycle_through(start, component, graph)
        yield _report(ctx, start, path)


def dependency_graph(ctx: Context) -> dict[Node, list[Node]]:
    """Definitions in source order, each with the definitions it reads."""
    graph: dict[Node, list[Node]] = {}
    symbols = ctx.symbols
    for let in symbols.lets.values():
        graph[("let", let.name)] = _refs(ctx, [let.value])
    for check in symbols.checks.values():
        graph[("check", check.name)] = _refs(ctx, [a.value for a in check.args])
    for name, outcome in symbols.outcomes.items():
        conditions = [b.condition for b in outcome.branches if b.condition is not None]
        graph[("outcome", name)] = _refs(ctx, conditions)
    return dict(sorted(graph.items(), key=lambda item: _line(ctx, item[0])))


def _refs(ctx: Context, exprs: list[n.Expr]) -> list[Node]:
    symbols = ctx.symbols
    out: list[Node] = []
    for expr in exprs:
        for name, is_case in names_in(expr):
            word = name.name
            if is_case:
                continue
            if word in symbols.lets:
                out.append(("let", word))
            elif word in symbols.checks:
                out.append(("check", word))
            elif word in symbols.labels:
                out.extend(("outcome", owner) for owner in symbols.labels[word])
            elif word in symbols.outcomes:
                out.append(("outcome", word))
    return out


def _components(graph: dict[Node, list[Node]]) -> list[set[Node]]:
    """Tarjan's strongly connected components, iteratively (deep specs are legal)."""
    index: dict[Node, int] = {}
    low: dict[Node, int] = {}
    stack: list[Node] = []
    on_stack: set[Node] = set()
    found: list[set[Node]] = []
    for root in graph:
        if root in index:
            continue
        work: list[tuple[Node, int]] = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            edges = graph.get(node, [])
            if i < len(edges):
                work.append((node, i + 1))
                nxt = edges[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: set[Node] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(component)
    return found


def _cycle_through(start: Node, component: set[Node], graph: dict[Node, list[Node]]) -> list[
        Node]:
    """The shortest path from `start` back to itself inside its component."""
    previous: dict[Node, Node] = {}
    frontier = [start]
    while frontier:
        nxt: list[Node] = []
        for node in frontier:
            for succ in graph.get(node, []):
                if succ == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if succ in component and succ not in previous:
                    previous[succ] = node
                    nxt.append(succ)
        frontier = nxt
    return [start, start]


def _report(ctx: Context, start: Node, path: list[Node]) -> Diagnostic:
    chain = " → ".join(_word(node) for node in path)
    kinds = {kind for kind, _ in path}
    hint = (
        _("a let cannot be computed from its own value; break the cycle")
        if kinds == {"let"}
        else _("each value must be computable before the ones that read it; break the cycle")
    )
    return error(
        "E109",
        _("{word} depends on itself: {chain}").format(word=_word(start), chain=chain),
        _span(ctx, start),
        hint,
    )


def _word(node: Node) -> str:
    kind, name = node
    if kind == "outcome":
        return (
            _("outcome `{name}`").format(name=name)
            if name is not None
            else _("the verdict outcome")
        )
    return f"`{name}`"


def _span(ctx: Context, node: Node) -> Span:
    kind, name = node
    symbols = ctx.symbols
    if kind == "let":
        return symbols.lets[name or ""].name_span
    if kind == "check":
        return symbols.checks[name or ""].name_span
    outcome = symbols.outcomes[name]
    if outcome.name_span is not None:
        return outcome.name_span
    return outcome.branches[0].label_span if outcome.branches else outcome.span


def _line(ctx: Context, node: Node) -> tuple[int, int]:
    span = _span(ctx, node)
    return (span.line, span.col)
