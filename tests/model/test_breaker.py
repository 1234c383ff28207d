"""A judge that stops answering costs seconds, not days: the circuit breaker and the defaults."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from evaldsl.model.settings import Endpoint, Settings
from tests.support.dead_judges import Relay, SilentServer

BREAKER = "times in a row"


def judge_all(runtime: Any, requests_of: Any, make_dialog: Any, count: int) -> list[Any]:
    """`count` cases judged one after the other, one result each."""
    out = []
    for i in range(count):
        case = make_dialog("你好", f"您好，第 {i} 位客人", case_id=f"c{i}")
        request = requests_of("polite", "judge", criteria="礼貌")
        result, = asyncio.run(runtime.resolve(case, [request]))
        out.append(result)
    return out


class TestBreaker:
    def test_a_judge_that_never_answers_opens_it_after_five_timeouts(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any) -> None:
        """Five timeouts in a row (two cases' attempts) and the other 18 cases are not asked:
        a few seconds, where asking every case would take 20 x 3 timeouts."""
        with SilentServer() as silent:
            runtime = runtime_for(cache=False, judge_base_url=silent.base_url,
                                  judge_timeout="0.3", judge_max_retries="2")
            started = time.monotonic()
            results = judge_all(runtime, requests_of, make_dialog, 20)
            elapsed = time.monotonic() - started
            connections = silent.connections
        assert all(r.is_error for r in results)
        assert "did not answer within 0.3 s" in results[0].reason
        expected = ("the judge did not answer 5 times in a row: the judge did not answer "
                    "within 0.3 s; the remaining model checks were not asked")
        assert [r.reason for r in results[1:]] == [expected] * 19
        assert connections <= 5
        assert elapsed < 15, elapsed
        stats = runtime.stats()
        assert stats.not_asked == 19 and stats.stopped == expected

    def test_a_judge_that_went_away_mid_run(self, runtime_for: Any, requests_of: Any,
                                            make_dialog: Any, openai_server: Any) -> None:
        """After the judge has answered, refused connections count towards the breaker too."""
        with Relay(openai_server.port) as relay:
            runtime = runtime_for(cache=False, judge_base_url=relay.base_url,
                                  judge_max_retries="2")
            first, = judge_all(runtime, requests_of, make_dialog, 1)
            relay.close()
            later = judge_all(runtime, requests_of, make_dialog, 10)
        assert not first.is_error, first.reason
        assert all(r.is_error for r in later)
        assert "cannot connect to the judge server" in later[0].reason
        assert BREAKER in later[-1].reason and "cannot connect" in later[-1].reason
        assert runtime.stats().not_asked >= 8

    def test_an_answer_between_failures_resets_the_count(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            openai_server: Any) -> None:
        """Four 500s, a good answer, four 500s: never five in a row, every case is asked."""
        runtime = runtime_for(cache=False, judge_max_retries="0")
        judge_all(runtime, requests_of, make_dialog, 1)
        for _round in range(2):
            openai_server.control(faults=[{"kind": "500", "count": 4}])
            results = judge_all(runtime, requests_of, make_dialog, 5)
            assert [r.is_error for r in results] == [True] * 4 + [False]
            assert not any(BREAKER in r.reason for r in results if r.is_error)
        assert runtime.stats().not_asked == 0

    def test_zero_turns_it_off(self, runtime_for: Any, requests_of: Any, make_dialog: Any,
                               openai_server: Any) -> None:
        runtime = runtime_for(cache=False, judge_max_retries="0", judge_circuit_breaker="0")
        judge_all(runtime, requests_of, make_dialog, 1)
        openai_server.control(faults=[{"kind": "500", "count": 8}])
        results = judge_all(runtime, requests_of, make_dialog, 8)
        assert all(r.is_error and BREAKER not in r.reason for r in results)
        assert openai_server.stats()["chat"] == 9

    def test_the_embedders_breaker_names_the_embedding_model(self, runtime_for: Any) -> None:
        """An embedder that never answers opens its own breaker, and says which server it was."""
        with SilentServer() as silent:
            runtime = runtime_for(cache=False, embed_base_url=silent.base_url,
                                  embed_timeout="0.2", embed_max_retries="0")
            reasons = []
            for i in range(6):
                try:
                    asyncio.run(runtime.batcher.vectors([f"文本 {i}"]))
                except Exception as error:  # noqa: BLE001 - the reason is what is checked
                    reasons.append(str(error))
        assert len(reasons) == 6
        assert reasons[-1].startswith("the embedding model did not answer 5 times in a row")


class TestDefaults:
    def test_a_silent_judge_costs_well_under_a_minute_before_the_breaker_opens(self) -> None:
        """At the defaults, eight requests in flight each time out after 30 s: five of those
        timeouts open the breaker, so the first wave is all a hung judge costs."""
        judge = Settings.load(env={}).judge
        assert (judge.timeout, judge.max_retries, judge.circuit_breaker) == (30.0, 2, 5)
        assert judge.circuit_breaker <= judge.concurrency
        assert judge.timeout < 60

    def test_the_threshold_is_a_judge_setting(self, tmp_path: Path) -> None:
        config = tmp_path / "evaldsl.toml"
        config.write_text("[judge]\ncircuit_breaker = 3\n", encoding="utf-8")
        assert Settings.load(config, env={}).judge.circuit_breaker == 3
        env = {"EVALDSL_JUDGE_CIRCUIT_BREAKER": "7"}
        assert Settings.load(config, env=env).judge.circuit_breaker == 7

    def test_a_negative_threshold_is_refused(self) -> None:
        from evaldsl.errors import ConfigError

        with pytest.raises(ConfigError, match="circuit_breaker"):
            Endpoint(circuit_breaker=-1).check("judge")
