"""Fusion: which questions of one case go out together in one request.

Questions about the same text for the same judge model share a request,
unless their check says `fuse: false`; the answer is one JSON object with a
property per check. The same question about the same text (a check over
`each_reply` where two replies are identical) is asked once and its answer
shared. A check with `votes: N` multiplies its group's requests, not the
groups: the fused request is asked N times. Grouping is pure and ordered, so
the same spec and case always make the same requests, which is what the cache
needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evaldsl.cases.scopes import Unit
from evaldsl.model.checks import ChatTask, Plan
from evaldsl.model.prompts import render_unit


@dataclass(frozen=True)
class Question:
    """One check's question about one unit of a case."""

    request: int
    """Index of the `ModelRequest` in the case's round."""
    unit: int
    """Index of the unit within the request's scope."""
    key: str
    """The answer property (from the check's name)."""
    task: ChatTask
    plan: Plan
    model: str | None
    """The check's model override, if any."""
    fuse: bool
    votes: int = 1
    """How many samples of the answer the check combines (`votes:`)."""
    member: int = 0
    """Which of the check's judges (`judges:`) asks it: the index of `model` there."""


@dataclass
class Group:
    """Questions asked in one request: same text, same judge model."""

    unit: Unit
    model: str | None
    questions: dict[str, list[Question]] = field(default_factory=dict)
    """By answer key; several only when the very same question repeats."""

    @property
    def samples(self) -> int:
        """Samples the request is asked for: as many as its most-voted question needs.
        A question fused with a more-voted one reads only its own first samples."""
        return max(q.votes for qs in self.questions.values() for q in qs)

    def tasks(self) -> list[tuple[str, ChatTask]]:
        return [(key, qs[0].task) for key, qs in self.questions.items()]


def group(questions: list[tuple[Question, Unit]]) -> list[Group]:
    """Fuse questions into groups, in first-seen order."""
    groups: list[Group] = []
    open_groups: dict[tuple[str | None, str], Group] = {}
    for question, unit in questions:
        text = render_unit(unit)
        target = open_groups.get((question.model, text)) if question.fuse else None
        if target is not None and not _fits(target, question):
            target = None
        if target is None:
            target = Group(unit, question.model)
            groups.append(target)
            if question.fuse:
                open_groups[(question.model, text)] = target
        target.questions.setdefault(question.key, []).append(question)
    return groups


def _fits(target: Group, question: Question) -> bool:
    """A key may repeat in a group only for the identical question."""
    same = target.questions.get(question.key)
    return same is None or same[0].task == question.task
