"""The simulated user: a chat model asked, turn by turn, what the user says next.

It is asked through the model layer as a judge is (any `Judge`: the configured endpoint,
or the local model), bounded by a `Limiter`, retried by the judges' policy and served from
the same answer cache, keyed by everything that decides the turn (the model, the prompt,
the sampling temperature and the seed). The seed of each turn is drawn from the run's seed
(`--seed`), the scenario's id and the turn, so a seeded run repeats its simulated turns
wherever the server honours `seed`, and a cached one repeats them anyway.

The answer is a JSON object, `{"message": ..., "done": ...}`; an answer that is not one
counts as the simulator breaking its format. There is no repair request: a repaired turn
would hide exactly the failure the report counts (`evaldsl.agents.user_brief`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from evaldsl.agents.user_brief import Failure, UserBrief
from evaldsl.errors import ConfigError, SimulatorFailed
from evaldsl.model.cache import AnswerCache, cache_key
from evaldsl.model.errors import ModelError, Unparsed
from evaldsl.model.limits import Limiter, RetryPolicy, with_retries
from evaldsl.model.protocols import Judge, JudgeRequest
from evaldsl.model.redact import Redactor
from evaldsl.model.structured import read_answer
from evaldsl.report.simulator_failures import FORMAT, UNAVAILABLE

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "done": {"type": "boolean", "description": "true when the stop rule holds: the user "
                                                   "ends the conversation"},
        "message": {"type": "string", "description": "the user's next message (empty when "
                                                     "done)"},
    },
    "required": ["done", "message"],
}
MAX_TOKENS = 300
"""A user turn is a sentence or two; the answer's JSON around it is short."""
DEFAULT_TEMPERATURE = 0.7
"""Users vary: a simulated one is sampled, and the seed makes the sample repeatable."""


class UserTurn(NamedTuple):
    message: str
    done: bool


class Simulator:
    """Plays the user of every simulated scenario of a run."""

    def __init__(self, judge: Judge, identity: str | None, cache: AnswerCache | None = None,
                 seed: int = 0, temperature: float = DEFAULT_TEMPERATURE,
                 limiter: Limiter | None = None, policy: RetryPolicy | None = None,
                 redactor: Redactor | None = None) -> None:
        self.judge = judge
        self.identity = identity
        """Who answers, for the cache; None: the answers are not cached."""
        self.cache = cache
        self.seed = seed
        self.temperature = temperature
        self.limiter = limiter or Limiter(1)
        self.policy = policy or RetryPolicy(2, 0.5)
        self.redactor = redactor or Redactor()
        """Cuts the endpoint's key out of every answer, as the judges' runtime does: a turn
        the user says is sent to the agent and recorded."""
        self.closers: list[Any] = []
        """What stops with the simulator (a local model's server)."""

    async def next_turn(self, case_id: str, brief: UserBrief,
                        history: Sequence[Mapping[str, Any]]) -> UserTurn:
        """What the user says next; `SimulatorFailed` when the model cannot say it."""
        turn = sum(m.get("role") == "user" for m in history)
        request = JudgeRequest(tuple(prompt(brief, history)), SCHEMA, "user_turn",
                               self.temperature, MAX_TOKENS,
                               seed=turn_seed(self.seed, case_id, turn))
        value = await self._answer(request)
        return UserTurn(str(value.get("message") or ""), bool(value.get("done")))

    async def _answer(self, request: JudgeRequest) -> dict[str, Any]:
        key = None if self.identity is None else cache_key("simulate", self.identity, [
            request.messages, request.temperature, request.seed])
        if key is not None and self.cache is not None:
            stored = self.cache.get(key, lambda v: isinstance(v, dict) and "done" in v)
            if stored is not None:
                return dict(stored)
        try:
            async with self.limiter.slot():
                answer = await with_retries(lambda: self.judge.complete(request), self.policy)
            value = self.redactor.value(read_answer(answer.text, answer.parsed, SCHEMA))
        except ConfigError:
            raise
        except ModelError as exc:
            raise SimulatorFailed(Failure(UNAVAILABLE, self.redactor.text(str(exc)))) from exc
        except Unparsed as exc:
            raise SimulatorFailed(Failure(FORMAT, str(exc))) from exc
        if key is not None and self.cache is not None:
            self.cache.put(key, "simulate", value)
        return dict(value)

    async def aclose(self) -> None:
        closer = getattr(self.judge, "aclose", None)
        if closer is not None:
            await closer()

    def close(self) -> None:
        for part in self.closers:
            part.stop()
        if self.cache is not None:
            self.cache.close()


def turn_seed(seed: int, case_id: str, turn: int) -> int:
    """The seed of one simulated turn: the run's seed, the scenario and the turn hashed.

    >>> turn_seed(0, "a", 1) == turn_seed(0, "a", 1) != turn_seed(1, "a", 1)
    True
    """
    digest = hashlib.sha256(f"{seed}:{case_id}:{turn}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def prompt(brief: UserBrief, history: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The chat messages asking for the user's next turn; the dialog between `<dialog>`
    tags, as judges see it."""
    language = "中文" if brief.language == "zh" else "English"
    facts = "; ".join(f"{k}: {v}" for k, v in brief.facts.items()) or "-"
    system = (
        "You play the USER talking to a customer-service agent. Stay in the role.\n"
        f"Goal: {brief.goal}\nPersona: {brief.persona or '-'}\n"
        f"Facts you know: {facts}. When the agent asks for one, give it exactly as "
        "written.\n"
        f"Stop rule: {brief.stop or 'your goal is reached'}\n"
        f"Write every message in {language}, one or two short sentences.\n"
        'Answer with JSON only: {"done": true|false, "message": "..."}; set done to true, '
        "with an empty message, only when the stop rule holds.")
    lines = [f"{'user' if m.get('role') == 'user' else 'agent'}: {m.get('content') or ''}"
             for m in history if m.get("role") in ("user", "assistant") and m.get("content")]
    dialog = "\n".join(lines) or "(the conversation has not started)"
    return [{"role": "system", "content": system},
            {"role": "user", "content": f"<dialog>\n{dialog}\n</dialog>\n"
                                        "What does the user say next?"}]
