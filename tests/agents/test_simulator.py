"""The simulator's asking, with a judge given through the public `Judge` protocol."""

from __future__ import annotations

import asyncio

import pytest

from evaldsl.agents.simulator import Simulator
from evaldsl.agents.user_brief import UserBrief
from evaldsl.errors import SimulatorFailed
from evaldsl.model.errors import TransientError
from evaldsl.model.limits import RetryPolicy
from evaldsl.model.protocols import JudgeAnswer, JudgeRequest
from evaldsl.model.redact import Redactor
from evaldsl.report.simulator_failures import FORMAT, UNAVAILABLE

KEY = "sk-simulator-key-0123456789"
BRIEF = UserBrief("预约维修")


class Answers:
    """A judge that answers each request with the next text, or raises it."""

    def __init__(self, *answers: str | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[JudgeRequest] = []

    async def complete(self, request: JudgeRequest) -> JudgeAnswer:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return JudgeAnswer(answer)


def turn(judge: Answers, redactor: Redactor | None = None) -> object:
    simulator = Simulator(judge, None, policy=RetryPolicy(0, 0.0), redactor=redactor)
    return asyncio.run(simulator.next_turn("c1", BRIEF, [{"role": "user", "content": "你好"}]))


def test_a_key_the_model_repeats_never_reaches_the_agent() -> None:
    judge = Answers(f'{{"done": false, "message": "我的密钥是 {KEY}"}}')
    said = turn(judge, Redactor([KEY]))
    assert KEY not in str(said) and "***" in str(said)


def test_each_request_is_seeded_and_sampled() -> None:
    judge = Answers('{"done": false, "message": "我叫张三"}')
    turn(judge)
    (request,) = judge.requests
    assert request.seed is not None and request.temperature == 0.7
    assert "<dialog>\nuser: 你好\n</dialog>" in request.messages[1]["content"]


def test_an_answer_that_is_no_json_is_the_simulator_breaking_its_format() -> None:
    with pytest.raises(SimulatorFailed) as failed:
        turn(Answers("我叫张三"))
    assert failed.value.failure.kind == FORMAT


def test_a_model_that_does_not_answer_is_the_simulator_unavailable() -> None:
    with pytest.raises(SimulatorFailed) as failed:
        turn(Answers(TransientError(f"timed out with {KEY}")), Redactor([KEY]))
    assert failed.value.failure.kind == UNAVAILABLE and KEY not in failed.value.failure.reason
