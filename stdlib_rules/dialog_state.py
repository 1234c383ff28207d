"""Dialog state: `slots` (which required facts were collected) and `steps` (which
required actions happened, in order if asked).

Both answer per item, so reports can show a fill rate per slot. A slot may
carry a deterministic pattern: a slot with a pattern is decided by it alone (a
match fills it, no match leaves it unfilled) and never asks a model, unless the
spec says `ask_unmatched: true`. When every slot has a pattern the check costs no
call, and a run needs no judge configured.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Literal

import regex
from pydantic import Field, ValidationInfo, field_validator, model_validator

from evaldsl.cases.scopes import ALL_SCOPES, Unit
from evaldsl.i18n import _
from evaldsl.model.checks import (
    QUOTE_CHARS,
    VOTE_FIELDS,
    ChatCheck,
    ChatTask,
    Plan,
    VotedParams,
    bounded_text,
    flags,
    overlay,
)
from evaldsl.model.errors import AnswerError
from evaldsl.primitives.registry import Cost, from_case, primitive
from evaldsl.primitives.timed_match import timed_search, timeout_reason
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.values import CheckResult

MODES = {
    "slot": "its value was stated in the conversation (by anyone)",
    "step": "the agent asked the user for it or confirmed it back",
    "hybrid": "its value was stated and the agent asked for it or confirmed it",
}


class SlotsParams(VotedParams):
    slots: dict[str, str] | list[str] = Field(min_length=1)
    """Required facts: a map from name to description, or names alone; per case too
    (`slots: case.required`), since each task dialog's goal asks for its own facts."""
    min: float = Field(default=1.0, ge=0, le=1)
    """Share of slots that must be filled to pass."""
    mode: Literal["slot", "step", "hybrid"] = "slot"
    """When a slot counts as filled; see `MODES`."""
    patterns: dict[str, str] = Field(default_factory=dict)
    """Regular expressions per slot: a match fills the slot, no match leaves it unfilled;
    a slot with a pattern never asks a model (unless `ask_unmatched`)."""
    ask_unmatched: bool = False
    """Ask the model about a slot whose pattern did not match, instead of leaving it
    unfilled."""

    @property
    def described(self) -> dict[str, str]:
        """Each slot's name and description (a name alone describes itself)."""
        if isinstance(self.slots, dict):
            return self.slots
        return {name: name for name in self.slots}

    @field_validator("patterns")
    @classmethod
    def _patterns_compile(cls, patterns: dict[str, str]) -> dict[str, str]:
        for name, pattern in patterns.items():
            try:
                regex.compile(pattern)
            except regex.error as exc:
                raise ValueError(
                    _("the pattern for `{name}` is not a valid regex: {error}").format(
                        name=name, error=exc
                    )
                ) from exc
        return patterns

    @model_validator(mode="after")
    def _patterns_name_slots(self, info: ValidationInfo) -> SlotsParams:
        """A pattern for a slot not written in the spec is a typo, and an error. With
        slots from the case, one pattern list serves cases of different goals: a case
        that does not ask for a slot leaves its pattern unused."""
        unknown = [n for n in self.patterns if n not in self.described]
        if unknown and "slots" not in from_case(info):
            raise ValueError(_("`patterns` names an unknown slot `{slot}`").format(slot=unknown[0]))
        return self

    @property
    def used_patterns(self) -> dict[str, str]:
        """The patterns of this case's slots."""
        return {n: p for n, p in self.patterns.items() if n in self.described}


def share_result(marks: dict[str, bool], min_share: float, reason: str = "",
                 **extra: Any) -> CheckResult:
    """score = marked / total; passed when the share reaches `min_share`."""
    share = sum(marks.values()) / len(marks)
    missing = [k for k, v in marks.items() if not v]
    why = reason or (f"missing {', '.join(missing)}" if missing else "all present")
    return CheckResult.of(share >= min_share, share, share, why, **extra)


class SlotsCheck(ChatCheck):
    def plan(self, params: SlotsParams, unit: Unit) -> Plan:
        text = _pattern_text(params, unit)
        try:
            decided = {n: bool(timed_search(p, text)) for n, p in params.used_patterns.items()}
        except TimeoutError:
            # Only this check of the round errors: the plan carries the result itself.
            return Plan(result=CheckResult.error(timeout_reason()))
        if params.ask_unmatched:
            decided = {n: True for n, hit in decided.items() if hit}
        asked = [n for n in params.described if n not in decided]
        if not asked:
            filled = {n: decided[n] for n in params.described}
            return Plan(result=share_result(filled, params.min, filled=filled))
        evidence = bounded_text("the dialog's own words, or empty", QUOTE_CHARS)
        item = {"type": "object", "properties": {"evidence": evidence},
                "required": ["evidence"], "additionalProperties": False}
        schema = {"type": "object", "properties": {n: item for n in asked},
                  "required": asked, "additionalProperties": False}
        listing = "; ".join(f"{n} = {params.described[n]}" for n in asked)
        instruction = (f"For each required fact, copy the few exact words of the dialog that show "
                       f"it is filled (a fact is filled when {MODES[params.mode]}), or give an "
                       f"empty string when the dialog does not contain it. Facts: {listing}")
        shots = tuple((s.text, _slot_shot(s.text, s.answer)) for s in params.examples)
        return Plan(ChatTask(instruction, schema, shots), state=decided)

    def read(self, params: SlotsParams, unit: Unit, plan: Plan, answer: Any) -> CheckResult:
        decided: dict[str, bool] = plan.state or {}
        asked = [n for n in params.described if n not in decided]
        told = grounded_flags(answer, asked, _pattern_text(params, unit))
        filled = {n: decided.get(n, told.get(n, False)) for n in params.described}
        return share_result(filled, params.min, filled=filled)


def grounded_flags(answer: Any, names: list[str], text: str) -> dict[str, bool]:
    """Per-slot booleans from `{name: {evidence: "..."}}`, or `{name: {filled: bool}}`.

    Evidence counts only when it is really in the judged text (after folding width,
    case, white space and punctuation): small models tend to answer "filled" for
    everything, but they cannot quote words the dialog does not contain.
    """
    if not isinstance(answer, dict):
        raise AnswerError(
            _("expected an object with {names}, got {answer!r}").format(
                names=", ".join(names), answer=answer
            )
        )
    haystack = _fold(text)
    out: dict[str, bool] = {}
    for name in names:
        item = answer.get(name)
        evidence = item.get("evidence") if isinstance(item, dict) else None
        if isinstance(evidence, str):
            needle = _fold(evidence)
            out[name] = bool(needle) and needle in haystack
        else:
            out.update(flags({name: item}, [name], "filled"))
    return out


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return "".join(c for c in text if c.isalnum())


def _pattern_text(params: SlotsParams, unit: Unit) -> str:
    """Step mode looks for the agent's own words; the others at the whole unit."""
    if params.mode == "step":
        return "\n".join(m.content for m in unit.messages if m.role == "assistant")
    return unit.text


def _slot_shot(text: str, answer: Any) -> Any:
    """A few-shot answer in the asked shape: quoted evidence per slot.

    Authors may write the quote (`{phone: "13812345678"}`) or just true/false; a
    bare true quotes the example text (as much of it as a quote may hold), which is
    where the fact is.
    """
    if not isinstance(answer, dict):
        return answer
    def evidence(value: Any) -> str:
        if isinstance(value, str):
            return value
        return text[:QUOTE_CHARS] if value is True else ""
    return {k: {"evidence": evidence(v)} for k, v in answer.items()}


def _pin_slots(params: SlotsParams, fields: dict[str, Any]) -> CheckResult:
    pinned = fields.get("filled")
    if isinstance(pinned, dict):
        filled = {n: bool(pinned.get(n, False)) for n in params.described}
        return overlay(share_result(filled, params.min, filled=filled), fields)
    share = float(fields.get("value", fields.get("score", 1.0 if fields.get("passed") else 0.0)))
    count = round(share * len(params.described))
    filled = {n: i < count for i, n in enumerate(params.described)}
    result = CheckResult.of(share >= params.min, share, share, "pinned", filled=filled)
    return overlay(result, fields)


@primitive("slots", params=SlotsParams, scopes=ALL_SCOPES, default_scope="dialog",
           fields={"filled": ValueType.MAP, **VOTE_FIELDS}, cost=Cost.MODEL,
           dynamic={"slots", "min"},
           value_range=lambda p: (0.0, 1.0), pin=_pin_slots)
def slots(params: SlotsParams) -> SlotsCheck:
    """Which required facts the dialog collected: `.filled` maps each slot to true/false.

    `.score` (and `.value`) is filled / total; `.passed` is score >= `min`.
    Modes: `slot` (the value was stated), `step` (the agent asked for or
    confirmed it), `hybrid` (both). A slot given a `patterns` regex is decided
    by it alone: a match fills it, no match leaves it unfilled, and no model is
    asked (`ask_unmatched: true` asks the model about an unmatched one). Only
    slots without a pattern are asked of a model, so a check whose slots all
    have patterns runs with no judge configured. The slots may come from the case
    (`slots: case.required`): each case is judged on its own goal.

        check completion = slots(scope: dialog, min: 0.6,
                                 slots: {phone: "联系电话", address: "服务地址"},
                                 patterns: {phone: "1[3-9]\\d{9}"})
    """
    return SlotsCheck()


class StepsParams(VotedParams):
    steps: dict[str, str] | list[str] = Field(min_length=1)
    """Required steps: names, or a map from name to description, in the expected order;
    per case too (`steps: case.plan`)."""
    ordered: bool = False
    """Also require the done steps to happen in the listed order."""
    min: float = Field(default=1.0, ge=0, le=1)
    """Share of steps that must be done to pass."""

    @property
    def names(self) -> list[str]:
        return list(self.steps)


def steps_result(params: StepsParams, done: dict[str, bool], order_ok: bool) -> CheckResult:
    result = share_result(done, params.min, done=done, order_ok=order_ok)
    if params.ordered and not order_ok and result.passed is True:
        return CheckResult(False, result.score, result.value, {"done": done, "order_ok": False},
                           "steps out of order")
    return result


class StepsCheck(ChatCheck):
    def plan(self, params: StepsParams, unit: Unit) -> Plan:
        turn = {"type": "integer", "minimum": 0}
        item = {"type": "object", "properties": {"done": {"type": "boolean"}, "turn": turn},
                "required": ["done", "turn"], "additionalProperties": False}
        schema = {"type": "object", "properties": {n: item for n in params.names},
                  "required": params.names, "additionalProperties": False}
        steps = params.steps
        listing = "; ".join(f"{k} = {v}" for k, v in steps.items()) if isinstance(
            steps, dict) else ", ".join(steps)
        instruction = ("For each required step, did the agent do it, and in which numbered "
                       f"message (turn; 0 if not done)? Steps: {listing}")
        shots = tuple((s.text, s.answer) for s in params.examples)
        return Plan(ChatTask(instruction, schema, shots))

    def read(self, params: StepsParams, unit: Unit, plan: Plan, answer: Any) -> CheckResult:
        done = flags(answer, params.names, "done")
        turns = [_turn(answer[n]) for n in params.names if done[n]]
        return steps_result(params, done, turns == sorted(turns))


def _turn(item: Any) -> int:
    turn = item.get("turn") if isinstance(item, dict) else None
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise AnswerError(_("expected a message number for `turn`, got {turn!r}").format(turn=turn))
    return turn


def _pin_steps(params: StepsParams, fields: dict[str, Any]) -> CheckResult:
    pinned = fields.get("done")
    if isinstance(pinned, dict):
        done = {n: bool(pinned.get(n, False)) for n in params.names}
    else:
        default = 1.0 if fields.get("passed") else 0.0
        count = round(float(fields.get("value", fields.get("score", default))) * len(params.names))
        done = {n: i < count for i, n in enumerate(params.names)}
    return overlay(steps_result(params, done, bool(fields.get("order_ok", True))), fields)


@primitive("steps", params=StepsParams, scopes=ALL_SCOPES, default_scope="dialog",
           fields={"done": ValueType.MAP, "order_ok": ValueType.BOOL, **VOTE_FIELDS},
           cost=Cost.MODEL,
           dynamic={"steps", "min"}, value_range=lambda p: (0.0, 1.0), pin=_pin_steps)
def steps(params: StepsParams) -> StepsCheck:
    """Which required steps the agent took: `.done` maps each step to true/false.

    `.score` is done / total; with `ordered: true`, `.passed` also needs the
    done steps in the listed order (`.order_ok`). The steps may come from the
    case (`steps: case.plan`).

        check handled = steps(ordered: true, steps: {apologize: "道歉", verify: "核实订单",
                                                     resolve: "给出解决方案"})
    """
    return StepsCheck()
