"""Scopes: which part of a dialog a check looks at, one mechanism for all.

A scope selects *units* from a case (a unit is a run of messages with its
text) and says how the units' results combine: `single` (one unit),
`each` (every unit must pass; score is the share passing) or `any` (one
passing unit is enough). Primitives judge a unit; `evaluate_over` does the
rest, so every primitive reads scopes the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from evaldsl.cases.case import Case, Message, slot_setters
from evaldsl.i18n import N_, _
from evaldsl.values import CheckResult, ErrorValue

Combine = Literal["single", "each", "any"]


@dataclass(frozen=True, slots=True)
class Scope:
    kind: str
    index: int | None = None
    """For `turn(N)`: the 1-based position of the message."""

    def __str__(self) -> str:
        return f"turn({self.index})" if self.kind == "turn" else self.kind

    @property
    def combine(self) -> Combine:
        return _COMBINE.get(self.kind, "single")


SCOPE_KINDS = ("last_reply", "replies", "each_reply", "any_reply", "dialog", "first_user",
               "user_turns", "last_user", "tool_results", "turn", "each_exchange",
               "any_exchange")
"""Every scope the language knows; `turn` takes an argument: `turn(3)`."""

SCOPE_WORDS = {
    "last_reply": N_("the last assistant reply"),
    "replies": N_("every assistant reply, joined into one text"),
    "each_reply": N_("each assistant reply on its own (all must pass)"),
    "any_reply": N_("each assistant reply on its own (one passing is enough)"),
    "dialog": N_("the whole dialog, every message"),
    "first_user": N_("the first user message"),
    "user_turns": N_("every user message, joined into one text"),
    "last_user": N_("the last user message"),
    "tool_results": N_("every tool result (`role: tool`), joined into one text"),
    "turn": N_("the message at position N"),
    "each_exchange": N_("each user message with the agent's turns that answer it, on its own "
                        "(all must pass)"),
    "any_exchange": N_("each user message with the agent's turns that answer it, on its own "
                       "(one passing is enough)"),
}
"""What each scope shows a check, in words, for `explain` and the primitive reference;
marked with `N_` and translated where shown."""


def scope_words(scope: Scope) -> str:
    """`the last assistant reply`: which part of the dialog `scope` selects."""
    if scope.kind == "turn" and scope.index is not None:
        return _("message {index} of the dialog").format(index=scope.index)
    return _(SCOPE_WORDS[scope.kind])


REPLY_SCOPES = frozenset({"last_reply", "replies", "each_reply", "any_reply", "turn"})
ALL_SCOPES = frozenset(SCOPE_KINDS)
TEXT_SCOPES = ALL_SCOPES

_COMBINE: dict[str, Combine] = {"each_reply": "each", "any_reply": "any",
                                 "each_exchange": "each", "any_exchange": "any"}


@dataclass(frozen=True, slots=True)
class Unit:
    """Messages a check judges together, and their text."""

    messages: tuple[Message, ...]
    text: str
    numbers: tuple[int, ...] = ()
    """Each message's 1-based number in the unit it was cut from, when a `window`
    (`evaldsl.cases.windows`) left some out; empty: the messages are numbered in order."""
    total: int = 0
    """How many messages that unit had (0: nothing was left out)."""

    def __init__(self, messages: tuple[Message, ...], text: str, numbers: tuple[int, ...] = (),
                 total: int = 0) -> None:
        """The dataclass's `__init__`, each field set through its slot (`slot_setters`):
        every check of every case builds the units it judges."""
        _set_messages(self, messages)
        _set_text(self, text)
        _set_numbers(self, numbers)
        _set_total(self, total)


_set_messages, _set_text, _set_numbers, _set_total = slot_setters(
    Unit, ("messages", "text", "numbers", "total"))


def select(case: Case, scope: Scope) -> list[Unit]:
    """The units of `case` that `scope` selects (possibly none)."""
    messages = case.messages
    kind = scope.kind
    if kind == "last_reply":  # the default scope of most text checks: first, and inlined
        for m in reversed(messages):
            if m.role == "assistant":
                return [Unit((m,), m.content)]
        return []
    if kind == "each_reply" or kind == "any_reply":
        return [Unit((m,), m.content) for m in messages if m.role == "assistant"]
    if kind == "dialog":
        return [Unit(messages, transcript(messages))]
    if kind in ("each_exchange", "any_exchange"):
        return [Unit(run, transcript(run)) for run in exchanges(messages)]
    if kind == "replies":
        return _joined([m for m in messages if m.role == "assistant"])
    if kind == "user_turns":
        return _joined([m for m in messages if m.role == "user"])
    if kind == "tool_results":
        return _joined([m for m in messages if m.role == "tool"])
    if kind == "last_user":
        return _last(messages, "user")
    if kind == "first_user":
        first = next((m for m in messages if m.role == "user"), None)
        return [_unit((first,))] if first else []
    if kind == "turn" and scope.index is not None and 1 <= scope.index <= len(messages):
        return [_unit((messages[scope.index - 1],))]
    return []


def exchanges(messages: Sequence[Message]) -> list[tuple[Message, ...]]:
    """Each user message with the turns after it up to the next user message: the
    agent's replies, tool calls and results that answer it. Messages before the first
    user message (a system prompt, an agent's greeting) belong to no exchange."""
    runs: list[tuple[Message, ...]] = []
    start: int | None = None
    for i, message in enumerate(messages):
        if message.role == "user":
            if start is not None:
                runs.append(tuple(messages[start:i]))
            start = i
    if start is not None:
        runs.append(tuple(messages[start:]))
    return runs


def transcript(messages: Sequence[Message]) -> str:
    """A dialog as `role: text` lines, tool calls written as calls (`Message.line`)."""
    return "\n".join([m.line for m in messages])


def _unit(messages: tuple[Message, ...]) -> Unit:
    if len(messages) == 1:  # the common case, on every check's hot path
        return Unit(messages, messages[0].content)
    return Unit(messages, "\n".join([m.content for m in messages]))


def _joined(messages: list[Message]) -> list[Unit]:
    return [_unit(tuple(messages))] if messages else []


def _last(messages: Sequence[Message], role: str) -> list[Unit]:
    for m in reversed(messages):
        if m.role == role:
            return [_unit((m,))]
    return []


UnitJudge = Callable[[Unit], CheckResult]

_selected: dict[str | tuple[str, int], tuple[Case, list[Unit]]] = {}
"""The units each scope (its kind, and index for `turn(N)`) last selected, and from which
case: the checks of one case that read the same scope (three text checks on the last reply)
share its units rather than select them again. A case and its messages are frozen, so the
same case object has the same units; each entry is replaced whole, so threads judging other
cases never mix them."""
_SELECTED_KEPT = 64
"""Scopes remembered at most: a spec reads a handful (`turn(N)` may add a few)."""


def evaluate_over(case: Case, scope: Scope, judge_unit: UnitJudge) -> CheckResult:
    """Judge every unit `scope` selects and combine the results.

    No unit at all (a dialog without assistant replies) is an error, never a
    silent pass: there was nothing to judge.
    """
    key = scope.kind if scope.index is None else (scope.kind, scope.index)
    held = _selected.get(key)
    if held is not None and held[0] is case:
        units = held[1]
    else:
        units = select(case, scope)
        if len(_selected) >= _SELECTED_KEPT:
            _selected.clear()
        _selected[key] = (case, units)
    if not units:
        return CheckResult.error(f"scope `{scope}` selects nothing in this dialog")
    if len(units) == 1 and scope.kind not in _COMBINE:  # `scope.combine == "single"`
        return judge_unit(units[0])
    return combine([judge_unit(u) for u in units], scope.combine)


def combine(results: list[CheckResult], how: Combine) -> CheckResult:
    """`each`: all must pass, score = share passing; `any`: one is enough.

    An error in any unit makes the combination an error unless the other
    units already decide it (`any` with a pass, `each` with a fail), the
    same rule as `or` and `and`.
    """
    decided: list[CheckResult] = []
    errors: list[CheckResult] = []
    passing = failing = 0
    for r in results:  # one pass: every `each_reply` check of every case comes here
        p = r.passed
        if p is True:
            passing += 1
        elif p is False:
            failing += 1
        elif type(p) is ErrorValue:
            errors.append(r)
            continue
        decided.append(r)
    if how == "any":
        if passing:
            best = max(decided, key=lambda r: r.score if isinstance(r.score, float) else 0.0)
            return CheckResult(True, best.score, best.value, best.fields, best.reason)
    elif failing and how == "each":
        if errors:
            return CheckResult(False, errors[0].score, [r.value for r in results], {},
                               f"{failing} of {len(results)} units fail; some errored")
    if errors:
        return errors[0]
    share = passing / len(decided)
    passed = passing == len(decided) if how != "any" else passing > 0
    reason = f"{passing} of {len(decided)} pass"
    return CheckResult(passed, share, [r.value for r in decided], {}, reason)
