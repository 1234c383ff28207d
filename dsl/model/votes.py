"""`votes: N` and `judges: [...]`: one answer from several samples, or several judges.

A judge asked the same question N times may answer differently; the check's
answer is then the samples' combination, and `.agreement` says how many of
them agree with it. A check whose answer is a point on a scale (`judge`) takes
the median sample; any other check (a label, a map of slots or steps) takes the
answer most samples gave. The median is the lower one for an even count, and a
tie goes to the answer the earliest sample gave: either way the combined answer
is one a sample really gave, with its reason, and the same samples always
combine to the same answer.

A sample that failed (a timeout, a malformed answer) is not a vote. It is
counted: `.votes` is the number of samples that answered, the denominator of
`.agreement`. When half of the samples or more failed, the check is an error
that says so, never a verdict drawn from a minority of what was asked.

Several judge models (`judges:`) combine the same way, each judge's own samples
first, by the rule the spec declares (`combine_judges`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from evaldsl.i18n import _
from evaldsl.values import CheckResult

Rule = Literal["majority", "median"]
"""How the samples' answers combine: the most common answer, or the median score."""


def combine_votes(samples: Sequence[CheckResult], rule: Rule, check: str) -> CheckResult:
    """The check's result from its samples, in sample order; see the module docstring."""
    if len(samples) == 1:
        return samples[0]
    answered = [s for s in samples if not s.is_error]
    if 2 * len(answered) <= len(samples):
        return _too_few(samples, len(answered), check)
    chosen = _median(answered) if rule == "median" else _majority(answered)
    agreeing = sum(1 for s in answered if _answer(s, rule) == _answer(chosen, rule))
    fields = {**chosen.fields, "agreement": agreeing / len(answered), "votes": len(answered)}
    return CheckResult(chosen.passed, chosen.score, chosen.value, fields, chosen.reason)


def combine_judges(members: Sequence[CheckResult], models: Sequence[str], rule: str,
                   vote: Rule, check: str) -> CheckResult:
    """The check's result from the answers of several judges (`judges:`), in their order.

    `rule` is the declared `combine`, else `vote`, the check's own rule: `median` and
    `majority` as for votes; `all` passes only when every judge passed (the first that
    failed speaks), `any` when one did (the first that passed). Whichever rule, the
    answer is one a judge gave, `.judge_agreement` is the share of the answering judges
    (`.judges`) whose answer equals it, and `.by_judge` keeps each one's value (None for
    a judge that failed) for the report's agreement across judges.
    """
    by_judge = {model: None if m.is_error else m.value for model, m in zip(models, members,
                                                                            strict=True)}
    answered = [m for m in members if not m.is_error]
    if 2 * len(answered) <= len(members):
        first = next(m for m in members if m.is_error)
        message = _("only {answered} of {judges} judges answered, too few to combine: "
                    "{reason}").format(answered=len(answered), judges=len(members),
                                       reason=first.reason)
        return CheckResult.error(message, check, judges=len(answered), by_judge=by_judge)
    chosen = _chosen(answered, rule, vote)
    agreeing = sum(1 for m in answered if _answer(m, vote) == _answer(chosen, vote))
    fields = {**chosen.fields, "judges": len(answered),
              "judge_agreement": agreeing / len(answered), "by_judge": by_judge}
    return CheckResult(chosen.passed, chosen.score, chosen.value, fields, chosen.reason)


def _chosen(answered: Sequence[CheckResult], rule: str, vote: Rule) -> CheckResult:
    if rule == "all":
        failed = [m for m in answered if m.passed is False]
        return failed[0] if failed else _chosen(answered, vote, vote)
    if rule == "any":
        passed = [m for m in answered if m.passed is True]
        return passed[0] if passed else _chosen(answered, vote, vote)
    return _median(answered) if rule == "median" else _majority(answered)


def _median(answered: Sequence[CheckResult]) -> CheckResult:
    """The sample at the lower median score (the earliest such sample)."""
    ranked = sorted(answered, key=lambda s: float(s.score))  # type: ignore[arg-type]
    middle = ranked[(len(ranked) - 1) // 2]
    return next(s for s in answered if s.score == middle.score)


def _majority(answered: Sequence[CheckResult]) -> CheckResult:
    """The sample whose answer most samples gave; a tie goes to the earliest sample."""
    counts: dict[str, int] = {}
    for sample in answered:
        key = _answer(sample, "majority")
        counts[key] = counts.get(key, 0) + 1
    return max(answered, key=lambda s: counts[_answer(s, "majority")])


def _answer(result: CheckResult, rule: Rule) -> str:
    """What two samples must share to agree: the score on a scale, else the whole
    answer (verdict, value and fields; never the reason, which is worded anew)."""
    if rule == "median":
        return repr(result.score)
    return json.dumps([result.passed, result.score, result.value, result.fields],
                      sort_keys=True, ensure_ascii=False, default=str)


def _too_few(samples: Sequence[CheckResult], answered: int, check: str) -> CheckResult:
    """The error for a check most of whose samples failed, with the first failure's reason."""
    first = next(s for s in samples if s.is_error)
    message = _("only {answered} of {votes} samples answered, too few to vote: "
                "{reason}").format(answered=answered, votes=len(samples), reason=first.reason)
    return CheckResult.error(message, check, votes=answered)
