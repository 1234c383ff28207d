"""Failure is a value: retries, then an error result, for every kind of fault."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from evaldsl.values import ErrorValue


def ask(runtime: Any, requests_of: Any, make_dialog: Any, **params: Any) -> Any:
    request = requests_of("polite", "judge", criteria="礼貌", scale=10, **params)
    result, = asyncio.run(runtime.resolve(make_dialog("你好", "您好，请问有什么可以帮您"),
                                          [request]))
    return result


FAULTS = ["429", "500", "timeout", "malformed"]


class TestRetries:
    @pytest.mark.parametrize("kind", FAULTS)
    def test_a_passing_fault_is_retried_away(self, kind: str, runtime_for: Any,
                                             requests_of: Any, make_dialog: Any,
                                             openai_server: Any) -> None:
        """One fault, then a good answer: the check is decided."""
        runtime = runtime_for(judge_timeout="0.5")
        openai_server.control(faults=[{"kind": kind, "count": 1, "seconds": 2}])
        result = ask(runtime, requests_of, make_dialog)
        assert not result.is_error, result.reason
        assert openai_server.stats()["chat"] == 2

    @pytest.mark.parametrize("kind", ["429", "500", "timeout"])
    def test_after_the_last_retry_the_value_is_an_error(self, kind: str, runtime_for: Any,
                                                        requests_of: Any, make_dialog: Any,
                                                        openai_server: Any) -> None:
        """A fault that persists past every retry is an error, never a pass or a fail."""
        runtime = runtime_for(judge_timeout="0.3", judge_max_retries="2", cache=False)
        ask(runtime, requests_of, make_dialog)
        openai_server.reset()
        openai_server.control(faults=[{"kind": kind, "count": 3, "seconds": 2}])
        result = ask(runtime, requests_of, make_dialog)
        assert isinstance(result.passed, ErrorValue)
        assert isinstance(result.score, ErrorValue)
        assert "gave up after 3 attempts" in result.reason
        assert openai_server.stats()["chat"] == 3
        assert (runtime.stats().retries, runtime.stats().errors) == (2, 1)

    def test_retry_after_is_honoured(self, runtime_for: Any, requests_of: Any,
                                     make_dialog: Any, openai_server: Any) -> None:
        """A 429 with Retry-After waits that long before the next attempt."""
        runtime = runtime_for()
        openai_server.control(faults=[{"kind": "429", "count": 1, "retry_after": 0.3}])
        ask(runtime, requests_of, make_dialog)
        starts = openai_server.stats()["starts"]
        assert starts[1] - starts[0] >= 0.29


class TestMalformed:
    def test_twice_malformed_is_an_error_with_the_raw_text(self, runtime_for: Any,
                                                           requests_of: Any, make_dialog: Any,
                                                           openai_server: Any) -> None:
        """Malformed output, then a failed repair: an error keeping the raw answer."""
        openai_server.control(faults=[{"kind": "malformed", "count": 2}])
        result = ask(runtime_for(), requests_of, make_dialog)
        assert isinstance(result.passed, ErrorValue)
        assert "after one repair request" in result.reason
        assert "I think the answer is {not json" in result.reason
        assert openai_server.stats()["chat"] == 2

    def test_an_answer_outside_the_scale_is_an_error(self, runtime_for: Any, requests_of: Any,
                                                     make_dialog: Any,
                                                     openai_server: Any) -> None:
        """A scripted score of 42 on a 0..10 scale is rejected, not clipped."""
        openai_server.control(script=[{"contains": "您好", "key": "polite",
                                       "value": {"reason": "x", "score": 42}}])
        result = ask(runtime_for(), requests_of, make_dialog)
        assert isinstance(result.passed, ErrorValue)
        assert "42" in result.reason

    def test_a_scripted_answer_decides_the_verdict(self, runtime_for: Any, requests_of: Any,
                                                   make_dialog: Any, openai_server: Any) -> None:
        """Scripted 8 of 10 with `min: 7` passes at score 0.8."""
        openai_server.control(script=[{"contains": "您好", "key": "polite",
                                       "value": {"reason": "polite", "score": 8}}])
        result = ask(runtime_for(), requests_of, make_dialog, min=7)
        assert (result.passed, result.score, result.value) == (True, 0.8, 8.0)


class TestLimits:
    def test_concurrency_is_bounded(self, runtime_for: Any, requests_of: Any,
                                    make_dialog: Any, openai_server: Any) -> None:
        """No more than `concurrency` requests are ever in flight at the server."""
        runtime = runtime_for(cache=False, judge_concurrency="3")
        openai_server.control(latency_ms=100)
        request = requests_of("polite", "judge", criteria="x")

        async def main() -> None:
            cases = [make_dialog("q", f"a{i}", case_id=str(i)) for i in range(12)]
            await asyncio.gather(*(runtime.resolve(c, [request]) for c in cases))

        asyncio.run(main())
        stats = openai_server.stats()
        assert stats["chat"] == 12
        assert 2 <= stats["peak_in_flight"] <= 3
        # connections are kept alive: at most one per slot, plus the two test-control ones
        assert stats["connections"] <= 3 + 2

    def test_requests_per_minute_spaces_request_starts(self, runtime_for: Any,
                                                      requests_of: Any, make_dialog: Any,
                                                      openai_server: Any) -> None:
        """At 1,200 a minute, requests start 50 ms apart (the first one also opens a connection,
        so the span is measured from the second)."""
        runtime = runtime_for(cache=False, judge_rpm="1200", judge_concurrency="8")
        request = requests_of("polite", "judge", criteria="x")

        async def main() -> None:
            cases = [make_dialog("q", f"a{i}", case_id=str(i)) for i in range(6)]
            await asyncio.gather(*(runtime.resolve(c, [request]) for c in cases))

        asyncio.run(main())
        starts = sorted(openai_server.stats()["starts"])
        assert len(starts) == 6
        assert starts[-1] - starts[1] >= 0.18
