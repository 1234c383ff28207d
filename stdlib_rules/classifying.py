"""`classify`: a chat model picks one label of a taxonomy.

Labels may be dotted paths (`booking.repair`); with `accept_partial` a label
in the same top-level family as the expected one passes at half score, so a
taxonomy can be judged at two grains without two checks.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationInfo, field_validator

from evaldsl.cases.scopes import ALL_SCOPES, Unit
from evaldsl.diagnostics import did_you_mean
from evaldsl.i18n import _
from evaldsl.model.checks import (
    VOTE_FIELDS,
    AnswerError,
    ChatCheck,
    ChatTask,
    Plan,
    VotedParams,
    overlay,
)
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib.judging import REASON
from evaldsl.values import CheckResult


class ClassifyParams(VotedParams):
    labels: dict[str, str] | list[str] = Field(min_length=1)
    """The taxonomy: label names, or a map from label to its description."""
    expect: str | list[str] | None = None
    """The right label (or any of several), one of `labels`; without it any label passes."""
    accept_partial: bool = False
    """Pass at half score when the label shares the expected one's top-level family."""

    @field_validator("labels")
    @classmethod
    def _no_empty_label(cls, labels: dict[str, str] | list[str]) -> dict[str, str] | list[str]:
        names = list(labels)
        if any(not n.strip() for n in names):
            raise ValueError(_("a label name is empty"))
        if len(set(names)) != len(names):
            raise ValueError(_("a label is listed twice"))
        return labels

    @field_validator("expect")
    @classmethod
    def _expected_is_a_label(cls, expect: str | list[str] | None,
                             info: ValidationInfo) -> str | list[str] | None:
        """A gold label outside the taxonomy can never be chosen: an error, not a miss."""
        names = list(info.data.get("labels") or [])
        wanted = [expect] if isinstance(expect, str) else list(expect or [])
        for label in wanted:
            if names and label not in names:
                raise ValueError(_("expected label {problem}").format(
                    problem=unknown_label(label, names)))
        return expect

    @property
    def names(self) -> list[str]:
        return list(self.labels)

    @property
    def expected(self) -> list[str]:
        if self.expect is None:
            return []
        return [self.expect] if isinstance(self.expect, str) else list(self.expect)


def unknown_label(label: str, names: list[str]) -> str:
    """Why `label` can be neither chosen nor expected: the labels there are, the closest one."""
    close = did_you_mean(label, names)
    more = _("; ") + close if close else ""
    return _("\"{label}\" is not a label of the taxonomy (labels: {names}{more})").format(
        label=label, names=", ".join(names), more=more)


def classify_result(params: ClassifyParams, label: str, reason: str = "") -> CheckResult:
    """Exact match passes; a same-family label passes at 0.5 under `accept_partial`."""
    expected = params.expected
    if not expected or label in expected:
        return CheckResult.of(True, 1.0, label, reason, label=label)
    family = label.split(".")[0]
    if params.accept_partial and any(e.split(".")[0] == family for e in expected):
        return CheckResult.of(True, 0.5, label, reason, label=label)
    return CheckResult.of(False, 0.0, label, reason or f"expected {' or '.join(expected)}",
                          label=label)


class ClassifyCheck(ChatCheck):
    def plan(self, params: ClassifyParams, unit: Unit) -> Plan:
        schema = {
            "type": "object",
            "properties": {"label": {"type": "string", "enum": params.names}, "reason": REASON},
            "required": ["label", "reason"],
            "additionalProperties": False,
        }
        if isinstance(params.labels, dict):
            listing = "; ".join(f"{k} = {v}" for k, v in params.labels.items())
        else:
            listing = ", ".join(params.labels)
        instruction = f"Which one label fits the text best? Labels: {listing}"
        shots = tuple((s.text, {"label": s.answer, "reason": s.why}) for s in params.examples)
        return Plan(ChatTask(instruction, schema, shots))

    def read(self, params: ClassifyParams, unit: Unit, plan: Plan, answer: Any) -> CheckResult:
        label = answer.get("label") if isinstance(answer, dict) else answer
        if label not in params.names:
            raise AnswerError(_("`{label}` is not one of the labels").format(label=label))
        reason = answer.get("reason", "") if isinstance(answer, dict) else ""
        return classify_result(params, str(label), reason if isinstance(reason, str) else "")


def _pin_classify(params: ClassifyParams, fields: dict[str, Any]) -> CheckResult:
    """The result for a pinned label; a label the judge could never choose is refused."""
    label = fields.get("label", fields.get("value", fields.get("passed")))
    if isinstance(label, str) and label not in params.names:
        raise ValueError(unknown_label(label, params.names))
    if isinstance(label, bool):
        chosen = params.expected[0] if label and params.expected else ""
        return overlay(CheckResult.of(label, value=chosen, label=chosen), fields)
    return overlay(classify_result(params, str(label)), fields)


@primitive("classify", params=ClassifyParams, scopes=ALL_SCOPES, default_scope="dialog",
           fields={"label": ValueType.TEXT, **VOTE_FIELDS}, cost=Cost.MODEL,
           value_type=ValueType.TEXT,
           dynamic={"expect"}, pin=_pin_classify)
def classify(params: ClassifyParams) -> ClassifyCheck:
    """A chat model picks one label; `.label` (and `.value`) is the label it chose.

    With `expect` the check passes when the label is the expected one. An
    expected label that is not one of `labels` is an error (E204 when it is a
    constant, an error value for a case whose gold label it is), never a miss.

        check intent = classify(scope: first_user, labels: intents, expect: case.intent)
    """
    return ClassifyCheck()
