"""The seam between the monitor and a review store: flagged sessions handed on as they come.

A session is flagged when the spec's `review` block draws it or a per-case
alert fired on it. The monitor calls `ReviewFeed.submit` once per flagged
session, after its journal line is written; a store that keeps its own
record of what it holds can therefore take the same session again after a
restart and keep one copy. Nothing here depends on a particular store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from evaldsl.cases.case import Case
from evaldsl.record import CaseRecord


@dataclass(frozen=True)
class Flagged:
    """One session for human review, and why it was picked."""

    case_id: str
    reasons: tuple[str, ...]
    """`review` (drawn by the review block) and/or `alert:NAME` for each alert that fired."""
    record: CaseRecord
    """The session's result as a journal line has it (`CaseResult.to_dict(trace=False)`)."""
    case: Case
    """The session as it arrived: its messages and fields."""


class ReviewFeed(Protocol):
    def submit(self, flagged: Flagged) -> None: ...


class NoReview:
    """The feed when no store is configured: flagged sessions stay in the journal only."""

    def submit(self, flagged: Flagged) -> None:
        return None
