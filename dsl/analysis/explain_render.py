"""The evaluation graph as a text tree, Graphviz `dot` or `mermaid` source."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from evaldsl.analysis.explain import EVERY, FORMATS, NEVER, Needs, needs, samples_of
from evaldsl.cases.scopes import scope_words
from evaldsl.i18n import N_, _
from evaldsl.runtime.graph import CheckNode, Graph
from evaldsl.syntax import nodes as n

_COST_WORDS = {0: N_("free"), 1: N_("cheap"), 2: N_("model call")}
"""Cost classes in words, msgids translated where shown."""


def _scope(check: CheckNode) -> str:
    """The scope, and in words what it shows the check when the spec left it to the default."""
    if check.node.arg("scope") is not None:
        return str(check.scope)
    return _("{scope} (the default: {words})").format(scope=check.scope,
                                                     words=scope_words(check.scope))


def _cost(check: CheckNode) -> str:
    """The cost class in words; `model call ×3` for a check asked with `votes: 3` (or
    of three judges)."""
    words = _(_COST_WORDS[int(check.cost)])
    votes, judges = samples_of(check)
    return f"{words} ×{votes * judges}" if votes * judges > 1 else words


def render_text(graph: Graph, needs: Needs) -> str:
    lines = [
        f'spec "{graph.title}"',
        "",
        _(
            "checks (cheapest first): {every} needed by every case, {some} by some cases, "
            "{never} never"
        ).format(every=len(needs.every), some=len(needs.some), never=len(needs.never)),
    ]
    width = max((_width(c.name) for c in graph.checks), default=0)
    pwidth = max((len(c.primitive.name) for c in graph.checks), default=0)
    for check in sorted(graph.checks, key=lambda c: int(c.cost)):
        readers = ", ".join(_label(r) for r in _readers(graph, check.id))
        lines.append(
            f"  {_pad(check.name, width)}  {check.primitive.name:<{pwidth}}  "
            f"{_pad(_cost(check), 10)}  {_pad(_(needs.of(check.name)), 10)}"
            f"  scope {_scope(check)}" + (f"  -> {readers}" if readers else "")
        )
    for block in graph.blocks:
        title = "outcome" if block.name is None else f"outcome {block.name}"
        lines.extend(["", title])
        for branch in block.branches:
            reads = _reads(graph, branch.condition)
            lines.append(
                f"  {graph.text(branch.span)}"
                + (_("   [reads {reads}]").format(reads=reads) if reads else "")
            )
    if graph.metrics:
        lines.extend(["", "metrics"])
        lines.extend(f"  {graph.text(m.span)}" for m in graph.metrics)
    if graph.review is not None:
        lines.extend(["", "review"])
        lines.extend(f"  {graph.text(r.span)}" for r in graph.review.rules)
    plan = " -> ".join(_label(x) for x in graph.plan)
    lines.extend(["", _("plan: {plan}").format(plan=plan)])
    return "\n".join(lines) + "\n"


def render_dot(graph: Graph, needs: Needs) -> str:
    lines = ["digraph spec {", "  rankdir=LR;", f"  label={_dq(graph.title)};",
             "  node [fontname=\"sans-serif\"];"]
    for node_id in graph.plan:
        lines.append(f"  {_dq(node_id)} [{_dot_attrs(graph, needs, node_id)}];")
    for node_id, deps in graph.edges.items():
        lines.extend(f"  {_dq(d)} -> {_dq(node_id)};" for d in deps)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_attrs(graph: Graph, needs: Needs, node_id: str) -> str:
    kind, name = node_id.split(":", 1) if ":" in node_id else (node_id, node_id)
    if kind != "check":
        shape = {"outcome": "diamond", "metric": "note", "let": "ellipse",
                 "table": "folder"}.get(kind, "hexagon")
        return f"label={_dq(_label(node_id))}, shape={shape}"
    check = graph.check(name)
    need = needs.of(name)
    style = "solid" if need == EVERY else "dotted" if need == NEVER else "dashed"
    text = f"{name}\n{check.primitive.name} · {_(_COST_WORDS[int(check.cost)])}\n{_(need)}"
    return f"label={_dq(text)}, shape=box, style={style}"


def render_mermaid(graph: Graph, needs: Needs) -> str:
    ids = {node_id: f"n{i}" for i, node_id in enumerate(graph.plan)}
    lines = ["flowchart LR"]
    for node_id in graph.plan:
        lines.append(f"  {ids[node_id]}{_mermaid_shape(graph, needs, node_id)}")
    for node_id, deps in graph.edges.items():
        lines.extend(f"  {ids[d]} --> {ids[node_id]}" for d in deps if d in ids)
    lines.append("  classDef some stroke-dasharray: 5 5;")
    lines.append("  classDef never stroke-dasharray: 1 4, color:#888;")
    some = [ids[f"check:{c}"] for c in sorted(needs.some)]
    never = [ids[f"check:{c}"] for c in sorted(needs.never)]
    if some:
        lines.append(f"  class {','.join(some)} some;")
    if never:
        lines.append(f"  class {','.join(never)} never;")
    return "\n".join(lines) + "\n"


def _mermaid_shape(graph: Graph, needs: Needs, node_id: str) -> str:
    kind, name = node_id.split(":", 1) if ":" in node_id else (node_id, node_id)
    if kind == "check":
        check = graph.check(name)
        text = (
            f"{name}<br/>{check.primitive.name} · {_(_COST_WORDS[int(check.cost)])}"
            f"<br/>{_(needs.of(name))}"
        )
        return f"[{_mq(text)}]"
    if kind == "outcome":
        return "{" + _mq(_label(node_id)) + "}"
    return f"([{_mq(_label(node_id))}])"


def _width(text: str) -> int:
    """Terminal columns: East Asian wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _readers(graph: Graph, node_id: str) -> list[str]:
    return [k for k, deps in graph.edges.items() if node_id in deps]


def _reads(graph: Graph, expr: n.Expr | None) -> str:
    return ", ".join(sorted(_label(x) for x in graph.reads(expr)))


def _label(node_id: str) -> str:
    """`check:intent` -> `intent`, `outcome:outcome` -> `outcome`, `metric:m` -> `metric m`."""
    if ":" not in node_id:
        return node_id
    kind, name = node_id.split(":", 1)
    if kind in ("check", "let"):
        return name
    if kind == "outcome":
        return "outcome" if name == "outcome" else f"outcome {name}"
    return f"{kind} {name}"


def _dq(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _mq(text: str) -> str:
    return '"' + text.replace('"', "#quot;") + '"'


def render(graph: Graph, fmt: str = "text") -> str:
    """The graph as a text tree, or as Graphviz `dot` or `mermaid` source."""
    renderers: dict[str, Callable[[Graph, Needs], str]] = {
        "text": render_text, "dot": render_dot, "mermaid": render_mermaid}
    if fmt not in renderers:
        raise ValueError(f"unknown format `{fmt}`; use one of {', '.join(FORMATS)}")
    return renderers[fmt](graph, needs(graph))
