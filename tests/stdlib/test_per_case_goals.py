"""Per-case goals: `slots: case.required` and `steps: case.plan`, as task dialogs need
(every CrossWOZ or SGD dialog's goal asks for different facts).

The judge is a fake behind the public `Judge` protocol that answers whatever the
request asks about, so the test sees which slots and steps each case's request
named, how many requests fusion made, and what the cache saved.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import evaldsl
from evaldsl.checker import check_source
from evaldsl.cli.main import main
from evaldsl.model import JudgeAnswer, JudgeRequest
from evaldsl.model.settings import Settings

SPEC = """\
spec "per-case goals"
case {
  required: map
  plan: list
}
check got = slots(slots: case.required, patterns: {phone: "1[3-9]\\\\d{9}"}, min: 0.5)
check did = steps(steps: case.plan)
check polite = judge(scope: dialog, criteria: "礼貌", scale: 5, min: 3)
outcome {
  done if got and did and polite
  not_done otherwise
}
metric done_rate = rate(done)
"""

STATED = {"address": "北京市海淀区", "time": "明天上午", "hotel": "如家"}
"""Slot -> the words the fake judge quotes as evidence (present in the dialogs)."""
TAKEN = {"greet": 1, "book": 3}
"""Step -> the message that did it."""


class GoalJudge:
    """Answers every fused check from the names in its schema; counts requests."""

    cache_identity = "goal-judge"
    """Says who it is, so its answers are cached."""

    def __init__(self) -> None:
        self.requests: list[JudgeRequest] = []

    async def complete(self, request: JudgeRequest) -> JudgeAnswer:
        self.requests.append(request)
        assert request.schema is not None
        answer: dict[str, Any] = {}
        for check, sub in request.schema["properties"].items():
            names = list(sub.get("properties", {}))
            if check == "got":
                answer[check] = {n: {"evidence": STATED.get(n, "")} for n in names}
            elif check == "did":
                answer[check] = {n: {"done": n in TAKEN, "turn": TAKEN.get(n, 0)}
                                 for n in names}
            else:
                answer[check] = {n: 4 if n == "score" else "ok" for n in names} if names else 4
        return JudgeAnswer("", answer)


def dialog(case_id: str, required: Any, plan: Any) -> dict[str, Any]:
    return {"id": case_id, "required": required, "plan": plan, "messages": [
        {"role": "user", "content": "你好，我想订如家，电话13812345678"},
        {"role": "assistant", "content": "您好！请问入住时间和地址？"},
        {"role": "user", "content": "明天上午，北京市海淀区"},
        {"role": "assistant", "content": "已为您预订。"}]}


CASES = [
    dialog("a", {"phone": "电话", "address": "地址"}, ["greet", "book"]),
    dialog("b", {"hotel": "酒店", "budget": "预算", "time": "时间"}, ["greet", "pay"]),
    dialog("c", {"hotel": "酒店", "phone": "电话"}, ["book"]),
]


@pytest.fixture
def spec_path(tmp_path: Path) -> Path:
    path = tmp_path / "goals.eval"
    path.write_text(SPEC, encoding="utf-8")
    return path


def load(path: Path, judge: GoalJudge, cache: Path) -> evaldsl.Spec:
    return evaldsl.load(path, judge=judge, settings=Settings(cache_dir=cache))


def test_per_case_goals_check_clean() -> None:
    _, found = check_source(SPEC, "goals.eval")
    assert [d.code for d in found] == []


def test_a_literal_goal_still_rejects_a_pattern_for_no_slot() -> None:
    text = SPEC.replace("slots: case.required", 'slots: {address: "地址"}')
    _, found = check_source(text, "goals.eval")
    on_slots = [d for d in found if d.span.line == 6]
    assert [d.code for d in on_slots] == ["E204"]
    assert "phone" in on_slots[0].message


def test_each_case_is_judged_on_its_own_goal(spec_path: Path, tmp_path: Path) -> None:
    judge = GoalJudge()
    results = {c["id"]: load(spec_path, judge, tmp_path / "cache").evaluate(c) for c in CASES}

    got = {k: r.checks["got"] for k, r in results.items()}
    # a: phone by its pattern, address quoted: 2 of 2
    assert got["a"].fields["filled"] == {"phone": True, "address": True}
    assert (got["a"].score, got["a"].passed) == (1.0, True)
    # b: hotel and time quoted, budget not: 2 of 3; the phone pattern names no slot of b
    assert got["b"].fields["filled"] == {"hotel": True, "budget": False, "time": True}
    assert (got["b"].score, got["b"].passed) == (pytest.approx(2 / 3), True)
    # c: hotel quoted, phone by its pattern
    assert got["c"].fields["filled"] == {"hotel": True, "phone": True}

    did = {k: r.checks["did"] for k, r in results.items()}
    assert did["a"].fields["done"] == {"greet": True, "book": True}
    assert (did["b"].fields["done"], did["b"].score, did["b"].passed) == (
        {"greet": True, "pay": False}, 0.5, False)
    assert did["c"].fields["done"] == {"book": True}
    assert [results[k].labels["outcome"] for k in "abc"] == ["done", "not_done", "done"]


def test_fusion_asks_once_per_case_and_names_only_that_cases_goal(spec_path: Path,
                                                                  tmp_path: Path) -> None:
    judge = GoalJudge()
    spec = load(spec_path, judge, tmp_path / "cache")
    for c in CASES:
        spec.evaluate(c)
    assert len(judge.requests) == 3, "slots, steps and judge fused: one request per case"
    asked = [set(r.schema["properties"]["got"]["properties"])  # type: ignore[index]
             for r in judge.requests]
    assert asked == [{"address"}, {"hotel", "budget", "time"}, {"hotel"}]


def test_the_cache_serves_an_unchanged_goal_and_misses_a_changed_one(spec_path: Path,
                                                                     tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = GoalJudge()
    spec = load(spec_path, first, cache)
    for c in CASES:
        spec.evaluate(c)
    spec.close()
    again = GoalJudge()
    changed = [*CASES[:2], dialog("c", {"hotel": "酒店", "time": "时间"}, ["book"])]
    spec = load(spec_path, again, cache)
    results = [spec.evaluate(c) for c in changed]
    spec.close()
    assert len(again.requests) == 1, "a and b from the cache; c's goal changed, so asked"
    assert results[2].checks["got"].fields["filled"] == {"hotel": True, "time": True}


def test_an_empty_goal_errors_that_check_of_that_case_only(spec_path: Path,
                                                           tmp_path: Path) -> None:
    spec = load(spec_path, GoalJudge(), tmp_path / "cache")
    result = spec.evaluate(dialog("e", {}, ["greet"]))
    assert result.checks["got"].is_error
    assert "slots" in (result.checks["got"].reason or "")
    assert result.checks["did"].passed is True


def test_slots_may_be_names_alone(spec_path: Path, tmp_path: Path) -> None:
    """A list of names: each name is its own description."""
    text = SPEC.replace("  required: map\n", "  required: list\n")
    spec_path.write_text(text, encoding="utf-8")
    judge = GoalJudge()
    spec = load(spec_path, judge, tmp_path / "cache")
    row = dialog("n", ["hotel", "budget"], ["book"])
    result = spec.evaluate(row)
    assert result.checks["got"].fields["filled"] == {"hotel": True, "budget": False}
    assert (result.checks["got"].score, result.checks["got"].passed) == (0.5, True)
    assert "hotel = hotel" in str(judge.requests[0].messages)


EXAMPLE = """
example "goal from the example's case" {
  case {required: {景点: "景点名称", 门票: "门票价格"}, plan: ["推荐景点"]}
  user "故宫附近有什么景点？门票多少？"
  assistant "可以去景山公园。"
  given got.filled = {景点: true, 门票: false}
  given did.done = {推荐景点: true}
  given polite = 4
  expect got.score == 0.5
  expect got.passed
  expect done
}
"""


def test_an_example_pins_a_per_case_goal(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """`check` accepts pins of a goal known only per case, and `test` judges the example on
    the example's own goal; the literal phone pattern names no slot of it (no error)."""
    path = tmp_path / "goals.eval"
    path.write_text(SPEC + EXAMPLE, encoding="utf-8")
    assert main(["check", "--strict", str(path)]) == 0, capsys.readouterr().out
    assert main(["test", str(path)]) == 0, capsys.readouterr().out
    path.write_text(SPEC + EXAMPLE.replace("got.score == 0.5", "got.score == 1"),
                    encoding="utf-8")
    assert main(["test", str(path)]) == 1
