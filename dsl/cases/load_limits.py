"""Limits on what a case file may make the loader build, checked without recursion.

Hostile or broken data must become an error value or a bad row, never a
`RecursionError` or an exhausted memory: tool-call arguments nested past
`MAX_ARGUMENT_DEPTH` levels, and YAML whose aliases would expand past
`MAX_YAML_NODES` nodes, are refused before anything is built from them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

MAX_ARGUMENT_DEPTH = 100
"""Levels of objects and arrays allowed in tool-call arguments (documented in docs/cases.md)."""

MAX_YAML_NODES = 1_000_000
"""Nodes one YAML row may expand to once aliases are followed (documented in docs/cases.md)."""

_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
"""Strings (skipped whole, so brackets inside them do not count) and brackets."""


def json_text_depth(text: str) -> int:
    """The deepest bracket nesting of JSON text, by a scan rather than a parse."""
    depth = deepest = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def value_depth(value: Any, limit: int) -> int:
    """The nesting depth of decoded lists and dicts, walked with a stack; stops past `limit`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, (dict, list)):
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children)
    return deepest


def yaml_expanded_size(node: yaml.Node, limit: int) -> int:
    """How many nodes `node` stands for with every alias followed; stops past `limit`.

    An alias is the same node object reached again, so sizes are summed per
    visit rather than per object: that sum is what construction and
    `json.dumps` would pay. Each distinct node's size is computed once.
    """
    sizes: dict[int, int] = {}
    for current in _post_order(node):
        # a child not yet sized is an ancestor: a recursive alias, which never ends
        total = 1 + sum(sizes.get(id(child), limit + 1) for child in _children(current))
        sizes[id(current)] = min(total, limit + 1)
    return sizes[id(node)]


def _post_order(node: yaml.Node) -> Iterator[yaml.Node]:
    """Each distinct node once, children before parents, without recursion."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, expanded = stack.pop()
        if expanded:
            yield current
            continue
        if id(current) in seen:
            continue
        seen.add(id(current))
        stack.append((current, True))
        stack.extend((child, False) for child in _children(current) if id(child) not in seen)


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    import yaml

    if isinstance(node, yaml.SequenceNode):
        yield from node.value
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield key
            yield value
