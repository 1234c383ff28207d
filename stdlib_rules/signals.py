"""`signals`: a user-emotion score from lexicons over the user's turns.

Chinese and English lexicons ship in `lexicons/`; a spec adds its own words
with `positive:` and `negative:`. Terms match longest first, so `不满意` is
one negative term rather than a negated `满意`; a positive term right after a
negator (`不是很满意`, `not happy`) counts as negative and the other way round,
within one sentence. Thanks are never negated: "no thanks" declines an offer
politely, it is not a negated "thanks". Polite refusals and closings ("No, that's
it", "不用了", "没有了") are neutral: they match as terms and count for nothing.
"""

from __future__ import annotations

import json
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Any, Literal, NamedTuple

import regex
from pydantic import Field

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import Scope, Unit
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib._common import Params, over
from evaldsl.stdlib._pins import overlay
from evaldsl.values import CheckResult

Language = Literal["zh", "en"]
LANGUAGES: tuple[Language, ...] = ("zh", "en")
SIGNAL_SCOPES = frozenset({"user_turns", "first_user", "last_user", "turn", "dialog"})


class SignalsParams(Params):
    positive: list[str] = Field(default_factory=list)
    """Words that show satisfaction, added to the shipped lexicons."""
    negative: list[str] = Field(default_factory=list)
    """Words that show frustration, added to the shipped lexicons."""
    languages: list[Language] = Field(default_factory=lambda: list(LANGUAGES))
    """Which shipped lexicons to use; `[]` uses only the spec's own words."""
    min: float = Field(default=0.0, ge=-1.0, le=1.0)
    """Lowest acceptable emotion value (-1 all negative .. 1 all positive)."""


class Lexicon(NamedTuple):
    pattern: regex.Pattern[str]
    polarity: dict[str, int]
    """Term (its `key`) -> +1, -1, or 0 for a polite refusal."""
    negators: tuple[str, ...]
    courtesy: frozenset[str] = frozenset()
    """Terms (their `key`) no negator flips: thanks."""


SEPARATORS = r"[\s,，、.。!！?？;；:：]+"
"""What may stand between two words of a term: `no, that's it` is `no that's it`."""
SENTENCE_END = regex.compile(r"[\n.。!！?？;；]")
"""Where a negator's reach ends: `No. Thanks!` negates nothing."""


def key(term: str) -> str:
    """A term as the lexicon keys it: separators as one space."""
    spaced: str = regex.sub(SEPARATORS, " ", term)
    return spaced.strip()


@primitive("signals", params=SignalsParams, scopes=SIGNAL_SCOPES, default_scope="user_turns",
           fields={"positive": ValueType.LIST, "negative": ValueType.LIST},
           cost=Cost.FREE, value_range=lambda p: (-1.0, 1.0),
           dynamic={"positive", "negative", "min"}, pin=lambda p, f: _pin(p, f))
def signals(params: SignalsParams) -> Any:
    """User-emotion score from positive and negative lexicon hits.

    `.value` = (positive - negative) / (positive + negative), in -1..1 and 0
    with no hits; `.score` maps it to 0..1; it passes when `.value >= min`.
    `.positive` and `.negative` list the words found. A negator flips the
    term after it in the same sentence; thanks are never negated ("no thanks"
    declines politely), and polite refusals ("No, that's it", "不用了") count
    for nothing.

        check 情绪 = signals(negative: ["还要等多久"], min: 0)
    """
    lexicon = build_lexicon(tuple(params.languages), tuple(params.positive),
                            tuple(params.negative))

    def judge(unit: Unit) -> CheckResult:
        texts = [m.content for m in unit.messages if m.role == "user"]
        pos, neg = hits(lexicon, "\n".join(texts))
        total = len(pos) + len(neg)
        value = (len(pos) - len(neg)) / total if total else 0.0
        passed = value >= params.min
        reason = "" if passed else "negative: " + ", ".join(f"`{w}`" for w in neg)
        return CheckResult.of(passed, (value + 1) / 2, value, reason, positive=pos, negative=neg)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, judge)

    return evaluate


def hits(lexicon: Lexicon, text: str) -> tuple[list[str], list[str]]:
    """The positive and negative terms found in `text`, negation applied.

    A negated term is reported with its negator (`不是很满意`, `not happy`).
    """
    folded = fold(text)
    pos: list[str] = []
    neg: list[str] = []
    for found in lexicon.pattern.finditer(folded):
        term = found.group(0)
        polarity = lexicon.polarity[key(term)]
        if polarity == 0:
            continue
        negator = None
        if key(term) not in lexicon.courtesy:
            negator = _negator(folded[: found.start()], lexicon.negators)
        if negator is not None:
            polarity = -polarity
            term = f"{negator} {term}" if negator.isascii() else negator + term
        (pos if polarity > 0 else neg).append(term)
    return pos, neg


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _negator(before: str, negators: tuple[str, ...]) -> str | None:
    """The negator right before a term (`不是很满意`, `not happy`, `not very helpful`),
    in the term's own sentence."""
    ends = [m.end() for m in SENTENCE_END.finditer(before)]
    before = before[ends[-1]:] if ends else before
    words = before.split()[-2:]
    if len(words) == 2 and words[1] not in _INTENSIFIERS:
        words = words[1:]
    for neg in negators:
        if neg.isascii():
            if neg in words:
                return neg
        elif before.endswith(neg):
            return neg
    return None


_INTENSIFIERS = frozenset({"very", "so", "really", "too", "that", "particularly", "overly"})


@lru_cache(maxsize=64)
def build_lexicon(languages: tuple[str, ...], positive: tuple[str, ...],
                  negative: tuple[str, ...]) -> Lexicon:
    """The combined lexicon; the spec's own words win over shipped ones."""
    polarity: dict[str, int] = {}
    negators: list[str] = []
    courtesy: set[str] = set()
    for lang in languages:
        data = shipped(lang)
        polarity.update({key(fold(w)): 0 for w in data.get("refusals", [])})
        polarity.update({key(fold(w)): 1 for w in data["positive"]})
        polarity.update({key(fold(w)): -1 for w in data["negative"]})
        negators.extend(fold(w) for w in data["negators"])
        courtesy.update(key(fold(w)) for w in data.get("courtesy", []))
    polarity.update({key(fold(w)): 1 for w in positive})
    polarity.update({key(fold(w)): -1 for w in negative})
    terms = sorted((t for t in polarity if t), key=len, reverse=True)
    alternatives = "|".join(_term_pattern(t) for t in terms) or r"(?!x)x"
    negs = tuple(sorted(set(negators), key=len, reverse=True))
    return Lexicon(regex.compile(alternatives), polarity, negs, frozenset(courtesy))


def _term_pattern(term: str) -> str:
    """Latin words match whole words only (`hate` not in `whatever`); a space matches
    any run of spaces and punctuation."""
    escaped: str = SEPARATORS.join(regex.escape(word) for word in term.split(" "))
    if term[:1].isascii() and term[:1].isalnum():
        escaped = r"(?<![a-z0-9])" + escaped
    if term[-1:].isascii() and term[-1:].isalnum():
        escaped += r"(?![a-z0-9])"
    return escaped


@lru_cache(maxsize=8)
def shipped(language: str) -> dict[str, Any]:
    """A lexicon shipped in `evaldsl.stdlib/lexicons/emotion_<lang>.json`."""
    path = resources.files("evaldsl.stdlib").joinpath(f"lexicons/emotion_{language}.json")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _pin(params: SignalsParams, fields: dict[str, Any]) -> CheckResult:
    """`given 情绪.value = -0.5` pins the emotion value; score and verdict follow."""
    if "value" not in fields:
        return overlay(CheckResult.of(bool(fields.get("passed", True)), 0.5, 0.0), fields)
    value = float(fields["value"])
    return overlay(CheckResult.of(value >= params.min, (value + 1) / 2, value), fields)
