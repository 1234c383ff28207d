"""The graph's plan: every node after what it reads, in Kahn's rounds, in linear work."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.runtime.graph import _topological


def _rounds(edges: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The definition: each round takes every node whose reads are done, in spec order."""
    order: list[str] = []
    pending = list(edges)
    while pending:
        ready = [x for x in pending if all(d in order for d in edges[x])]
        order.extend(ready)
        pending = [x for x in pending if x not in ready]
    return tuple(order)


@st.composite
def dags(draw: st.DrawFn) -> dict[str, tuple[str, ...]]:
    """Nodes in a shuffled spec order, each reading only nodes made before it."""
    count = draw(st.integers(0, 30))
    made = [f"n{i}" for i in range(count)]
    reads = {name: tuple(draw(st.lists(st.sampled_from(made[:i]), max_size=4, unique=True))
                         if i else ()) for i, name in enumerate(made)}
    spec_order = draw(st.permutations(made))
    return {name: reads[name] for name in spec_order}


class TestPlan:
    @settings(max_examples=200, deadline=None)
    @given(dags())
    def test_law_the_order_of_kahns_rounds(self, edges: dict[str, tuple[str, ...]]) -> None:
        """Law: the plan is Kahn's rounds with spec order kept inside each round."""
        assert _topological(edges) == _rounds(edges)

    def test_a_long_chain_written_backwards(self) -> None:
        """A chain whose last link comes first in the spec is planned from its first link."""
        edges = {f"let:v{i}": ((f"let:v{i - 1}",) if i else ()) for i in reversed(range(5000))}
        assert _topological(edges) == tuple(f"let:v{i}" for i in range(5000))
