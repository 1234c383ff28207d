"""`answered`: what the user asked for, and whether a later agent turn gave it.

The layer between "understood the intent" and "succeeded": of the attributes the
user asked for (a phone number, an address, the opening hours), how many did the
agent give? The expert names each attribute with the patterns that show a user
sentence asking for it (`asks`) and, where the attribute's own words are not
enough, the patterns that show an agent sentence giving it (`gives`). Everything
is decided by rules, sentence by sentence, with the closing and courtesy formulas
left out ("Is there anything else?" answers nothing), so the check needs no model
and reads the same on every run.

A request is one attribute asked in one user message; it is answered when an
agent message after it (with `within: exchange`, before the next user message)
has a sentence that gives it. `.value` is answered / asked, 1 when nothing was
asked; `.count` is how many requests there were, so a spec can leave dialogs
without any out of a metric (`where answered.count > 0`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

import regex
from pydantic import Field, ValidationInfo, field_validator, model_validator

from evaldsl.cases.case import Case, Message
from evaldsl.cases.scopes import Scope, Unit
from evaldsl.i18n import _
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.timed_match import timed_search, timeout_reason
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib._common import Params, over, unit_range
from evaldsl.stdlib._pins import scored
from evaldsl.stdlib.sentences import content, sentences
from evaldsl.values import CheckResult

ANSWERED_SCOPES = frozenset({"dialog", "each_exchange", "any_exchange"})

Patterns = dict[str, list[str]]


class AnsweredParams(Params):
    asks: Patterns = Field(min_length=1)
    """Attribute -> patterns that show a user sentence asking for it
    (`{电话: ["电话", "联系方式"], address: ["address", "where is"]}`)."""
    gives: Patterns = Field(default_factory=dict)
    """Attribute -> patterns that show an agent sentence giving it; an attribute left out
    is given when an agent sentence matches its `asks` patterns ("the phone number is ...")."""
    cues: list[str] = Field(default_factory=list)
    """Patterns of which a user sentence must match one to count as a request at all
    (a question mark, `吗`, `tell me`): "I want a cheap hotel" names the price without
    asking for it. Empty: every sentence that names an attribute asks for it."""
    unless: list[str] = Field(default_factory=list)
    """Patterns that stop a user sentence from counting as a request: the negations of
    the domain ("not ready to book", "don't need the address", "不用")."""
    fallback: str | None = None
    """An attribute of `asks` that a sentence asks for only when it asks for no other one:
    the catch-all of questions the spec has no name for (`other: ["tell me the"]`), so a
    sentence that names a known attribute is one request of it, not two."""
    listed: Patterns = Field(default_factory=dict)
    """Attribute -> patterns that ask for it only in a sentence that asks for another
    attribute: a bare name in the list of what the user wants ("the phone number, area and
    postcode") is asked, the same name alone is a constraint ("a hotel in the north area")."""
    overrides: dict[str, list[str]] = Field(default_factory=dict)
    """Attribute -> the attributes a sentence that asks for it does not ask for as well: a
    question about the neighbourhood names places without asking for a name
    (`{周边: [名称]}`: "周边有什么餐馆？" is one request, of 周边)."""
    within: Literal["later", "exchange", "until_silent"] = "later"
    """Where the answer may come: in any later agent turn; before the user speaks again; or
    in any later agent turn up to the first that says nothing (closing and courtesy formulas
    alone), since an agent that replies with courtesy alone has let the request go."""
    repeats: Literal["apart", "joined"] = "apart"
    """A request the user's next message asks again: judged on its own (`apart`), or
    answered when the repeat is (`joined`): the agent asked back or missed it, the user
    asked again and got it, so what they asked for was given. Each ask still counts."""
    formulas: Literal["leave_out", "keep"] = "leave_out"
    """Leave the closing and courtesy formulas out of both sides (the shipped zh/en lexicon)."""
    ignore_case: bool = True
    """Letters match regardless of case."""
    min: float = Field(default=1.0, ge=0.0, le=1.0)
    """Share of requests that must be answered to pass."""

    @field_validator("asks", "gives", "listed")
    @classmethod
    def _patterns_compile(cls, patterns: Patterns) -> Patterns:
        for name, items in patterns.items():
            if not items:
                raise ValueError(_("attribute `{name}` has no pattern").format(name=name))
            for item in items:
                _compile_one(item, name)
        return patterns

    @field_validator("cues", "unless")
    @classmethod
    def _cues_compile(cls, cues: list[str], info: ValidationInfo) -> list[str]:
        for item in cues:
            _compile_one(item, str(info.field_name))
        return cues

    @model_validator(mode="after")
    def _gives_known_attributes(self) -> AnsweredParams:
        unknown = [name for name in self.gives if name not in self.asks]
        if unknown:
            raise ValueError(_("`gives` names `{name}`, which `asks` does not: every attribute "
                               "given must be one the user can ask for").format(name=unknown[0]))
        unlisted = [name for name in self.listed if name not in self.asks]
        if unlisted:
            raise ValueError(_("`listed` names `{name}`, which `asks` does not: a listed "
                               "attribute needs its own patterns in `asks`").format(
                                   name=unlisted[0]))
        for name in [n for key, names in self.overrides.items() for n in [key, *names]]:
            if name not in self.asks:
                raise ValueError(_("`overrides` names `{name}`, which `asks` does not: an "
                                   "attribute it rules out must be one the user can ask "
                                   "for").format(name=name))
        if self.fallback is not None and self.fallback not in self.asks:
            raise ValueError(_("`fallback` names `{name}`, which `asks` does not: the catch-all "
                               "needs its own patterns in `asks`").format(name=self.fallback))
        return self


def _compile_one(pattern: str, where: str) -> None:
    try:
        regex.compile(pattern)
    except regex.error as exc:
        raise ValueError(_("invalid regular expression for `{name}`: {error}").format(
            name=where, error=exc)) from None


@lru_cache(maxsize=256)
def _union(patterns: tuple[str, ...], ignore_case: bool) -> regex.Pattern[str]:
    flags = regex.IGNORECASE if ignore_case else 0
    return regex.compile("|".join(f"(?:{p})" for p in patterns), flags)


class _Rules:
    """The compiled patterns of one call."""

    def __init__(self, params: AnsweredParams) -> None:
        case = params.ignore_case
        self.asks = {name: _union(tuple(p), case) for name, p in params.asks.items()}
        self.gives = {name: _union(tuple(params.gives.get(name, p)), case)
                      for name, p in params.asks.items()}
        self.cues = _union(tuple(params.cues), case) if params.cues else None
        self.unless = _union(tuple(params.unless), case) if params.unless else None
        self.listed = {name: _union(tuple(p), case) for name, p in params.listed.items()}
        self.split = content if params.formulas == "leave_out" else sentences
        self.fallback = params.fallback
        self.overrides = params.overrides

    def asked(self, text: str) -> list[str]:
        """The attributes a user message asks for, in the order `asks` names them."""
        found: set[str] = set()
        for sentence in self.split(text):
            if self.cues is not None and not timed_search(self.cues, sentence):
                continue
            if self.unless is not None and timed_search(self.unless, sentence):
                continue
            hits = [name for name, rule in self.asks.items()
                    if name != self.fallback and timed_search(rule, sentence)]
            if hits:
                hits += [name for name, rule in self.listed.items()
                         if name != self.fallback and timed_search(rule, sentence)]
            elif self.fallback is not None and timed_search(self.asks[self.fallback], sentence):
                hits = [self.fallback]
            ruled_out = {n for name in hits for n in self.overrides.get(name, ())}
            hits = [name for name in hits if name not in ruled_out]
            found.update(hits)
        return [name for name in self.asks if name in found]

    def silent(self, text: str) -> bool:
        """Whether an agent message says nothing but formulas."""
        return not self.split(text)

    def gives_in(self, name: str, text: str) -> bool:
        rule = self.gives[name]
        return any(timed_search(rule, sentence) for sentence in self.split(text))


@primitive("answered", params=AnsweredParams, scopes=ANSWERED_SCOPES, default_scope="dialog",
           fields={"asked": ValueType.LIST, "answered": ValueType.LIST,
                   "unanswered": ValueType.LIST, "count": ValueType.NUMBER},
           cost=Cost.FREE, value_range=unit_range, dynamic={"min"},
           pin=lambda p, f: scored(f, p.min))
def answered(params: AnsweredParams) -> Any:
    """Of the attributes the user asked for, the share a later agent turn gave.

    `.asked`, `.answered` and `.unanswered` list the attributes (one entry per
    request: an attribute asked in two messages counts twice); `.count` is the
    number of requests and `.value` the share answered (1 with no request).
    Sentences are judged one by one, closing formulas left out.

        check 答复 = answered(asks: {电话: ["电话"], 地址: ["地址", "在哪"]},
                             gives: {电话: ["\\d{7,}"], 地址: ["地址", "路", "街"]},
                             cues: ["吗", "？", "\\?", "告诉", "多少", "哪", "什么"])
    """
    rules = _Rules(params)

    def judge(unit: Unit) -> CheckResult:
        try:
            requests = _requests(rules, unit.messages)
            done = [(name, _answered_or_repeat(rules, unit.messages, at, name, params))
                    for at, name in requests]
        except TimeoutError:
            return CheckResult.error(timeout_reason())
        asked = [name for name, _ok in done]
        given = [name for name, ok in done if ok]
        missing = [name for name, ok in done if not ok]
        share = len(given) / len(asked) if asked else 1.0
        reason = "" if not missing else _("not answered: {names}").format(
            names=", ".join(missing))
        return CheckResult.of(share >= params.min, share, share, reason, asked=asked,
                              answered=given, unanswered=missing, count=len(asked))

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, judge)

    return evaluate


def _requests(rules: _Rules, messages: Sequence[Message]) -> list[tuple[int, str]]:
    return [(i, name) for i, m in enumerate(messages) if m.role == "user"
            for name in rules.asked(m.content)]


def _answered_or_repeat(rules: _Rules, messages: Sequence[Message], at: int, name: str,
                        params: AnsweredParams) -> bool:
    """Whether the request is answered, or (`repeats: joined`) the user's next message asks
    for it again and that repeat is answered."""
    while True:
        if _is_answered(rules, messages, at, name, params.within):
            return True
        if params.repeats != "joined":
            return False
        following = next((i for i in range(at + 1, len(messages))
                          if messages[i].role == "user"), None)
        if following is None or name not in rules.asked(messages[following].content):
            return False
        at = following


def _is_answered(rules: _Rules, messages: Sequence[Message], at: int, name: str,
                 within: str) -> bool:
    for message in messages[at + 1:]:
        if message.role == "user" and within == "exchange":
            return False
        if message.role != "assistant":
            continue
        if rules.gives_in(name, message.content):
            return True
        if within == "until_silent" and rules.silent(message.content):
            return False
    return False
