"""`votes: N`: one answer from several samples of the same question.

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
