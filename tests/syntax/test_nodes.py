"""The syntax tree's nodes: what a node is, not where it stands, decides equality and hash."""

from __future__ import annotations

import msgspec
import pytest

from evaldsl.syntax import nodes as n
from evaldsl.syntax.parser import parse
from evaldsl.syntax.source import Span

HERE = Span("a.eval", 1, 1, 1, 4)
THERE = Span("b.eval", 7, 3, 7, 6)


class TestNodes:
    def test_spans_are_not_compared(self) -> None:
        """Two names at different places are equal and hash alike; another name is not."""
        one, two = n.Name("x", HERE), n.Name("x", THERE)
        assert one == two and hash(one) == hash(two) and len({one, two}) == 1
        assert n.Name("y", HERE) != one

    def test_nodes_of_different_classes_differ(self) -> None:
        """A text and a name spelt alike are not equal."""
        assert n.String("x", HERE) != n.Name("x", HERE)

    def test_uncompared_fields(self) -> None:
        """How a key was written and the positional arguments do not make nodes differ."""
        value = n.Number(1.0, "1", HERE)
        assert (n.MapEntry("k", value, HERE, HERE, quoted=True)
                == n.MapEntry("k", value, THERE, THERE))
        check = n.Check("c", "keyword", (), HERE, HERE, HERE)
        assert check == msgspec.structs.replace(check, positional=(value,))

    def test_hash_is_the_compared_fields_tuple(self) -> None:
        """As a frozen dataclass's: the hash of the tuple of compared fields."""
        assert hash(n.Bool(True, HERE)) == hash((True,))
        assert hash(n.Number(2.0, "2", HERE)) == hash((2.0, "2"))

    def test_frozen(self) -> None:
        """A node cannot be changed in place."""
        with pytest.raises(AttributeError):
            n.Name("x", HERE).name = "y"  # type: ignore[misc]

    def test_children_skip_an_alerts_derived_metric(self) -> None:
        """An alert's own metric is made of its condition: walked once, as the condition."""
        text = 'check ok = keyword(any: ["a"])\nalert low when rate(ok) < 50% over 1h "low"\n'
        module = parse(text).module
        assert module is not None
        alert = module.of_type(n.Alert)[0]
        assert alert.metric is not None
        assert alert.metric not in list(n.children(alert))
        assert list(n.children(alert)) == [alert.when, alert.window]
