"""`LanguageService`: the open documents and every query an editor makes at a position.

Each query reads one snapshot (`documents`), whose facts are computed once per version:
typing re-checks only the document typed in. Positions in and out are LSP positions
(`positions`); the modules below work in the parser's spans.
"""

from __future__ import annotations

from collections.abc import Callable

from evaldsl.checker.facts.symbols import SymbolTable
from evaldsl.errors import RenameError
from evaldsl.primitives.registry import Registry, default_registry
from evaldsl.service import edits, hover, navigation
from evaldsl.service.completion import complete
from evaldsl.service.documents import Documents, Snapshot
from evaldsl.service.inlays import inlay_hints
from evaldsl.service.items import Completion, Hover, InlayHint, Problem, QuickFix, TextEdit
from evaldsl.service.occurrences import DEFINED_KINDS, Occurrence, at
from evaldsl.service.positions import ENCODINGS, Position, Range

_Pick = Callable[[list[Occurrence], Occurrence], list[Occurrence]]

__all__ = ["LanguageService", "RenameError"]


class LanguageService:
    """Queries over open specs; one instance serves one editor session."""

    def __init__(self, registry: Registry | None = None, encoding: str = "utf-16") -> None:
        """`encoding`: how positions count within a line, as the editor and server agreed
        (`utf-16` unless the client offers another of `positions.ENCODINGS`)."""
        if encoding not in ENCODINGS:
            raise ValueError(f"unknown position encoding `{encoding}`; use one of {ENCODINGS}")
        self.documents = Documents(registry if registry is not None else default_registry(),
                                   encoding)

    def open(self, uri: str, text: str, version: int = 0) -> None:
        self.documents.update(uri, version, text)

    def change(self, uri: str, text: str, version: int) -> None:
        """The document's new full text (the front end applies incremental edits)."""
        self.documents.update(uri, version, text)

    def close(self, uri: str) -> None:
        self.documents.close(uri)

    def diagnostics(self, uri: str) -> list[Problem]:
        return edits.problems(self.documents.get(uri))

    def completion(self, uri: str, position: Position) -> list[Completion]:
        """What may be written at `position`, even when the text does not parse."""
        snapshot = self.documents.get(uri)
        before = snapshot.text[: snapshot.lines.offset(position)]
        context = snapshot.context if snapshot.parsed_already else None
        if context is None:
            facts = self.documents.last_parsed(uri)
            context = facts.context if facts is not None else None
        symbols = context.symbols if context is not None else SymbolTable()
        return complete(before, symbols, snapshot.registry)

    def hover(self, uri: str, position: Position) -> Hover | None:
        snapshot, target = self._target(uri, position)
        text = hover.describe(snapshot, target) if target is not None else None
        if target is None or text is None:
            return None
        return Hover(text, snapshot.lines.span_range(target.span))

    def definition(self, uri: str, position: Position) -> list[Range]:
        return self._ranges(uri, position, navigation.definitions)

    def references(self, uri: str, position: Position,
                   include_declaration: bool = True) -> list[Range]:
        return self._ranges(uri, position, lambda found, t: navigation.references(
            found, t, include_declaration))

    def rename(self, uri: str, position: Position, new_name: str) -> list[TextEdit]:
        """Edits renaming the name at `position`; `RenameError` says why one is refused."""
        snapshot, target = self._target(uri, position)
        if target is None:
            return []
        return navigation.rename(snapshot, snapshot.occurrences, target, new_name)

    def prepare_rename(self, uri: str, position: Position) -> Range | None:
        """The range of the name a rename at `position` would change, if it may."""
        snapshot, target = self._target(uri, position)
        if target is None or target.kind not in DEFINED_KINDS:
            return None
        return snapshot.lines.span_range(target.span)

    def code_actions(self, uri: str, where: Range) -> list[QuickFix]:
        return edits.quick_fixes(self.documents.get(uri), where)

    def formatting(self, uri: str) -> list[TextEdit]:
        return edits.formatting(self.documents.get(uri))

    def inlay_hints(self, uri: str, where: Range) -> list[InlayHint]:
        return inlay_hints(self.documents.get(uri), where)

    def _target(self, uri: str, position: Position) -> tuple[Snapshot, Occurrence | None]:
        snapshot = self.documents.get(uri)
        line, col = snapshot.lines.at_span(position)
        return snapshot, at(snapshot.occurrences, line, col)

    def _ranges(self, uri: str, position: Position, pick: _Pick) -> list[Range]:
        snapshot, target = self._target(uri, position)
        if target is None:
            return []
        return [snapshot.lines.span_range(o.span) for o in pick(snapshot.occurrences, target)]
