"""Go to definition, find references and rename, all over `occurrences`.

A rename edits every occurrence of the name, and refuses what would change the spec's
meaning or break it: a name the grammar does not take, a name already defined, or an
edit after which the spec no longer parses into as many definitions.
"""

from __future__ import annotations

import re
from functools import lru_cache

from evaldsl import grammar
from evaldsl.checker.facts.symbols import CASE, SymbolTable
from evaldsl.errors import RenameError
from evaldsl.i18n import _
from evaldsl.service.documents import Snapshot
from evaldsl.service.items import TextEdit
from evaldsl.service.occurrences import DEFINED_KINDS, Occurrence

_NAME = re.compile(r"(?!\d)\w+\Z")
"""A whole name as the grammar's `NAME` token reads it."""


@lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """The words the grammar spells out (`check`, `and`, `otherwise`, ...). The lexer is
    contextual, so some would parse as names, but a check named `and` reads as nonsense."""
    return frozenset(re.findall(r'"(\w+)"', grammar.text()))


def definitions(found: list[Occurrence], target: Occurrence) -> list[Occurrence]:
    return [o for o in found if o.definition and o.key == target.key]


def references(found: list[Occurrence], target: Occurrence,
               include_definition: bool = True) -> list[Occurrence]:
    return [o for o in found if o.key == target.key
            and (include_definition or not o.definition)]


def rename(snapshot: Snapshot, found: list[Occurrence], target: Occurrence,
           new_name: str) -> list[TextEdit]:
    """The edits that rename `target` everywhere; `RenameError` when it may not be."""
    if target.kind not in DEFINED_KINDS:
        raise RenameError(_("`{name}` is not defined in this spec and cannot be renamed here")
                          .format(name=target.name))
    if not _NAME.match(new_name):
        raise RenameError(_("`{name}` is not a name a spec can use").format(name=new_name))
    if new_name in keywords() or new_name == CASE:
        raise RenameError(_("`{name}` is a word of the language").format(name=new_name))
    ctx = snapshot.context
    if ctx is not None and _taken(ctx.symbols, target.kind, new_name):
        raise RenameError(_("`{name}` exists already").format(name=new_name))
    edits = [TextEdit(snapshot.lines.span_range(o.span), new_name)
             for o in references(found, target)]
    _same_meaning(snapshot, found, target, new_name)
    return edits


def _taken(symbols: SymbolTable, kind: str, name: str) -> bool:
    if kind == "field":
        return name in symbols.case_fields
    if kind == "metric":
        return name in symbols.metrics
    return symbols.kind_of(name) is not None or name in symbols.metrics


def _same_meaning(snapshot: Snapshot, found: list[Occurrence], target: Occurrence,
                  new_name: str) -> None:
    """The renamed spec must have no more errors than before: a new name can still change
    how the spec reads (a label named `slot` makes the bare choice word `mode: slot` a
    read of the label). Mid-edit, the statements that parse are compared, before and after.
    """
    from evaldsl.checker import check_source

    source = snapshot.parsed.source
    text = source.text if snapshot.recovered is None else snapshot.recovered.text
    before = text
    starts = sorted((source.offset(o.span.line, o.span.col) for o in references(found, target)),
                    reverse=True)
    for start in starts:
        text = text[:start] + new_name + text[start + len(target.name):]

    def errors(text: str) -> int:
        return sum(d.is_error for d in check_source(text, snapshot.uri, snapshot.registry)[1])

    was = (sum(d.is_error for d in snapshot.diagnostics) if snapshot.recovered is None
           else errors(before))
    if errors(text) > was:
        raise RenameError(_("renaming to `{name}` would change how the spec reads").format(
            name=new_name))
