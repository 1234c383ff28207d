"""The per-case state compiled expressions read: a frame of slots.

Every per-case value of a spec (a check result, a per-case `let`, an outcome
block's label, a metric input, the review decision) has a slot; a slot's
forcer computes it the first time a closure reads it. `MISSING` marks a slot
not computed yet.

A forcer reads other slots, which may force theirs: a chain of ten thousand
lets, each reading the one before, is ten thousand slots forced one inside
another. Python's stack does not follow such a chain: past `MAX_DEPTH` slots
deep, the read stops (`_Deeper`), the frame forces the slot it stopped at from
the top, then tries again the slot that needed it, whose forcer now finds it
computed. A retry repeats only the work above the stop, at most `MAX_DEPTH`
slots, so a chain costs linear work and a bounded stack however long it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaldsl.cases.case import Case

MISSING: Any = object()
"""A frame slot not computed yet."""

MAX_DEPTH = 64
"""Slots forced one inside another before the frame forces the innermost from the top."""


class _Deeper(BaseException):
    """The slot a read stopped at; a `BaseException`, so no `except Exception` around a
    primitive or a parameter catches it on its way back to the frame."""

    def __init__(self, slot: int) -> None:
        super().__init__(slot)
        self.slot = slot


class Frame:
    """The per-case state closures read: slot values and the case."""

    __slots__ = ("vals", "case", "forcers", "wanted", "requests", "depth")

    def __init__(self, vals: list[Any], case: Case, forcers: list[Fn]) -> None:
        self.vals = vals
        self.case = case
        self.forcers = forcers
        self.wanted: list[int] = []
        """Slots of model checks asked for in this round."""
        self.requests: dict[int, Any] = {}
        self.depth = 0
        """How many forcers are running one inside another."""

    def force(self, i: int) -> Any:
        """Compute slot `i` and keep its value; from the top, or inside another forcer."""
        if not self.depth:
            return self.settle(i)
        if self.depth >= MAX_DEPTH:
            raise _Deeper(i)
        self.depth += 1
        try:
            v = self.vals[i] = self.forcers[i](self)
        finally:
            self.depth -= 1
        return v

    def settle(self, i: int) -> Any:
        """Force slot `i` from the top (no forcer running): a slot a forcer stopped at is
        forced first. The common slot settles at the first try, without the list of slots
        waiting."""
        self.depth = 1
        try:
            v = self.vals[i] = self.forcers[i](self)
            return v
        except _Deeper as deeper:
            waiting = [i, deeper.slot]
        finally:
            self.depth = 0
        while waiting:
            slot = waiting[-1]
            if self.vals[slot] is not MISSING:
                waiting.pop()
                continue
            self.depth = 1
            try:
                self.vals[slot] = self.forcers[slot](self)
            except _Deeper as deeper:
                waiting.append(deeper.slot)
            finally:
                self.depth = 0
        return self.vals[i]


Fn = Callable[[Frame], Any]
EMPTY_FRAME = Frame([], Case("", ()), [])
