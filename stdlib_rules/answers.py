"""Final answers against expected texts: `exact`, `f1` and `edit_distance`.

Question-answering benchmarks score a short answer three ways: equal after
normalization (`exact`), the overlap of its words with the expected answer's
(`f1`, SQuAD's token F1), or how few character edits separate them
(`edit_distance`, Levenshtein). Each takes one expected answer or several;
the best-scoring one counts. Normalization is `evaldsl.stdlib.answer_text`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Annotated, Any, NamedTuple

from pydantic import AfterValidator, Field, model_validator
from rapidfuzz.distance import Levenshtein

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import TEXT_SCOPES, Scope, Unit
from evaldsl.i18n import _
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib._common import Params, over, unit_range
from evaldsl.stdlib._pins import scored
from evaldsl.stdlib.answer_text import normalized, raw_tokens, stop_set, without
from evaldsl.values import CheckResult


def _listed(expect: str | list[str]) -> list[str]:
    return expect if isinstance(expect, list) else [expect]


def _some(expect: str | list[str]) -> str | list[str]:
    if not _listed(expect):
        raise ValueError(_("give at least one expected answer"))
    return expect


Expected = Annotated[str | list[str], AfterValidator(_some)]
"""One expected answer, or several acceptable ones."""


class ExactParams(Params):
    expect: Expected
    """The expected answer, or several acceptable ones."""
    normalize: bool = True
    """Compare after SQuAD's normalization (case, punctuation, articles, white space);
    false: the texts as written, trimmed."""


@primitive("exact", params=ExactParams, scopes=TEXT_SCOPES, default_scope="last_reply",
           fields={"normalized": ValueType.TEXT, "expected": ValueType.TEXT},
           cost=Cost.FREE, value_type=ValueType.TEXT, dynamic={"expect"})
def exact(params: ExactParams) -> Any:
    """The whole reply equals an expected answer after normalization.

    `.normalized` (and `.value`) is the reply as compared, `.expected` the
    expected answer it equals (or the first one, normalized, when none does).

        check 答对 = exact(expect: case.answer)
    """
    form = normalized if params.normalize else str.strip
    wanted = [form(e) for e in _listed(params.expect)]
    known, first = frozenset(wanted), wanted[0]

    def judge(unit: Unit) -> CheckResult:
        reply = form(unit.text)
        if reply in known:
            return CheckResult(True, 1.0, reply, {"normalized": reply, "expected": reply})
        reason = _("`{reply}` is none of the expected answers").format(reply=_short(reply))
        return CheckResult(False, 0.0, reply, {"normalized": reply, "expected": first}, reason)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, judge)

    return evaluate


class F1Params(Params):
    expect: Expected
    """The expected answer, or several acceptable ones (the best F1 counts)."""
    min: float = Field(default=0.5, ge=0.0, le=1.0)
    """Lowest F1 that passes."""
    stop_words: list[str] = Field(default_factory=list)
    """Words left out of both texts before counting."""


class Overlap(NamedTuple):
    precision: float
    recall: float
    f1: float


def overlap(answer: list[str], expected: list[str]) -> Overlap:
    """SQuAD's token F1 of two token lists (counted with repeats).

    >>> overlap(["paris"], ["paris", "texas"]).f1
    0.6666666666666666
    """
    if not answer or not expected:
        same = float(answer == expected)
        return Overlap(same, same, same)
    return _scores(_common(Counter(answer), Counter(expected)), len(answer), len(expected))


def _common(answer: Mapping[str, int], expected: Mapping[str, int]) -> int:
    """How many tokens two texts share, counted with repeats, from their counts."""
    common = 0
    for token, wanted in expected.items():
        found = answer.get(token)
        if found:
            common += found if found < wanted else wanted
    return common


def _common_few(answer: list[str], expected: Mapping[str, int]) -> int:
    """`_common` for an expected answer of few distinct tokens: a count of each in the
    answer's list (in C) costs less than counting all the answer's tokens."""
    common = 0
    for token, wanted in expected.items():
        found = answer.count(token)
        if found:
            common += found if found < wanted else wanted
    return common


_FEW = 6
"""Distinct expected tokens up to which `_common_few` is the cheaper count."""


def _scores(common: int, answered: int, size: int) -> Overlap:
    """Precision, recall and F1 of `common` shared tokens of an answer of `answered` tokens
    and an expected answer of `size` tokens, neither empty."""
    if common == 0:
        return Overlap(0.0, 0.0, 0.0)
    precision, recall = common / answered, common / size
    return Overlap(precision, recall, 2 * precision * recall / (precision + recall))


@primitive("f1", params=F1Params, scopes=TEXT_SCOPES, default_scope="last_reply",
           fields={"precision": ValueType.NUMBER, "recall": ValueType.NUMBER,
                   "f1": ValueType.NUMBER},
           cost=Cost.FREE, value_range=unit_range, dynamic={"expect", "min"},
           pin=lambda p, f: scored(f, p.min))
def f1(params: F1Params) -> Any:
    """Token F1 between the reply and the expected answer (SQuAD), at least `min`.

    Both texts are normalized and split into words (Chinese by character);
    `.precision` is the share of the reply's tokens found in the expected
    answer, `.recall` the share of the expected tokens found in the reply,
    `.f1` (and `.score`, `.value`) their harmonic mean. With several expected
    answers the best F1 counts.

        check 覆盖 = f1(expect: case.answer, min: 0.6)
    """
    stop = stop_set(params.stop_words)
    expected = (without(raw_tokens(e), stop) for e in _listed(params.expect))
    wanted = [(Counter(t), len(t)) for t in expected if t]
    none = Overlap(0.0, 0.0, 0.0)

    def judge(unit: Unit) -> CheckResult:
        answer = without(raw_tokens(unit.text), stop)
        best = none
        if answer:
            counts: Counter[str] | None = None
            for expected, size in wanted:
                if len(expected) <= _FEW:
                    common = _common_few(answer, expected)
                else:
                    counts = Counter(answer) if counts is None else counts
                    common = _common(counts, expected)
                found = _scores(common, len(answer), size)
                if found.f1 > best.f1:
                    best = found
        passed = best.f1 >= params.min
        reason = "" if passed else _("F1 {f1:.2f} is below {min}").format(f1=best.f1,
                                                                         min=params.min)
        return CheckResult.of(passed, best.f1, best.f1, reason, precision=best.precision,
                              recall=best.recall, f1=best.f1)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, judge)

    return evaluate


class EditDistanceParams(Params):
    expect: Expected
    """The expected text, or several acceptable ones (the closest counts)."""
    min: float | None = Field(default=None, ge=0.0, le=1.0)
    """Lowest similarity (1 - distance / the longer length) that passes; 0.8 unless
    `max_distance` is given."""
    max_distance: int | None = Field(default=None, ge=0)
    """Most character edits that pass (promptfoo's `levenshtein` threshold)."""
    normalize: bool = False
    """Compare the normalized texts (SQuAD's normalization) instead of the texts as written."""

    @model_validator(mode="after")
    def _one_threshold(self) -> EditDistanceParams:
        if self.min is not None and self.max_distance is not None:
            raise ValueError(_("give `min` or `max_distance`, not both"))
        return self


@primitive("edit_distance", params=EditDistanceParams, scopes=TEXT_SCOPES,
           default_scope="last_reply",
           fields={"distance": ValueType.NUMBER, "similarity": ValueType.NUMBER},
           cost=Cost.FREE, value_range=unit_range, dynamic={"expect", "min", "max_distance"})
def edit_distance(params: EditDistanceParams) -> Any:
    """Levenshtein distance between the reply and the expected text, within a threshold.

    `.distance` counts the character insertions, deletions and substitutions
    (a Chinese character is one); `.similarity` (and `.score`, `.value`) is
    1 - distance / the longer length. It passes at `min` similarity (0.8 by
    default) or, with `max_distance`, at that many edits or fewer.

        check 复述 = edit_distance(expect: case.reference, min: 0.9)
    """
    form = normalized if params.normalize else str.strip
    wanted = [form(e) for e in _listed(params.expect)]
    least = 0.8 if params.min is None and params.max_distance is None else params.min

    def judge(unit: Unit) -> CheckResult:
        reply = form(unit.text)
        edits, similarity = _measure(reply, wanted[0])
        for other in wanted[1:]:  # the closest counts, the first of equals
            measured = _measure(reply, other)
            if measured[0] < edits:
                edits, similarity = measured
        if params.max_distance is not None:
            passed = edits <= params.max_distance
        else:
            passed = similarity >= (least or 0.0)
        reason = "" if passed else _("{edits} edits, similarity {similarity:.2f}").format(
            edits=edits, similarity=similarity)
        return CheckResult.of(passed, similarity, similarity, reason, distance=edits,
                              similarity=similarity)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, judge)

    return evaluate


def _measure(a: str, b: str) -> tuple[int, float]:
    edits: int = Levenshtein.distance(a, b)
    longest = max(len(a), len(b))
    return edits, 1.0 - edits / longest if longest else 1.0


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:59] + "…"
