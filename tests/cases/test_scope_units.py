"""The checks of one case that read the same scope share the units it selects: selected once
per case, and never another case's."""

from __future__ import annotations

from typing import Any

import pytest

from evaldsl.cases import scopes
from evaldsl.cases.case import Case, Message
from evaldsl.cases.scopes import Scope, Unit, evaluate_over
from evaldsl.values import CheckResult


def _case(reply: str) -> Case:
    return Case("c", (Message("user", "hi"), Message("assistant", reply, (), 5.0)))


def _text(unit: Unit) -> CheckResult:
    return CheckResult.of(True, value=unit.text)


def test_one_case_selects_each_scope_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    select = scopes.select

    def counted(case: Case, scope: Scope) -> list[Unit]:
        calls.append(str(scope))
        return select(case, scope)

    monkeypatch.setattr(scopes, "select", counted)
    case = _case("yes")
    for scope in (Scope("last_reply"), Scope("last_reply"), Scope("each_reply"),
                  Scope("last_reply"), Scope("turn", 1), Scope("turn", 2), Scope("turn", 1)):
        evaluate_over(case, scope, _text)
    assert calls == ["last_reply", "each_reply", "turn(1)", "turn(2)"]


def test_another_case_gets_its_own_units() -> None:
    seen: list[Any] = []
    for reply in ("one", "two", "one"):
        seen.append(evaluate_over(_case(reply), Scope("last_reply"), _text).value)
    assert seen == ["one", "two", "one"]
    assert evaluate_over(_case("x"), Scope("turn", 1), _text).value == "hi"
    assert evaluate_over(_case("x"), Scope("turn", 2), _text).value == "x"
