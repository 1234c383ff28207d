"""latency and turns: measures from the transcript, missing measures are errors."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic import ValidationError

from evaldsl.cases.case import Case
from evaldsl.values import CheckResult

Run = Callable[..., CheckResult]
Dialog = Callable[..., Case]


@pytest.fixture(name="timed")
def timed_fixture(dialog: Dialog) -> Case:
    return dialog(("user", "查一下我的订单"), ("assistant", "请提供订单号", {"latency_ms": 800}),
                  ("user", "A1234"), ("assistant", "已发货，预计明天送达", {"latency_ms": 4200}))


class TestLatency:
    def test_each_reply_score_is_the_share_fast_enough(self, run: Run, timed: Case) -> None:
        """One of two replies under 3 s: failed, score 0.5, value the slowest."""
        r = run("latency", timed, max_ms=3000)
        assert (r.passed, r.score, r.value) == (False, 0.5, 4200.0)
        assert r.fields["slowest_ms"] == 4200.0

    def test_all_fast_passes(self, run: Run, timed: Case) -> None:
        assert run("latency", timed, max_ms=5000).passed is True

    def test_last_reply_only(self, run: Run, timed: Case) -> None:
        r = run("latency", timed, "last_reply", max_ms=3000)
        assert (r.passed, r.value) == (False, 4200.0)
        assert r.reason == "4200 ms > 3000 ms"

    def test_any_reply(self, run: Run, timed: Case) -> None:
        assert run("latency", timed, "any_reply", max_ms=3000).passed is True

    def test_missing_latency_is_an_error_not_a_pass(self, run: Run, dialog: Dialog) -> None:
        """A reply without latency_ms says nothing about speed: error."""
        case = dialog(("user", "你好"), ("assistant", "您好"))
        r = run("latency", case, max_ms=3000)
        assert r.is_error
        assert "latency_ms" in r.reason

    def test_a_fast_reply_does_not_hide_a_missing_one(self, run: Run, dialog: Dialog) -> None:
        """One timed fast reply and one untimed: the untimed one makes it an error."""
        case = dialog(("user", "a"), ("assistant", "b", {"latency_ms": 10}),
                      ("user", "c"), ("assistant", "d"))
        assert run("latency", case, max_ms=3000).is_error

    def test_a_slow_reply_decides_despite_a_missing_one(self, run: Run, dialog: Dialog) -> None:
        """each_reply fails on a too-slow reply even if another is untimed (like `and`)."""
        case = dialog(("user", "a"), ("assistant", "b", {"latency_ms": 9000}),
                      ("user", "c"), ("assistant", "d"))
        r = run("latency", case, max_ms=3000)
        assert r.passed is False

    def test_max_ms_must_be_positive(self) -> None:
        from evaldsl.stdlib.timing import LatencyParams

        with pytest.raises(ValidationError):
            LatencyParams(max_ms=0)


class TestTurns:
    def test_counts_user_turns(self, run: Run, timed: Case) -> None:
        r = run("turns", timed, max=2)
        assert (r.passed, r.value, r.score) == (True, 2, 1.0)

    def test_too_many_scores_max_over_turns(self, run: Run, timed: Case) -> None:
        """Twice too long scores 0.5."""
        r = run("turns", timed, max=1)
        assert (r.passed, r.score, r.reason) == (False, 0.5, "2 turns")

    def test_count_messages(self, run: Run, timed: Case) -> None:
        assert run("turns", timed, max=3, count="messages").value == 4

    def test_min_turns(self, run: Run, timed: Case) -> None:
        r = run("turns", timed, min=3)
        assert (r.passed, r.score) == (False, 0.0)

    def test_needs_a_bound(self) -> None:
        from evaldsl.stdlib.timing import TurnsParams

        with pytest.raises(ValidationError, match="give `max`"):
            TurnsParams()

    def test_only_dialog_scope(self) -> None:
        from evaldsl.primitives.registry import default_registry

        primitive = default_registry().get("turns")
        assert primitive is not None and primitive.scopes == frozenset({"dialog"})
