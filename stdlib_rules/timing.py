"""Timing and efficiency primitives: `latency` and `turns`.

Latency comes from the transcript (`latency_ms` on assistant messages). A
reply without it is an error value, never a pass: a missing measurement says
nothing about speed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import REPLY_SCOPES, Scope, Unit
from evaldsl.i18n import _
from evaldsl.primitives.registry import Cost, primitive
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.stdlib._common import Params, over
from evaldsl.stdlib._pins import measured
from evaldsl.values import CheckResult


class LatencyParams(Params):
    max_ms: float = Field(gt=0)
    """The slowest acceptable reply, in milliseconds."""


@primitive("latency", reads_text=False,
           params=LatencyParams, scopes=REPLY_SCOPES | {"dialog"},
           default_scope="each_reply", fields={"slowest_ms": ValueType.NUMBER},
           cost=Cost.FREE, dynamic={"max_ms"},
           pin=lambda p, f: measured(f, lambda v: v <= p.max_ms, "slowest_ms"))
def latency(params: LatencyParams) -> Any:
    """Per-reply latency from the transcript against `max_ms`.

    `.value` is the slowest reply in the scope, in milliseconds. Over
    `each_reply` the score is the share of replies fast enough. A reply with no
    `latency_ms` makes the value an error.

        check 快 = latency(scope: each_reply, max_ms: 3000)
    """

    max_ms = params.max_ms

    def judge(unit: Unit) -> CheckResult:
        # one pass over the unit (every reply of every case goes through it); the slowest
        # is chosen as `max` chooses, the first of equal times
        slowest: float | None = None
        for m in unit.messages:
            if m.role == "assistant":
                t = m.latency_ms
                if t is None:
                    return CheckResult.error(_("an assistant reply has no `latency_ms`"))
                if slowest is None or t > slowest:
                    slowest = t
        if slowest is None:
            return CheckResult.error(_("no assistant reply to time"))
        passed = slowest <= max_ms
        reason = "" if passed else f"{slowest:g} ms > {max_ms:g} ms"
        return CheckResult(passed, 1.0 if passed else 0.0, slowest, {"slowest_ms": slowest},
                           reason)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        result = over(case, scope, judge, worst=max)
        if not result.is_error:
            result.fields["slowest_ms"] = result.value
        return result

    return evaluate


TurnCount = Literal["user", "assistant", "messages"]


class TurnsParams(Params):
    max: int | None = Field(default=None, ge=1)
    """Most turns an efficient dialog takes."""
    min: int | None = Field(default=None, ge=0)
    """Fewest turns (a dialog that ends too early)."""
    count: TurnCount = "user"
    """What one turn is: a user message (default), an assistant message, or any message."""

    @model_validator(mode="after")
    def _bounds(self) -> TurnsParams:
        if self.max is None and self.min is None:
            raise ValueError(_("give `max`, `min` or both"))
        if self.max is not None and self.min is not None and self.min > self.max:
            raise ValueError(_("`min` is larger than `max`"))
        return self


@primitive("turns", reads_text=False,
           params=TurnsParams, scopes={"dialog"}, default_scope="dialog",
           fields={"turns": ValueType.NUMBER}, cost=Cost.FREE, dynamic={"max", "min"},
           pin=lambda p, f: measured(f, lambda v: _within(v, p.min, p.max), "turns"))
def turns(params: TurnsParams) -> Any:
    """Dialog efficiency: the number of turns against `max` (and `min`).

    `.value` is the number of turns; the score is 1 within bounds and
    `max / turns` beyond `max`, so a dialog twice too long scores 0.5.

        check 高效 = turns(max: 8)
    """

    def judge(unit: Unit) -> CheckResult:
        n = _count(unit, params.count)
        too_long = params.max is not None and n > params.max
        too_short = params.min is not None and n < params.min
        score = 0.0 if too_short else (params.max / n if too_long and params.max else 1.0)
        reason = f"{n} turns" if too_long or too_short else ""
        return CheckResult.of(not (too_long or too_short), score, n, reason, turns=n)

    def evaluate(case: Case, scope: Scope) -> CheckResult:
        return over(case, scope, judge)

    return evaluate


def _count(unit: Unit, what: TurnCount) -> int:
    if what == "messages":
        return sum(1 for m in unit.messages if m.role in ("user", "assistant"))
    return sum(1 for m in unit.messages if m.role == what)


def _within(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)
