"""What a report needs to know about a spec besides its results.

Results name blocks, branches and checks by key and index; people want the
branch as it was written (`success if intent.passed and completion >= 0.8`),
the primitive behind a check and the `where` of a metric. `SpecLayout` reads
those from the spec's own syntax tree once, so every writer shows the spec in
its author's words.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import msgspec

from evaldsl.syntax import nodes as n
from evaldsl.syntax.parser import parse
from evaldsl.syntax.source import Source, Span

VERDICT = "outcome"
"""The key of the unnamed outcome block in results (`evaldsl.results.VERDICT`)."""
GROUP_TYPES = frozenset({"text", "bool"})
"""Case field types whose values name groups of cases (a number or a list does not)."""


class Block(msgspec.Struct, frozen=True):
    key: str
    """`outcome` for the unnamed verdict block, else the block's name."""
    labels: tuple[str, ...]
    """Labels in branch order."""
    branches: tuple[str, ...]
    """Each branch as written."""


class MetricInfo(msgspec.Struct, frozen=True):
    name: str
    expression: str
    where: str | None
    lower_is_better: bool = False
    """`lower is better` (`越低越好`) written after the metric: gates and reports read a rise
    as worse."""


class SpecLayout(msgspec.Struct, frozen=True):
    name: str
    title: str | None
    path: str | None
    hash: str
    """sha256 hex digest of the spec text."""
    blocks: tuple[Block, ...] = ()
    checks: dict[str, str] = msgspec.field(default_factory=dict)
    """check name -> primitive name, in spec order."""
    metrics: dict[str, MetricInfo] = msgspec.field(default_factory=dict)
    review_rules: tuple[str, ...] = ()
    """Each `sample` rule of the review block as written."""
    groups: tuple[str, ...] = ()
    """The `case {}` block's text and bool fields: what a report can break cases down by."""


def layout_of(source: Source, path: str | None = None,
              module: n.Module | None = None) -> SpecLayout:
    """The layout of a spec's text (which is assumed to parse: it was loaded); `module`, the
    text's syntax tree when the caller has it, spares parsing the text again."""
    digest = hashlib.sha256(source.text.encode("utf-8")).hexdigest()
    if module is None:
        module = parse(source.text, source.name).module
    stem = Path(path).stem if path else source.name
    if module is None:
        return SpecLayout(stem, None, path, digest)
    header = next(iter(module.of_type(n.SpecHeader)), None)
    title = header.title if header else None
    return SpecLayout(
        name=title or stem, title=title, path=path, hash=digest,
        blocks=tuple(_block(o, source) for o in module.of_type(n.Outcome)),
        checks={c.name: c.primitive for c in module.of_type(n.Check)},
        metrics={m.name: _metric(m, source) for m in module.metrics()},
        review_rules=tuple(text_of(r.span, source) for review in module.of_type(n.Review)
                           for r in review.rules),
        groups=tuple(f.name for block in module.of_type(n.CaseBlock) for f in block.fields
                     if f.type in GROUP_TYPES),
    )


def text_of(span: Span, source: Source) -> str:
    """The source text a span covers, with runs of white space folded."""
    lines = [source.line_text(i) for i in range(span.line, span.end_line + 1)]
    if not lines:
        return ""
    if len(lines) == 1:
        lines[0] = lines[0][span.col - 1 : span.end_col - 1]
    else:
        lines[0] = lines[0][span.col - 1 :]
        lines[-1] = lines[-1][: span.end_col - 1]
    return " ".join(" ".join(lines).split())


def _block(outcome: n.Outcome, source: Source) -> Block:
    return Block(outcome.name or VERDICT, tuple(b.label for b in outcome.branches),
                 tuple(text_of(b.span, source) for b in outcome.branches))


def _metric(metric: n.Metric, source: Source) -> MetricInfo:
    where = text_of(metric.where.span, source) if metric.where is not None else None
    return MetricInfo(metric.name, text_of(metric.value.span, source), where,
                      metric.lower_is_better)
