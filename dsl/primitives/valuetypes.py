"""The static types of the language, as the checker and the registry see them.

Types are coarse on purpose: authors think in conditions, numbers and texts.
`CHECK` is the type of a bare check name, which the checker coerces to
`.passed` where a condition is wanted and to `.score` where a number is.
"""

from __future__ import annotations

import enum


class ValueType(enum.StrEnum):
    BOOL = "bool"
    NUMBER = "number"
    TEXT = "text"
    LIST = "list"
    MAP = "map"
    ANY = "any"
    CHECK = "check"
    TABLE = "table"
    SCOPE = "scope"

    def __str__(self) -> str:
        return _WORDS[self]


_WORDS = {
    ValueType.BOOL: "a condition (true/false)",
    ValueType.NUMBER: "a number",
    ValueType.TEXT: "a text",
    ValueType.LIST: "a list",
    ValueType.MAP: "a map",
    ValueType.ANY: "a value",
    ValueType.CHECK: "a check result",
    ValueType.TABLE: "a normalization table",
    ValueType.SCOPE: "a scope",
}

CASE_FIELD_TYPES: dict[str, ValueType] = {
    "text": ValueType.TEXT,
    "number": ValueType.NUMBER,
    "bool": ValueType.BOOL,
    "list": ValueType.LIST,
    "map": ValueType.MAP,
    "any": ValueType.ANY,
}
"""The types a `case {}` block may declare."""
