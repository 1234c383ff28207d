"""The static types of the language, as the checker and the registry see them.

Types are coarse on purpose: authors think in conditions, numbers and texts.
`CHECK` is the type of a bare check name, which the checker coerces to
`.passed` where a condition is wanted and to `.score` where a number is.
"""

from __future__ import annotations

import enum

from evaldsl.i18n import N_, _


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
        return _(_WORDS[self])


_WORDS = {
    ValueType.BOOL: N_("a condition (true/false)"),
    ValueType.NUMBER: N_("a number"),
    ValueType.TEXT: N_("a text"),
    ValueType.LIST: N_("a list"),
    ValueType.MAP: N_("a map"),
    ValueType.ANY: N_("a value"),
    ValueType.CHECK: N_("a check result"),
    ValueType.TABLE: N_("a normalization table"),
    ValueType.SCOPE: N_("a scope"),
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
