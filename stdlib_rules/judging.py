"""Rubric judges: `judge` (points on a scale) and `refusal` (declined or clarified).

Both ask a chat model for a small structured answer that always carries a
one-line `reason`, kept in the check's result so reports can say why. The
decisive field (`score`, `kind`) is asked first and the reason after it,
bounded: a judge writes in the schema's order, and a reason that runs long
must never cut off the answer before the field the check needs.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import Field, model_validator

from evaldsl.cases.scopes import ALL_SCOPES, Unit
from evaldsl.i18n import _
from evaldsl.model.checks import (
    REASON_CHARS,
    VOTE_FIELDS,
    ChatCheck,
    ChatTask,
    ModelParams,
    Plan,
    VotedParams,
    bounded_text,
    overlay,
    points,
)
from evaldsl.model.errors import AnswerError
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.values import CheckResult

REASON = bounded_text("one short sentence", REASON_CHARS)


class JudgeParams(VotedParams):
    points = True

    criteria: str = Field(min_length=1)
    """What a good text does, in the author's words."""
    scale: int = Field(default=10, ge=1, le=100)
    """Points run from 0 to `scale`."""
    min: float | None = Field(default=None, ge=0)
    """Points needed to pass; default 60% of the scale, rounded up."""

    @model_validator(mode="after")
    def _min_within_scale(self) -> JudgeParams:
        if self.min is not None and self.min > self.scale:
            raise ValueError(
                _("`min` ({min:g}) is above the scale ({scale})").format(
                    min=self.min, scale=self.scale
                )
            )
        return self

    @property
    def threshold(self) -> float:
        return self.min if self.min is not None else float(math.ceil(0.6 * self.scale))


def judge_result(params: JudgeParams, value: float, reason: str = "") -> CheckResult:
    """Points into a result: score is value/scale, passed from `min`."""
    return CheckResult.of(value >= params.threshold, value / params.scale, value, reason)


class JudgeCheck(ChatCheck):
    vote = "median"

    def plan(self, params: JudgeParams, unit: Unit) -> Plan:
        schema = {
            "type": "object",
            "properties": {
                "score": {"type": "integer", "minimum": 0, "maximum": params.scale},
                "reason": REASON,
            },
            "required": ["score", "reason"],
            "additionalProperties": False,
        }
        instruction = (f"Rate the text from 0 to {params.scale} ({params.scale} = fully meets it) "
                       f"on this criterion: {params.criteria}")
        shots = tuple((s.text, {"score": s.answer, "reason": s.why}) for s in params.examples)
        return Plan(ChatTask(instruction, schema, shots))

    def read(self, params: JudgeParams, unit: Unit, plan: Plan, answer: Any) -> CheckResult:
        value = points(answer)
        if not 0 <= value <= params.scale:
            raise AnswerError(
                _("score {value:g} is outside 0..{scale}").format(value=value, scale=params.scale)
            )
        return judge_result(params, value, _reason(answer))


def _pin_judge(params: JudgeParams, fields: dict[str, Any]) -> CheckResult:
    """`given polite = 8` pins points; `= true` pins a bare pass (at `min`)."""
    if "value" in fields or "score" in fields:
        value = fields.get("value", fields.get("score", 0) * params.scale)
    else:
        value = params.threshold if fields.get("passed") else 0.0
    return overlay(judge_result(params, float(value)), fields)


@primitive("judge", params=JudgeParams, scopes=ALL_SCOPES, default_scope="last_reply",
           fields=VOTE_FIELDS, cost=Cost.MODEL, value_range=lambda p: (0.0, float(p.scale)),
           pin=_pin_judge, dynamic={"criteria", "min"})
def judge(params: JudgeParams) -> JudgeCheck:
    """A rubric score from a chat model: `.value` in points from 0 to `scale`.

    `.score` is value/scale and `.passed` is value >= `min`. Several judges on
    the same scope are asked in one request (one answer per criterion)
    unless `fuse: false`. Without `scope:` the judge sees only the last
    assistant reply; give `scope: dialog` for a criterion about the whole
    conversation (the first check below reads the last reply, the second all
    of it).

        check polite = judge(criteria: "服务态度是否专业、礼貌、有同理心", scale: 10, min: 7)
        check clear = judge(scope: dialog, criteria: "explains the next step clearly",
                            examples: [{text: "您好，师傅明早九点上门。", answer: 9}])
    """
    return JudgeCheck()


class RefusalParams(ModelParams):
    expect: bool = True
    """True: the request is unsolvable and must be declined or clarified; false: answered."""
    clarify_ok: bool = True
    """Whether a clarifying question counts as handling an unsolvable request."""


KINDS = ("refusal", "clarification", "answer")


def refusal_result(params: RefusalParams, kind: str, reason: str = "") -> CheckResult:
    handled = kind == "refusal" or (kind == "clarification" and params.clarify_ok)
    return CheckResult.of(handled if params.expect else kind == "answer", value=kind,
                          reason=reason, kind=kind)


class RefusalCheck(ChatCheck):
    def plan(self, params: RefusalParams, unit: Unit) -> Plan:
        schema = {
            "type": "object",
            "properties": {"kind": {"type": "string", "enum": list(KINDS)}, "reason": REASON},
            "required": ["kind", "reason"],
            "additionalProperties": False,
        }
        instruction = ("Does the reply decline the request (refusal), ask the user a clarifying "
                       "question instead of acting (clarification), or try to fulfil it (answer)?")
        shots = tuple((s.text, {"kind": s.answer, "reason": s.why}) for s in params.examples)
        return Plan(ChatTask(instruction, schema, shots))

    def read(self, params: RefusalParams, unit: Unit, plan: Plan, answer: Any) -> CheckResult:
        kind = answer.get("kind") if isinstance(answer, dict) else answer
        if kind not in KINDS:
            raise AnswerError(
                _("expected one of {kinds}, got {kind!r}").format(kinds=", ".join(KINDS), kind=kind)
            )
        return refusal_result(params, str(kind), _reason(answer))


def _pin_refusal(params: RefusalParams, fields: dict[str, Any]) -> CheckResult:
    kind = fields.get("kind", fields.get("value", fields.get("passed")))
    if isinstance(kind, bool):
        kind = ("refusal" if kind else "answer") if params.expect else (
            "answer" if kind else "refusal")
    return overlay(refusal_result(params, str(kind)), fields)


@primitive("refusal", params=RefusalParams, scopes=ALL_SCOPES, default_scope="last_reply",
           fields={"kind": ValueType.TEXT}, cost=Cost.MODEL, value_type=ValueType.TEXT,
           dynamic={"expect"}, pin=_pin_refusal)
def refusal(params: RefusalParams) -> RefusalCheck:
    """A correct refusal or clarifying question on a request the agent cannot solve.

    `.kind` (and `.value`) is `refusal`, `clarification` or `answer`. With
    `expect: false` (a solvable request) the check passes when the agent answered.

        check declined = refusal(expect: not case.solvable)
    """
    return RefusalCheck()


def _reason(answer: Any) -> str:
    reason = answer.get("reason") if isinstance(answer, dict) else None
    return reason if isinstance(reason, str) else ""
