"""The answer cache keys an answer by the judge that gave it: its endpoint, its model and
its answer format. Two real test servers on different ports: answers of one are never
served for the other, and `run` says how many answers came from the cache, and whose."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CASES = 8


@pytest.fixture
def second_server() -> Iterator[Any]:
    """Another test server process, on its own port."""
    from tests.support import openai_server

    server = openai_server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def judged(tmp_path: Path, kit: Any) -> Any:
    spec = tmp_path / "judged.eval"
    spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, CASES)
    env = {"EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_JUDGE_BACKOFF": "0.01",
           "EVALDSL_LANG": "en"}

    def run(server: Any, name: str, *extra: str) -> tuple[Any, dict[str, Any]]:
        report = tmp_path / f"{name}.json"
        done = kit.evaldsl("run", spec, cases, "--judge", server.base_url, "--cache-dir",
                           tmp_path / "cache", "-o", report, *extra, env=env, timeout=120)
        assert done.returncode in (0, 1), done.stderr
        return done, json.loads(report.read_text("utf-8"))["cost"]

    return run


def test_another_endpoint_is_asked_not_served_the_first_ones_answers(
        judged: Any, judge_server: Any, second_server: Any) -> None:
    _done, first = judged(judge_server, "first")
    asked = judge_server.stats()["chat"]
    assert first["model_calls"] == asked > 0 and first["cached"] == 0
    _done, other = judged(second_server, "other")
    assert second_server.stats()["chat"] == asked
    assert (other["model_calls"], other["cached"]) == (asked, 0)


def test_run_says_how_many_answers_came_from_the_cache_and_whose(
        judged: Any, judge_server: Any) -> None:
    judged(judge_server, "first")
    asked = judge_server.stats()["chat"]
    done, again = judged(judge_server, "again")
    assert judge_server.stats()["chat"] == asked
    assert (again["model_calls"], again["cached"]) == (0, asked)
    (identity,) = again["cached_by"]
    assert identity.endswith(f"@127.0.0.1:{judge_server.port}")
    assert again["cached_by"] == {identity: asked}
    assert (f"{asked} answers from the cache, all of judge `{identity}`") in done.stdout


def test_an_answer_given_in_another_format_is_asked_again(
        judged: Any, judge_server: Any) -> None:
    """Answers stored while the server refused `json_schema` (the judge fell back to
    another form) are not served to a judge that asks with `json_schema`."""
    judge_server.control(reject_json_schema=True)
    judged(judge_server, "fallback")
    judge_server.reset()
    _done, strict = judged(judge_server, "strict")
    assert strict["model_calls"] > 0
    assert judge_server.stats()["formats"][0] == "json_schema"
