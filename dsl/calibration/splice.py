"""A check's `examples:` argument written into a spec's text, in place of any written or added
before the call closes: the one splice `--shots-for` and `--examples-for` propose as a patch."""

from __future__ import annotations

from evaldsl.runtime.graph import CheckNode
from evaldsl.syntax.source import Source


def spliced_examples(source: Source, check: CheckNode, items: str) -> str:
    """The spec's text with the check's `examples:` argument set to the list `items` (one
    written item a line), in place of any written, or added before the call closes."""
    written = check.node.arg("examples")
    text = source.text
    if written is not None:
        start = source.offset(written.name_span.line, written.name_span.col)
        end = source.offset(written.value.span.end_line, written.value.span.end_col)
        return text[:start] + f"examples: [\n{items}\n  ]" + text[end:]
    span = check.node.span
    close = source.offset(span.end_line, span.end_col) - 1
    return text[:close] + f",\n  examples: [\n{items}\n  ]" + text[close:]
