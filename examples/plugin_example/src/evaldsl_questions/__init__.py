"""The `questions` primitive: how many questions a reply asks the user.

An agent that collects facts (a name, an address, a time) has to ask for them;
a reply that asks nothing stalls the dialog, one that asks five at once
overwhelms the user. `questions` counts the question marks of a reply (ASCII
`?` and the full-width `？` of Chinese text) and passes within `min`..`max`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from evaldsl import Case, CheckResult, Cost, Scope, Unit, evaluate_over, primitive

REPLY_SCOPES = {"last_reply", "replies", "each_reply", "any_reply", "turn"}


class QuestionParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min: int = Field(default=1, ge=0)
    """Fewest questions a reply should ask."""
    max: int | None = Field(default=None, ge=0)
    """Most questions a reply may ask at once; no limit by default."""


@primitive("questions", params=QuestionParams, scopes=REPLY_SCOPES,
           default_scope="last_reply", cost=Cost.FREE)
def questions(params: QuestionParams) -> object:
    """The number of questions a reply asks (`?` and `？`), within `min`..`max`.

    `.value` is the count; `.score` is 1 within bounds and 0 outside.

        check 追问 = questions(scope: each_reply, max: 2)
    """

    def judge(unit: Unit) -> CheckResult:
        count = unit.text.count("?") + unit.text.count("？")
        passed = count >= params.min and (params.max is None or count <= params.max)
        reason = "" if passed else f"{count} questions, outside {params.min}..{params.max or '∞'}"
        return CheckResult.of(passed, None, count, reason)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return evaluate_over(case, scope, judge)

    return evaluate
