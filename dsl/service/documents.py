"""The open documents: one analysed snapshot per URI and version, and the last that parsed.

An editor sends a new version on every keystroke. Each version is a `Snapshot` whose
parse, check and graph are computed at most once, when first asked for, so an edit
re-checks only the document it changed, and a query on a version already analysed costs
nothing. Text mid-edit rarely parses: its `module` is then the statements that do
(`evaldsl.syntax.recovery`), at their own positions, so hover, definition and rename
answer on every whole statement while one is half typed, and completion offers names
defined after the broken one; `Documents.last_parsed` keeps the newest snapshot that
parsed whole, for when not even that recovers anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from evaldsl.checker import Checked, Context, analyse_context
from evaldsl.diagnostics import Diagnostic, sort_key
from evaldsl.primitives.registry import Registry
from evaldsl.service.occurrences import Occurrence, occurrences
from evaldsl.service.positions import LineIndex
from evaldsl.syntax import nodes as n
from evaldsl.syntax.parser import ParseResult, parse
from evaldsl.syntax.recovery import Recovered, recover

if TYPE_CHECKING:
    from evaldsl.runtime.graph import Graph


@dataclass(eq=False)
class Snapshot:
    """One version of one document; every fact about it is computed on first use."""

    uri: str
    version: int
    text: str
    registry: Registry = field(repr=False)
    encoding: str = "utf-16"
    """How the editor counts characters in a line (`positions.ENCODINGS`)."""

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.text, self.encoding)

    @cached_property
    def parsed(self) -> ParseResult:
        return parse(self.text, self.uri)

    @property
    def parsed_already(self) -> bool:
        """Whether the text was parsed: a version nobody asked about is not parsed late
        (text mid-edit takes the slow path of worded syntax errors)."""
        return "parsed" in vars(self)

    @property
    def whole(self) -> bool:
        """Whether the whole text parses (else `module` holds the statements that do)."""
        return self.parsed.module is not None

    @cached_property
    def recovered(self) -> Recovered | None:
        """The statements that parse, when the whole text does not."""
        if self.whole or not self.parsed.source.text:
            return None
        return recover(self.parsed.source.text, self.uri)

    @property
    def module(self) -> n.Module | None:
        """The parsed module; mid-edit, the statements that parse; None if none do."""
        if self.parsed.module is not None:
            return self.parsed.module
        return self.recovered.module if self.recovered is not None else None

    @cached_property
    def context(self) -> Context | None:
        """The checker's context (symbols, types) of `module`; None without a module."""
        module = self.module
        return None if module is None else Context(module, self.parsed.source, self.registry)

    @cached_property
    def checked(self) -> Checked | None:
        """The checker's findings, for text that parses whole: over the statements a broken
        text keeps, a name defined in the broken one would read as unknown."""
        return analyse_context(self.context) if self.whole and self.context else None

    @cached_property
    def occurrences(self) -> list[Occurrence]:
        """Every name in the module and what it names (mid-edit, in the statements that
        parse)."""
        module, ctx = self.module, self.context
        return [] if module is None or ctx is None else occurrences(module, ctx.symbols)

    @cached_property
    def diagnostics(self) -> list[Diagnostic]:
        """What `evaldsl check` reports: syntax errors, or the parser's and checker's."""
        found = list(self.parsed.diagnostics)
        if self.checked is not None:
            found.extend(self.checked.diagnostics)
        return sorted(found, key=sort_key)

    @cached_property
    def graph(self) -> Graph | None:
        """The evaluation graph, None unless the spec checks without errors."""
        if self.checked is None or self.checked.analysis is None:
            return None
        from evaldsl.runtime.graph import build_graph

        return build_graph(self.checked.analysis)


class Documents:
    """Snapshots by URI: the current one and the newest that parsed."""

    def __init__(self, registry: Registry, encoding: str = "utf-16") -> None:
        self.registry = registry
        self.encoding = encoding
        self._current: dict[str, Snapshot] = {}
        self._parsed: dict[str, Snapshot] = {}

    def update(self, uri: str, version: int, text: str) -> Snapshot:
        """The snapshot of `version`: the one held already when the text is the same."""
        held = self._current.get(uri)
        if held is not None and held.version == version and held.text == text:
            return held
        if held is not None and self._may_parse(uri, held) and held.whole:
            self._parsed[uri] = held
        snapshot = Snapshot(uri, version, text, self.registry, self.encoding)
        self._current[uri] = snapshot
        return snapshot

    def _may_parse(self, uri: str, held: Snapshot) -> bool:
        """Whether the version being replaced is worth a look for `last_parsed`: when it
        was parsed already, or when no version that parsed is known yet."""
        return held.parsed_already or uri not in self._parsed

    def close(self, uri: str) -> None:
        self._current.pop(uri, None)
        self._parsed.pop(uri, None)

    def get(self, uri: str) -> Snapshot:
        """The current snapshot; `KeyError` for a document that is not open."""
        return self._current[uri]

    def last_parsed(self, uri: str) -> Snapshot | None:
        """The current snapshot when it parses, else the newest earlier one that did.

        The current text is parsed here only when no earlier version did: text mid-edit
        takes the parser's slow path, which a completion should not wait for.
        """
        current = self._current.get(uri)
        earlier = self._parsed.get(uri)
        if current is not None and (current.parsed_already or earlier is None):
            return current if current.whole else earlier
        return earlier
