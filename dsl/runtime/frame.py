"""The per-case state compiled expressions read: a frame of slots.

Every per-case value of a spec (a check result, a per-case `let`, an outcome
block's label, a metric input, the review decision) has a slot; a slot's
forcer computes it the first time a closure reads it. `MISSING` marks a slot
not computed yet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaldsl.cases.case import Case

MISSING: Any = object()
"""A frame slot not computed yet."""


class Frame:
    """The per-case state closures read: slot values and the case."""

    __slots__ = ("vals", "case", "forcers", "wanted", "requests")

    def __init__(self, vals: list[Any], case: Case, forcers: list[Fn]) -> None:
        self.vals = vals
        self.case = case
        self.forcers = forcers
        self.wanted: list[int] = []
        """Slots of model checks asked for in this round."""
        self.requests: dict[int, Any] = {}

    def force(self, i: int) -> Any:
        v = self.vals[i] = self.forcers[i](self)
        return v


Fn = Callable[[Frame], Any]
EMPTY_FRAME = Frame([], Case("", ()), [])
