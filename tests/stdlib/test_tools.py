"""trajectory and tool_called over the transcript's tool calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import evaldsl
from evaldsl.cases.case import Case
from evaldsl.values import CheckResult

Run = Callable[..., CheckResult]
Dialog = Callable[..., Case]
MakeCall = Callable[..., dict[str, Any]]


@pytest.fixture(name="agent")
def agent_fixture(dialog: Dialog, call: MakeCall) -> Case:
    """查询库存 → 创建订单 in one reply, then 发送确认 in the next."""
    return dialog(
        ("user", "帮我下单两箱矿泉水"),
        ("assistant", "", {"tool_calls": [call("查询库存", {"sku": "W-2"}),
                                          call("创建订单", {"sku": "W-2", "qty": 2})]}),
        ("tool", "订单 O-88 已创建"),
        ("assistant", "", {"tool_calls": [call("发送确认", {"order": "O-88"})]}),
        ("assistant", "已为您下单，订单号 O-88。"))


class TestTrajectory:
    @pytest.mark.parametrize(("mode", "expected", "passed"), [
        ("strict", ["查询库存", "创建订单", "发送确认"], True),
        ("strict", ["创建订单", "查询库存", "发送确认"], False),
        ("unordered", ["创建订单", "查询库存", "发送确认"], True),
        ("unordered", ["查询库存", "创建订单"], False),
        ("subset", ["查询库存", "创建订单", "发送确认", "退款"], True),
        ("subset", ["查询库存", "创建订单"], False),
        ("superset", ["查询库存", "发送确认"], True),
        ("superset", ["退款"], False),
    ])
    def test_modes(self, run: Run, agent: Case, mode: str, expected: list[str],
                   passed: bool) -> None:
        assert run("trajectory", agent, expected=expected, mode=mode).passed is passed

    def test_value_and_differences(self, run: Run, agent: Case) -> None:
        """The score is the share of expected calls made: 查询库存 of 查询库存 and 退款."""
        r = run("trajectory", agent, expected=["查询库存", "退款"], mode="unordered")
        assert r.value == ["查询库存", "创建订单", "发送确认"]
        assert (r.fields["missing"], r.fields["extra"]) == (["退款"], ["创建订单", "发送确认"])
        assert r.score == pytest.approx(1 / 2)

    def test_strict_score_is_common_subsequence(self, run: Run, agent: Case) -> None:
        """创建订单 → 查询库存 → 发送确认 against the calls made: two of three line up."""
        r = run("trajectory", agent, expected=["创建订单", "查询库存", "发送确认"])
        assert r.score == pytest.approx(2 / 3) and r.passed is False

    def test_last_reply_scope_sees_only_its_calls(self, run: Run, agent: Case) -> None:
        r = run("trajectory", agent, "turn:4", expected=["发送确认"])
        assert r.passed is True

    def test_no_calls_at_all(self, run: Run, dialog: Dialog) -> None:
        r = run("trajectory", dialog(("user", "你好"), ("assistant", "您好")), expected=["查询"])
        assert (r.passed, r.score, r.fields["missing"]) == (False, 0.0, ["查询"])

    def test_dotted_names_line_up(self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        case = dialog(("user", "x"), ("assistant", "", {"tool_calls": [call("math_sum", {})]}))
        assert run("trajectory", case, expected=["math.sum"]).passed is True


    def test_bare_mode_word_runs_as_the_mode(self, agent: Case) -> None:
        """`mode: unordered` without quotes is checked, compiled and run as the text."""
        text = ('check t = trajectory(expected: ["创建订单", "查询库存", "发送确认"], '
                "mode: unordered)\nmetric r = rate(t)\n")
        result = evaldsl.loads(text, name="t.eval").evaluate(agent)
        assert result.checks["t"].passed is True


class TestToolCalled:
    def test_called_once(self, run: Run, agent: Case) -> None:
        r = run("tool_called", agent, name="创建订单")
        assert (r.passed, r.value, r.fields["count"]) == (True, 1, 1)

    def test_never_called(self, run: Run, agent: Case) -> None:
        """max_times 0 asserts a tool was not used."""
        assert run("tool_called", agent, name="转人工", max_times=0).passed is True
        r = run("tool_called", agent, name="创建订单", max_times=0)
        assert r.passed is False and r.reason == "`创建订单` called 1 times"

    def test_min_times(self, run: Run, agent: Case) -> None:
        assert run("tool_called", agent, name="查询库存", min_times=2).passed is False
