"""Driving one scenario: its user turns sent one at a time, the dialog recorded.

Each turn appends the user's message, waits for the target's messages and stamps the reply
(the turn's last message) with `latency_ms`, the time the target took; the target's own
secrets are masked in them (`evaldsl.agents.secrets`) before anything records them. The conversation
ends as a transcript (`evaldsl.agents.transcripts`) and as the case the spec judges; a
failure of the target at any turn ends it as an `error` result naming the reason and the
turn, so a dialog with a missing turn is never judged as if it were whole.

How hard the agent is pushed is the judges' machinery: a `Limiter` bounds conversations in
flight, `with_retries` retries transient failures (none by default:
`TargetConfig.max_retries`), and a `Gate` stops sending once the agent failed the same way
`circuit_breaker` times in a row, or the run's deadline passed.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from evaldsl.agents.base import Conversation, Message, Target
from evaldsl.agents.canned import CannedResults
from evaldsl.agents.config import TargetConfig
from evaldsl.agents.secrets import masked, secret_values
from evaldsl.agents.simulator import Simulator
from evaldsl.agents.transcripts import ROW, Transcripts
from evaldsl.agents.user_brief import USER, UserBrief, end_problem, turn_problem
from evaldsl.cases.case import Case
from evaldsl.errors import ConfigError, SimulatorFailed
from evaldsl.i18n import N_, _
from evaldsl.model.breaker import Gate
from evaldsl.model.errors import ModelError
from evaldsl.model.limits import Limiter, RetryPolicy, with_retries
from evaldsl.report.simulator_failures import KIND_WORDS
from evaldsl.results import ERROR_LABEL, CaseResult, MetricError
from evaldsl.runtime.aggregation import ReportPlan
from evaldsl.runtime.grouping import group_key
from evaldsl.values import CheckResult

TOOL_RESULTS = "tool_results"


class Driven(NamedTuple):
    """What driving one scenario gave the run."""

    case: Case
    """The transcript as a case; the scenario itself when the target failed."""
    failure: CaseResult | None
    """The `error` result of a conversation the target failed; None when it ended."""
    note: dict[str, Any]
    """What the report's `target` section folds: each reply's latency, the failure."""


@dataclass
class Driver:
    """Drives scenarios against one target; `drive` is the runner's `prepare` step."""

    target: Target
    config: TargetConfig
    plan: ReportPlan
    transcripts: Transcripts | None = None
    deadline: float | None = None
    simulator: Simulator | None = None
    """Plays the user of scenarios that give a `user` brief (`evaldsl.agents.user_brief`)."""

    def __post_init__(self) -> None:
        self.gate = Gate(self.config.circuit_breaker, self.deadline, N_("agent"),
                         N_("the remaining conversations were not sent"))
        self.limiter = Limiter(self.config.concurrency)
        self.policy = RetryPolicy(self.config.max_retries, self.config.backoff)
        self.secrets = secret_values(self.target.secrets)

    def saved(self, scenario: Case) -> Case | None:
        """The transcript an earlier run saved for this scenario row, if any."""
        if self.transcripts is None:
            return None
        return self.transcripts.saved_case(scenario.origin)

    async def drive(self, scenario: Case) -> Driven:
        """The scenario's conversation: saved, or sent now turn by turn."""
        saved = self.saved(scenario)
        if saved is not None:
            return Driven(saved, None, note_of(saved.messages, USER in scenario.fields))
        brief = self._brief(scenario)
        async with self.limiter.slot():
            conversation = Conversation(scenario.id, uuid.uuid4().hex, [],
                                        CannedResults.of(scenario.fields.get(TOOL_RESULTS) or []))
            try:
                await self._converse(scenario, conversation, brief)
            except ConfigError:
                raise
            except ModelError as error:
                return self._failed(scenario, conversation, str(error), brief)
            except SimulatorFailed as failed:
                return self._simulator_failed(scenario, conversation, failed)
        return self._ended(scenario, conversation.history)

    def _brief(self, scenario: Case) -> UserBrief | None:
        if USER not in scenario.fields:
            return None
        if self.simulator is None:
            raise ConfigError(_("scenario `{id}` has a simulated user, and no simulator is "
                                "set: give --simulator MODEL, or `simulator` in "
                                "evaldsl.toml").format(id=scenario.id))
        return UserBrief.of(scenario.fields[USER])

    async def _converse(self, scenario: Case, conversation: Conversation,
                        brief: UserBrief | None) -> None:
        for message in scenario.messages:
            await self._turn(conversation, message.content)
        if brief is not None:
            await self._simulate(scenario, conversation, brief)

    async def _simulate(self, scenario: Case, conversation: Conversation,
                        brief: UserBrief) -> None:
        """The simulated user's turns, until it says it is done or its turns run out."""
        assert self.simulator is not None, "checked by `_brief`"
        done = False
        while not done and _user_turns(conversation.history) < brief.max_turns:
            turn = await self.simulator.next_turn(_trial_key(scenario), brief,
                                                  conversation.history)
            failure = turn_problem(brief, turn.message, turn.done)
            if failure is not None:
                raise SimulatorFailed(failure)
            done = turn.done
            if not done:
                await self._turn(conversation, turn.message)
        failure = end_problem(brief, conversation.history, done)
        if failure is not None:
            raise SimulatorFailed(failure)

    async def _turn(self, conversation: Conversation, message: str) -> None:
        conversation.history.append({"role": "user", "content": message})
        self.gate.check()
        started = time.perf_counter()
        added = await self.gate.send(with_retries(
            lambda: self.target.respond(conversation), self.policy))
        conversation.history.extend(
            masked(stamped(added, time.perf_counter() - started), self.secrets))

    def _ended(self, scenario: Case, history: list[Message]) -> Driven:
        transcript = {"id": scenario.id, "messages": history, **scenario.fields,
                      ROW: scenario.origin}
        if self.transcripts is not None:
            self.transcripts.write(transcript)
        case = Case.from_dict(transcript, scenario.origin)
        return Driven(case, None, note_of(case.messages, USER in scenario.fields))

    def _failed(self, scenario: Case, conversation: Conversation, reason: str,
                brief: UserBrief | None) -> Driven:
        turns = len(scenario.messages) if brief is None else brief.max_turns
        why = _("the agent failed at turn {turn} of {turns}: {reason}").format(
            turn=_user_turns(conversation.history), turns=turns, reason=reason)
        note = {**_latencies(conversation.history), "error": why}
        if brief is not None:
            note["simulator"] = None
        return Driven(scenario, error_result(self.plan, scenario, why), note)

    def _simulator_failed(self, scenario: Case, conversation: Conversation,
                          failed: SimulatorFailed) -> Driven:
        """An `error` case that is the simulator's: counted apart, never as the agent's."""
        kind = failed.failure.kind
        why = _("the simulated user {what} after turn {turn}: {reason}").format(
            what=_(KIND_WORDS[kind]), turn=_user_turns(conversation.history),
            reason=failed.failure.reason)
        note = {**_latencies(conversation.history), "error": None,
                "simulator": {"failure": kind, "reason": why}}
        return Driven(scenario, error_result(self.plan, scenario, why), note)

    async def aclose(self) -> None:
        await self.target.aclose()
        if self.simulator is not None:
            await self.simulator.aclose()


def stamped(added: Sequence[Message], seconds: float) -> list[Message]:
    """The turn's messages, the reply (the last) stamped with the turn's latency."""
    messages = [dict(m) for m in added]
    if not messages or messages[-1].get("role") != "assistant":
        raise ModelError(_("the agent's answer has no reply"))
    messages[-1]["latency_ms"] = round(seconds * 1000, 3)
    return messages


def note_of(messages: Sequence[Any], simulated: bool = False) -> dict[str, Any]:
    """The `target` note of an ended conversation: the latency of each reply, and, for a
    simulated user, that it did not fail (`simulator: null`)."""
    note: dict[str, Any] = {"latency_ms": [m.latency_ms for m in messages
                                           if m.role == "assistant" and m.latency_ms is not None],
                            "error": None}
    if simulated:
        note["simulator"] = None
    return note


def _latencies(history: Sequence[Message]) -> dict[str, Any]:
    return {"latency_ms": [m["latency_ms"] for m in history if m.get("latency_ms") is not None]}


def _user_turns(history: Sequence[Message]) -> int:
    return sum(m.get("role") == "user" for m in history)


def _trial_key(scenario: Case) -> str:
    """What seeds the simulated user: the scenario, and its trial past the first, so each
    trial of `--trials` samples its own user (and the first keeps a run's former seeds)."""
    trial = scenario.fields.get("trial")
    return f"{scenario.id}#{trial}" if isinstance(trial, int) and trial > 1 else scenario.id


def error_result(plan: ReportPlan, scenario: Case, reason: str) -> CaseResult:
    """A case that could not be judged: every block `error`, every check and metric an
    error with `reason`, as a case whose judge never answered. Its groups are read from
    the scenario's fields, as a judged case's are before anything is judged, so the error
    is counted in its own group of a `by` metric."""
    blocks = [key for key, _labels in plan.blocks]
    return CaseResult(
        scenario.id, dict.fromkeys(blocks, ERROR_LABEL), dict.fromkeys(blocks),
        {name: CheckResult.error(reason, name) for name in plan.checks}, (),
        {m.name: MetricError(reason) for m in plan.metrics}, None,
        dict.fromkeys(blocks, reason),
        groups={m.name: group_key(scenario.fields, m.by) for m in plan.metrics if m.by})
