"""Windows: what a model check reads of a long unit, declared in the spec.

A judge with a small context cannot read a dialog of a hundred turns, and cutting
the text where the window ends would hide which part was judged. A spec says instead
which messages the judge reads, on any model check (`window: {first: 1, last: 6}`:
the opening message, where a task dialog states the goal, and the last six, where it
ends): the messages between are left out, and the prompt says how many. The kept
messages keep their numbers in the dialog, so `steps` still names the message a step
happened in.

>>> from evaldsl.cases.case import Message
>>> unit = Unit(tuple(Message("user", str(i)) for i in range(1, 7)), "")
>>> [m.content for m in Window(first=1, last=2).apply(unit).messages]
['1', '5', '6']
>>> Window(first=1, last=2).apply(unit).numbers
(1, 5, 6)
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evaldsl.cases.scopes import Unit, transcript
from evaldsl.i18n import _


class Window(BaseModel):
    """Which messages of a unit a model check reads: the first few and the last few."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: int = Field(default=0, ge=0, le=1000)
    """Messages kept from the start of the unit."""
    last: int = Field(default=0, ge=0, le=1000)
    """Messages kept from the end of the unit."""

    @model_validator(mode="after")
    def _keeps_something(self) -> Window:
        if self.first + self.last == 0:
            raise ValueError(_("a window keeps at least one message: give `first` or `last`"))
        return self

    def kept(self, count: int) -> list[int]:
        """The 0-based indices of `count` messages that the window keeps, in order.

        >>> Window(first=2, last=2).kept(3), Window(last=2).kept(5)
        ([0, 1, 2], [3, 4])
        """
        head = range(min(self.first, count))
        tail = range(max(len(head), count - self.last), count)
        return [*head, *tail]

    def apply(self, unit: Unit) -> Unit:
        """`unit` with only the kept messages, each keeping its number; itself if all fit."""
        numbers = unit.numbers or tuple(range(1, len(unit.messages) + 1))
        kept = self.kept(len(unit.messages))
        if len(kept) == len(unit.messages):
            return unit
        messages = tuple(unit.messages[i] for i in kept)
        dialog = unit.text == transcript(unit.messages)
        text = transcript(messages) if dialog else "\n".join(m.content for m in messages)
        return replace(unit, messages=messages, text=text,
                       numbers=tuple(numbers[i] for i in kept),
                       total=unit.total or len(unit.messages))


def windowed(unit: Unit, window: Window | None) -> Unit:
    """`unit` as a check with `window` (or none) reads it."""
    return unit if window is None else window.apply(unit)
