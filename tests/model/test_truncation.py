"""Answers cut off at `max_tokens`: asked once more with a larger budget, then an error
that says so, against the test server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from evaldsl.values import ErrorValue

CUT = "CUTMARK"


def ask(runtime: Any, requests_of: Any, make_dialog: Any, reply: str = f"好的 {CUT}") -> Any:
    request = requests_of("polite", "judge", "last_reply", criteria="礼貌", scale=10)
    result, = asyncio.run(runtime.resolve(make_dialog("你好", reply), [request]))
    return result


@pytest.fixture
def cut(openai_server: Any) -> Any:
    """`cut(n)`: the next `n` answers about a dialog with the marker end at `length`."""
    def arrange(times: int) -> None:
        openai_server.control(script=[{"contains": CUT, "cut": times}])
    return arrange


class TestOneCut:
    def test_is_asked_again_with_a_larger_budget_and_succeeds(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any, openai_server: Any,
            cut: Any) -> None:
        cut(1)
        runtime = runtime_for(cache=False)
        result = ask(runtime, requests_of, make_dialog)
        assert not result.is_error, result.reason
        assert 0 <= result.value <= 10
        first, second = openai_server.stats()["max_tokens"]
        assert first is not None and second == 2 * first

    def test_is_counted_with_its_retry(self, runtime_for: Any, requests_of: Any,
                                       make_dialog: Any, cut: Any) -> None:
        cut(1)
        runtime = runtime_for(cache=False)
        ask(runtime, requests_of, make_dialog)
        stats = runtime.stats()
        assert (stats.truncated, stats.truncation_retries) == (1, 1)
        assert stats.calls == 2

    def test_an_answer_that_ends_normally_is_not_asked_again(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            openai_server: Any) -> None:
        runtime = runtime_for(cache=False)
        ask(runtime, requests_of, make_dialog)
        assert openai_server.stats()["chat"] == 1
        assert (runtime.stats().truncated, runtime.stats().truncation_retries) == (0, 0)


class TestTwoCuts:
    def test_are_an_error_that_says_the_answer_was_cut_off(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any, openai_server: Any,
            cut: Any) -> None:
        """Not "not JSON": the reason names the budget the second answer ran out of."""
        cut(2)
        result = ask(runtime_for(cache=False), requests_of, make_dialog)
        assert isinstance(result.passed, ErrorValue)
        budget = openai_server.stats()["max_tokens"][-1]
        assert f"the judge's answer was cut off at {budget} tokens" in result.reason
        assert "not JSON" not in result.reason
        assert openai_server.stats()["chat"] == 2  # no repair request for a cut answer

    def test_are_counted_twice_with_one_retry(self, runtime_for: Any, requests_of: Any,
                                              make_dialog: Any, cut: Any) -> None:
        cut(2)
        runtime = runtime_for(cache=False)
        ask(runtime, requests_of, make_dialog)
        stats = runtime.stats()
        assert (stats.truncated, stats.truncation_retries) == (2, 1)

    def test_a_cut_answer_is_never_cached(self, runtime_for: Any, requests_of: Any,
                                          make_dialog: Any, openai_server: Any,
                                          cut: Any) -> None:
        """The next run asks again, and gets a whole answer."""
        cut(2)
        runtime = runtime_for()
        assert ask(runtime, requests_of, make_dialog).is_error
        assert not ask(runtime, requests_of, make_dialog).is_error
