"""Inlay hints: after each check, the model calls per case `explain` estimates for it.

The estimate needs the evaluation graph, so a spec with errors shows none until it
checks clean again.
"""

from __future__ import annotations

from evaldsl.service.documents import Snapshot
from evaldsl.service.items import InlayHint
from evaldsl.service.positions import Range


def inlay_hints(snapshot: Snapshot, where: Range) -> list[InlayHint]:
    graph = snapshot.graph
    if graph is None:
        return []
    from evaldsl.analysis.explain import model_calls

    calls = model_calls(graph)
    hints: list[InlayHint] = []
    for check in graph.checks:
        span = check.node.span
        end = snapshot.lines.position(span.end_line - 1, span.end_col - 1)
        if where.start <= end <= where.end:
            hints.append(InlayHint(end, f"  {calls[check.name]}"))
    return hints
