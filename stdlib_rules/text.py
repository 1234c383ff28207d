"""Text primitives: `keyword`, `regex` and `length`.

They read the text of the units a scope selects; none needs a model, so all
are FREE. `regex` runs under the `regex` module's timeout: a pattern that
backtracks catastrophically on some reply gives an error value for that case
(the reply could not be judged), never a silent fail.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal

import regex
from pydantic import AfterValidator, Field, field_validator, model_validator

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import TEXT_SCOPES, Scope, Unit, evaluate_over
from evaldsl.i18n import _
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.tables import IDENTITY, NormalizationTable
from evaldsl.primitives.timed_match import timed_search, timeout_reason
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib._common import Params, Table, over, unit_range
from evaldsl.stdlib._pins import measured, scored
from evaldsl.values import CheckResult


def _a_word(word: str) -> str:
    """An empty word is found in every text, so it would pass or fail every case unseen."""
    if not word.strip():
        raise ValueError(_("a keyword is empty or only spaces"))
    return word


Word = Annotated[str, AfterValidator(_a_word)]
"""A keyword: a text with something besides spaces."""


Formulas = Literal["keep", "leave_out"]
"""Whether a text check reads the closing and courtesy formulas (`evaldsl.stdlib.sentences`)."""


def unit_text(unit: Unit, formulas: Formulas) -> str:
    """The text a check reads: the unit's, or with `leave_out` each message's sentences
    without the formulas, one message a line."""
    if formulas == "keep":
        return unit.text
    from evaldsl.stdlib.sentences import without_formulas  # only specs that leave them out

    return "\n".join(without_formulas(m.content) for m in unit.messages)


class KeywordParams(Params):
    all: list[Word] = Field(default_factory=list)
    """Words that must all appear; each counts once toward the score."""
    any: list[Word] = Field(default_factory=list)
    """Words of which one is enough; together they count once."""
    none: list[Word] = Field(default_factory=list)
    """Words that must not appear; one of them fails the check."""
    min_ratio: float = Field(default=1.0, ge=0.0, le=1.0)
    """Share of required words that must be present to pass."""
    table: Table | None = None
    """Normalization applied to the text and the words; its synonyms count as the word."""
    formulas: Formulas = "keep"
    """`leave_out`: read each message without its closing and courtesy formulas
    ("Is there anything else?", "不用了谢谢"; the shipped zh/en lexicon)."""

    @model_validator(mode="after")
    def _something_to_look_for(self) -> KeywordParams:
        # Per-case lists may be empty (nothing forbidden for this case); only a call
        # that names none of the three is a mistake.
        if not self.model_fields_set & {"all", "any", "none"}:
            raise ValueError(_("give at least one of `all`, `any` or `none`"))
        return self


@primitive("keyword", params=KeywordParams, scopes=TEXT_SCOPES, default_scope="last_reply",
           fields={"matched": ValueType.LIST, "missing": ValueType.LIST,
                   "forbidden": ValueType.LIST},
           cost=Cost.FREE, value_range=unit_range,
           dynamic={"all", "any", "none", "min_ratio"},
           pin=lambda p, f: scored(f, p.min_ratio))
def keyword(params: KeywordParams) -> Any:
    """Literal presence of words; score = matched / required.

    `all` words count one each, the `any` group counts once; any `none` word
    fails the check whatever the score. With `table:` both the text and the
    words are normalized and every synonym the table maps to the same target
    counts as the word.

        check 致歉 = keyword(scope: replies, any: ["抱歉", "不好意思"], none: ["不知道"])
    """
    table = params.table or IDENTITY
    words = {w: tuple(v for v in variants(table, w) if v)
             for w in [*params.all, *params.any, *params.none]}
    all_words, any_words, none_words = params.all, params.any, params.none
    required = len(all_words) + (1 if any_words else 0)
    min_ratio, formulas = params.min_ratio, params.formulas
    keep = formulas == "keep"  # `unit_text` of the common check, without the call

    def present(word: str, text: str) -> bool:
        for v in words[word]:
            if v in text:
                return True
        return False

    def judge(unit: Unit) -> CheckResult:
        # every case of a run passes here: plain loops, no call per word that is found
        text = table.clean(unit.text if keep else unit_text(unit, formulas))
        found: list[str] = []
        missing: list[str] = []
        for w in all_words:
            (found if present(w, text) else missing).append(w)
        any_hit = [w for w in any_words if present(w, text)]
        forbidden = [w for w in none_words if present(w, text)]
        matched = len(found) + (1 if any_hit else 0)
        score = matched / required if required else 1.0
        if any_words and not any_hit:
            missing.append(" / ".join(any_words))
        passed = score >= min_ratio and not forbidden
        return CheckResult(passed, score, score,
                           {"matched": found + any_hit, "missing": missing,
                            "forbidden": forbidden},
                           _keyword_reason(missing, forbidden) if missing or forbidden else "")

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return evaluate_over(case, scope, judge)

    return evaluate


def variants(table: NormalizationTable, word: str) -> tuple[str, ...]:
    """The word, its normalized form and every table source mapping to that form."""
    target = table.normalize(word)
    sources = [src for src, dst in table.mapping.items() if dst == target]
    return tuple(dict.fromkeys([table.clean(word), target, *sources]))


def _keyword_reason(missing: list[str], forbidden: list[str]) -> str:
    parts = []
    if missing:
        parts.append("missing " + ", ".join(f"`{w}`" for w in missing))
    if forbidden:
        parts.append("forbidden " + ", ".join(f"`{w}`" for w in forbidden))
    return "; ".join(parts)


class RegexParams(Params):
    pattern: str
    """A regular expression (the `regex` module's syntax, a superset of Python's `re`)."""
    must_match: bool = True
    """`false` turns the check around: the pattern must not occur."""
    ignore_case: bool = False
    """Letters match regardless of case."""
    timeout_ms: int = Field(default=200, ge=1, le=10_000)
    """Longest time one search may take before the case's value becomes an error."""
    expect: str | list[str] | None = None
    """Text a captured group must equal (or one of several texts); with `ignore_case`,
    compared regardless of case."""
    group: int | str | None = None
    """The group compared with `expect`, by number or name; by default every group of the
    match, and one equal to `expect` is enough."""
    all_groups: bool = False
    """With `expect`: every group that took part in the match must equal an expected text."""
    formulas: Formulas = "keep"
    """`leave_out`: search each message without its closing and courtesy formulas, so
    "Is there anything else?" is no question asked back and "No, that's it" no correction."""

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            compiled(pattern, False)
        except regex.error as exc:
            raise ValueError(_("invalid regular expression: {error}").format(error=exc)) from None
        return pattern

    @model_validator(mode="after")
    def _groups(self) -> RegexParams:
        if self.expect is not None and not self.must_match:
            raise ValueError(_("`expect` compares what the pattern captured, so it needs "
                               "`must_match: true`"))
        pattern = compiled(self.pattern, False)
        if isinstance(self.group, int) and not 0 <= self.group <= pattern.groups:
            raise ValueError(_("the pattern has no group {group}").format(group=self.group))
        if isinstance(self.group, str) and self.group not in pattern.groupindex:
            raise ValueError(_("the pattern has no group named `{group}`").format(
                group=self.group))
        return self


@lru_cache(maxsize=1024)
def compiled(pattern: str, ignore_case: bool) -> regex.Pattern[str]:
    """A compiled pattern, shared by every case and check that uses it."""
    return regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)


@primitive("regex", params=RegexParams, scopes=TEXT_SCOPES, default_scope="last_reply",
           fields={"match": ValueType.TEXT, "group": ValueType.TEXT}, cost=Cost.FREE,
           value_type=ValueType.TEXT, dynamic={"pattern", "must_match", "expect"})
def regex_check(params: RegexParams) -> Any:
    """A pattern must (or, with `must_match: false`, must not) occur in the text.

    `.value` and `.match` hold the first match (empty when there is none). With
    `expect`, a group the pattern captured must also equal the expected text;
    `.group` is the group compared (the first group without `expect`). The
    search runs under a timeout: catastrophic backtracking makes the case an
    error, not a fail.

        check 工单号 = regex(pattern: "工单号[:：]?\\s*[A-Z]{2}\\d{6}")
        check 答案 = regex(pattern: "ANSWER: *([A-D])", expect: case.choice)
    """
    pattern = compiled(params.pattern, params.ignore_case)
    timeout = params.timeout_ms / 1000
    wanted = _expected_texts(params)
    keep = params.formulas == "keep"  # `unit_text` of the common check, without the call

    def judge(unit: Unit) -> CheckResult:
        try:
            found = timed_search(pattern, unit.text if keep else unit_text(unit, params.formulas),
                                 timeout)
        except TimeoutError:
            return CheckResult.error(timeout_reason(timeout))
        text = found.group(0) if found else ""
        groups = _captured(found, params.group)
        if wanted is not None and found is not None:
            return _group_verdict(text, groups, wanted, params)
        passed = (found is not None) == params.must_match
        reason = "" if passed else ("no match" if params.must_match else f"matched `{text}`")
        return CheckResult.of(passed, None, text, reason, match=text,
                              group=groups[0] if groups else "")

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return evaluate_over(case, scope, judge)

    return evaluate


def _expected_texts(params: RegexParams) -> list[str] | None:
    if params.expect is None:
        return None
    texts = params.expect if isinstance(params.expect, list) else [params.expect]
    return [t.casefold() for t in texts] if params.ignore_case else texts


def _captured(found: regex.Match[str] | None, group: int | str | None) -> list[str]:
    """The groups to compare: the one named, else every group that took part (else the
    whole match, for a pattern without groups)."""
    if found is None:
        return []
    if group is not None:
        value = found.group(group)
        return [] if value is None else [value]
    groups = [g for g in found.groups() if g is not None]
    return groups if found.re.groups else [found.group(0)]


def _group_verdict(text: str, groups: list[str], wanted: list[str],
                   params: RegexParams) -> CheckResult:
    def equal(group: str) -> bool:
        return (group.casefold() if params.ignore_case else group) in wanted

    if params.all_groups:
        passed = bool(groups) and all(equal(g) for g in groups)
        shown = groups[0] if groups else ""
    else:
        shown = next((g for g in groups if equal(g)), groups[0] if groups else "")
        passed = any(equal(g) for g in groups)
    reason = "" if passed else _("captured {groups}, expected {expected}").format(
        groups=", ".join(f"`{g}`" for g in groups) or _("nothing"),
        expected=" / ".join(f"`{w}`" for w in wanted))
    return CheckResult.of(passed, None, text, reason, match=text, group=shown)


class LengthParams(Params):
    min_chars: int | None = Field(default=None, ge=0)
    """Fewest characters a reply may have."""
    max_chars: int | None = Field(default=None, ge=1)
    """Most characters a reply may have."""

    @model_validator(mode="after")
    def _bounds(self) -> LengthParams:
        if self.min_chars is None and self.max_chars is None:
            raise ValueError(_("give `min_chars`, `max_chars` or both"))
        if self.min_chars is not None and self.max_chars is not None:
            if self.min_chars > self.max_chars:
                raise ValueError(_("`min_chars` is larger than `max_chars`"))
        return self


@primitive("length", params=LengthParams, scopes=TEXT_SCOPES, default_scope="last_reply",
           fields={"chars": ValueType.NUMBER}, cost=Cost.FREE,
           dynamic={"min_chars", "max_chars"},
           pin=lambda p, f: measured(f, lambda v: (p.min_chars or 0) <= v <= (p.max_chars or v),
                                     "chars"))
def length(params: LengthParams) -> Any:
    """Reply size in characters (a Chinese character counts one), within bounds.

    `.value` is the number of characters (the largest one over `each_reply`),
    counted after trimming white space at both ends.

        check 简洁 = length(scope: each_reply, max_chars: 200)
    """
    low = params.min_chars if params.min_chars is not None else 0
    high = params.max_chars

    def judge(unit: Unit) -> CheckResult:
        chars = len(unit.text.strip())
        passed = chars >= low and (high is None or chars <= high)
        reason = "" if passed else f"{chars} characters, outside {low}..{high or '∞'}"
        return CheckResult.of(passed, None, chars, reason, chars=chars)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, judge, worst=max)

    return evaluate
