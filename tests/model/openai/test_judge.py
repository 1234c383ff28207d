"""The openai-backed judge: structured-output forms, the sync client, configuration errors."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from evaldsl.cases.case import Message
from evaldsl.cases.scopes import Unit
from evaldsl.model.openai.judge import OpenAIJudge
from evaldsl.model.prompts import build_request
from evaldsl.model.settings import Endpoint
from evaldsl.stdlib.judging import JudgeCheck, JudgeParams


def judge_for(server: Any, **changes: Any) -> OpenAIJudge:
    endpoint = Endpoint(model="test-model", base_url=server.base_url, api_key="sk-x",
                        timeout=5, **changes)
    return OpenAIJudge(endpoint)


def a_request() -> Any:
    params = JudgeParams(criteria="polite", scale=10)
    unit = Unit((Message("assistant", "您好"),), "您好")
    task = JudgeCheck().plan(params, unit).task
    assert task is not None
    return build_request(unit, [("polite", task)])


class TestForms:
    def test_the_standard_json_schema_form_comes_first(self, openai_server: Any) -> None:
        """A server that supports json_schema gets it, and the answer conforms."""
        judge = judge_for(openai_server)
        answer = asyncio.run(judge.complete(a_request()))
        assert 0 <= answer.parsed["polite"]["score"] <= 10
        assert openai_server.stats()["formats"] == ["json_schema"]

    def test_a_server_rejecting_json_schema_is_detected_once(self, openai_server: Any) -> None:
        """llama.cpp-like: 500 on json_schema; the json_object+schema form is found and kept."""
        openai_server.control(reject_json_schema=True)
        judge = judge_for(openai_server)

        async def main() -> list[Any]:
            first = None
            try:
                first = await judge.complete(a_request())
            except Exception as exc:  # the first 500 is taken for a transient failure
                assert "HTTP 500" in str(exc)
            rest = [await judge.complete(a_request()) for _ in range(3)]
            return [first, *rest]

        answers = asyncio.run(main())
        assert all(a.parsed["polite"]["score"] >= 0 for a in answers[1:])
        assert judge.response_format == "json_object_schema"
        formats = openai_server.stats()["formats"]
        assert formats == ["json_schema", "json_schema", "json_object+schema",
                           "json_object+schema", "json_object+schema"]

    def test_the_sync_client_answers_too(self, openai_server: Any) -> None:
        """`complete_sync` goes through `openai.OpenAI`."""
        judge = judge_for(openai_server)
        answer = judge.complete_sync(a_request())
        judge.close()
        assert set(answer.parsed) == {"polite"}
        assert openai_server.stats()["authorized"] == 1


class TestConfiguration:
    def test_no_key_stops_with_a_config_error_that_says_what_to_set(
            self, requests_of: Any, make_dialog: Any, tmp_path: Any, monkeypatch: Any) -> None:
        """Without OPENAI_API_KEY no case can be judged: a `ConfigError` naming the settings
        (the run stops with exit 2), not a crash and not an error value per case."""
        from evaldsl.errors import ConfigError
        from evaldsl.model import Settings, default_runtime

        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        settings = Settings.load(env={"EVALDSL_CACHE_DIR": str(tmp_path)})
        runtime = default_runtime(settings)
        with pytest.raises(ConfigError, match="set OPENAI_API_KEY"):
            asyncio.run(runtime.resolve(make_dialog("q", "a"),
                                        [requests_of("p", "judge", criteria="x")]))
        runtime.close()
