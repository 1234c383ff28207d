"""A scenario's simulated user: who plays the user, what they want, and when they stop.

    {"id": "sim-1", "intent": "appointment_booking",
     "user": {"goal": "预约明天上午的空调维修", "persona": "说话简短的上班族",
              "language": "zh", "max_turns": 6, "min_turns": 2,
              "stop": "客服给出预约单号或确认了上门时间",
              "facts": {"姓名": "张三", "电话": "13800138000"}}}

A row gives `user` instead of, or after, its scripted `messages`: the scripted turns are sent
first, then a model plays the user (`evaldsl.agents.simulator`) until it says the stop rule
holds or `max_turns` user turns were sent. The brief is also what the simulator is held to:
`audit` finds where the simulator, not the agent, failed (it ended before `min_turns`
replies, left its goal by never giving a fact the goal needs, or broke its format), so such
a conversation is counted as the simulator's failure and never as the agent's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import regex

from evaldsl.i18n import _
from evaldsl.report.simulator_failures import (
    EARLY,
    FORMAT,
    OFF_GOAL,
)

USER = "user"
"""The scenario field holding the brief."""
LANGUAGES = ("zh", "en")
"""The languages whose script `audit` can tell apart."""
DEFAULT_MAX_TURNS = 8
_HAN = regex.compile(r"\p{Han}")
_LATIN = regex.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class UserBrief:
    """The simulated user of one scenario, as its row gives it."""

    goal: str
    persona: str = ""
    language: str = "zh"
    max_turns: int = DEFAULT_MAX_TURNS
    """User turns at most, the scripted ones included."""
    min_turns: int = 1
    """Agent replies before which ending is ending too early."""
    stop: str = ""
    """When the user ends the conversation, in words the simulator judges."""
    facts: Mapping[str, str] = field(default_factory=dict)
    """What the user knows and the goal needs said (a name, a phone number): each value must
    appear in some user turn before the end, or the simulator left its goal."""

    @classmethod
    def of(cls, value: Mapping[str, Any]) -> UserBrief:
        """From a row's `user` (checked by `problem` when it was read)."""
        return cls(str(value["goal"]), str(value.get("persona", "")),
                   str(value.get("language", "zh")),
                   int(value.get("max_turns", DEFAULT_MAX_TURNS)),
                   int(value.get("min_turns", 1)), str(value.get("stop", "")),
                   {str(k): str(v) for k, v in (value.get("facts") or {}).items()})


_TEXTS = ("goal", "persona", "language", "stop")
_COUNTS = ("max_turns", "min_turns")


def problem(value: Any) -> str | None:
    """What is wrong with a row's `user`, or None."""
    if not isinstance(value, Mapping) or not isinstance(value.get("goal"), str) or not value[
            "goal"].strip():
        return _("a simulated user needs a `goal`, a text")
    unknown = sorted(set(value) - {*_TEXTS, *_COUNTS, "facts"})
    if unknown:
        return _("unknown field `{name}` in `user`").format(name=unknown[0])
    for name in _TEXTS:
        if name in value and not isinstance(value[name], str):
            return _("`user.{name}` must be a text").format(name=name)
    for name in _COUNTS:
        if name in value and (isinstance(value[name], bool) or not isinstance(
                value[name], int) or value[name] < 1):
            return _("`user.{name}` must be a whole number of at least 1").format(name=name)
    if value.get("language", "zh") not in LANGUAGES:
        return _("`user.language` must be one of {languages}").format(
            languages=", ".join(LANGUAGES))
    facts = value.get("facts", {})
    if not isinstance(facts, Mapping) or not all(isinstance(v, str) for v in facts.values()):
        return _("`user.facts` must map names to texts")
    return None


@dataclass(frozen=True)
class Failure:
    """Where the simulator failed: one of `FAILURE_KINDS`, and why."""

    kind: str
    reason: str


def turn_problem(brief: UserBrief, message: str, done: bool) -> Failure | None:
    """A simulated turn that breaks the format: empty, or in the wrong language (the
    message of a last turn, `done`, is not sent, so it is not read)."""
    if done:
        return None
    if not message.strip():
        return Failure(FORMAT, _("it wrote an empty message"))
    if brief.language == "zh" and not _HAN.search(message):
        return Failure(FORMAT, _("it wrote `{text}`, not Chinese").format(text=message[:80]))
    if brief.language == "en" and len(_HAN.findall(message)) > len(_LATIN.findall(message)):
        return Failure(FORMAT, _("it wrote `{text}`, not English").format(text=message[:80]))
    return None


def end_problem(brief: UserBrief, history: Sequence[Mapping[str, Any]], done: bool
                ) -> Failure | None:
    """What the simulator did wrong by the end of the conversation, if anything."""
    replies = sum(m.get("role") == "assistant" and m.get("latency_ms") is not None
                  for m in history)
    if done and replies < brief.min_turns:
        return Failure(EARLY, _("it ended after {replies} of at least {least} replies").format(
            replies=replies, least=brief.min_turns))
    said = "\n".join(str(m.get("content") or "") for m in history if m.get("role") == "user")
    missing = [name for name, value in brief.facts.items() if value not in said]
    if missing:
        return Failure(OFF_GOAL, _("it never gave {facts}").format(
            facts=", ".join(f"`{name}`" for name in missing)))
    return None
