"""What every kind of target is: one conversation's turn in, the agent's messages out.

A target answers one user turn given the whole conversation so far, and returns the
messages the turn added in the OpenAI chat format: the final assistant reply, preceded by
any assistant tool calls and tool results on the way. It fails by raising a model error
(`evaldsl.model.errors`): transient ones (a timeout, a 5xx, a dropped connection) may be
retried and count for the breaker, as a judge's do; any failure ends the conversation,
which then becomes an `error` case rather than a dialog with a missing turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from evaldsl.agents.canned import CannedResults

Message = dict[str, Any]
"""One message in the OpenAI chat format."""


@dataclass
class Conversation:
    """One scripted conversation in progress, as a target sees it."""

    case_id: str
    session: str
    """A fresh id per conversation (and per attempt at it): an agent that keeps state by
    session never mixes a conversation started over with the one that was cut off."""
    history: list[Message] = field(default_factory=list)
    """The messages so far; the last is the user's turn being sent."""
    tool_results: CannedResults = field(default_factory=lambda: CannedResults(()))

    @property
    def message(self) -> str:
        """The user's message of this turn."""
        return str(self.history[-1].get("content") or "")


class Target(Protocol):
    """The agent under test, whatever its kind."""

    secrets: tuple[str, ...]
    """The values it is sent that must never be recorded (its header values, its key)."""

    async def respond(self, conversation: Conversation) -> Sequence[Message]:
        """The messages the agent's answer to the last user turn adds, the reply last."""
        ...

    async def aclose(self) -> None:
        """Release connections; called once, in the loop the target was used in."""
        ...
