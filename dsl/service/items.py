"""What the language service answers with: plain values, no protocol library's types.

The front end (`evaldsl.cli.lsp`) turns each into its LSP counterpart; tests read them
as they are.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from evaldsl.service.positions import Position, Range


class Kind(enum.StrEnum):
    """What a completion offers, named as LSP's `CompletionItemKind` names them."""

    FUNCTION = "function"
    """A primitive or an aggregate."""
    PROPERTY = "property"
    """A parameter of a primitive call."""
    FIELD = "field"
    """A case field or a check's result field."""
    VARIABLE = "variable"
    """A check, let, table or outcome block."""
    ENUM_MEMBER = "enum_member"
    """A label, a scope or a choice value."""
    KEYWORD = "keyword"


@dataclass(frozen=True, slots=True)
class Completion:
    label: str
    kind: Kind
    detail: str = ""
    """One line beside the label: a type, a default, a cost class."""
    documentation: str = ""
    """Markdown shown when the item is selected."""
    insert_text: str = ""
    """What is inserted, when it is not the label (`scope: ` for a parameter)."""


@dataclass(frozen=True, slots=True)
class Hover:
    markdown: str
    range: Range


@dataclass(frozen=True, slots=True)
class TextEdit:
    range: Range
    new_text: str


@dataclass(frozen=True, slots=True)
class Problem:
    """A diagnostic placed in the document."""

    range: Range
    severity: str
    """`error` or `warning`."""
    code: str
    message: str
    hint: str
    suggestion: str
    """The name a `did you mean` proposes for the range, or empty."""


@dataclass(frozen=True, slots=True)
class QuickFix:
    title: str
    edit: TextEdit
    problem: Problem


@dataclass(frozen=True, slots=True)
class InlayHint:
    position: Position
    label: str
