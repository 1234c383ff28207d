"""The simulated user's brief and the audit that tells its failures from the agent's."""

from __future__ import annotations

from typing import Any

import pytest

from evaldsl.agents.user_brief import (
    EARLY,
    FORMAT,
    OFF_GOAL,
    UserBrief,
    end_problem,
    problem,
    turn_problem,
)

BRIEF = UserBrief("预约维修", language="zh", min_turns=2, facts={"电话": "13800138000"})


def reply(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text, "latency_ms": 5.0}


class TestProblem:
    @pytest.mark.parametrize(("value", "message"), [
        ({}, "a simulated user needs a `goal`, a text"),
        ({"goal": "x", "mood": "calm"}, "unknown field `mood` in `user`"),
        ({"goal": "x", "max_turns": 0}, "`user.max_turns` must be a whole number of at least 1"),
        ({"goal": "x", "min_turns": True}, "`user.min_turns` must be a whole number of at least 1"),
        ({"goal": "x", "language": "fr"}, "`user.language` must be one of zh, en"),
        ({"goal": "x", "facts": {"a": 1}}, "`user.facts` must map names to texts"),
        ({"goal": "x", "stop": 3}, "`user.stop` must be a text"),
    ])
    def test_a_bad_brief_says_what_is_wrong(self, value: Any, message: str) -> None:
        assert problem(value) == message

    def test_a_whole_brief_is_fine_and_read_with_its_defaults(self) -> None:
        assert problem({"goal": "预约维修"}) is None
        assert UserBrief.of({"goal": "预约维修"}) == UserBrief("预约维修")


class TestTurnProblem:
    def test_a_turn_in_the_briefs_language_is_fine(self) -> None:
        assert turn_problem(BRIEF, "我的电话是 13800138000", False) is None

    def test_another_language_or_an_empty_message_breaks_the_format(self) -> None:
        wrong = turn_problem(BRIEF, "my phone is 123", False)
        assert wrong is not None and (wrong.kind, wrong.reason) == (
            FORMAT, "it wrote `my phone is 123`, not Chinese")
        empty = turn_problem(BRIEF, " ", False)
        assert empty is not None and empty.kind == FORMAT
        english = turn_problem(UserBrief("book", language="en"), "我要预约", False)
        assert english is not None and english.kind == FORMAT

    def test_the_message_of_a_last_turn_is_not_read(self) -> None:
        assert turn_problem(BRIEF, "", True) is None


class TestEndProblem:
    SAID = [{"role": "user", "content": "电话 13800138000"}, reply("好的")]

    def test_done_before_min_turns_replies_is_ending_too_early(self) -> None:
        found = end_problem(BRIEF, self.SAID, done=True)
        assert found is not None and (found.kind, found.reason) == (
            EARLY, "it ended after 1 of at least 2 replies")

    def test_the_turn_limit_is_not_ending_too_early(self) -> None:
        assert end_problem(BRIEF, self.SAID, done=False) is None

    def test_a_fact_never_given_is_leaving_the_goal(self) -> None:
        history = [{"role": "user", "content": "你好"}, reply("请问电话？"),
                   {"role": "user", "content": "不告诉你"}, reply("好的")]
        found = end_problem(BRIEF, history, done=True)
        assert found is not None and (found.kind, found.reason) == (
            OFF_GOAL, "it never gave `电话`")
