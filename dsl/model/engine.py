"""The default `ModelRuntime`: fuse, cache, bound, retry, and turn failure into values.

For one case's round of model checks, `resolve` selects each check's units
(as much of them as the check's `window` reads),
asks every check for its plan, fuses the chat questions (`fusion`), serves
what it can from the cache, sends the rest under the endpoint's limiter with
retries, asks once more with a larger budget when an answer is cut off at
`max_tokens`, validates each answer against its schema (one repair request when
it does not fit) and reads each check's part back. Similarity checks go
through the embedding batcher. Any failure after the last retry becomes the
check's error result with the reason (and a malformed answer's raw text) in
it: never a pass or a fail. Every answer and every failure's reason passes
through the runtime's `Redactor` first, so no key a server repeats reaches a
result, the cache or a report. A `ConfigError` (no key, a refused key, an unknown
model, no server at the first request) is not one case's failure: it is
raised, and stops the run.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import Unit, combine, select
from evaldsl.cases.windows import windowed
from evaldsl.errors import ConfigError, EvaldslError
from evaldsl.i18n import _
from evaldsl.model.batching import EmbedBatcher, cosine
from evaldsl.model.breaker import Gate
from evaldsl.model.budget import larger_budget
from evaldsl.model.cache import AnswerCache, cache_key
from evaldsl.model.checks import ChatCheck, EmbedCheck, VotedParams
from evaldsl.model.contact import Contact
from evaldsl.model.context_window import check_fits
from evaldsl.model.errors import (
    AnswerError,
    CutOff,
    MalformedAnswer,
    ModelError,
    NotAsked,
    Unparsed,
    excerpt,
)
from evaldsl.model.fusion import Group, Question, group
from evaldsl.model.limits import RequestLimiter, RetryPolicy, with_retries
from evaldsl.model.prompts import build_request, property_key, repair_request
from evaldsl.model.protocols import Judge, JudgeAnswer, JudgeRequest
from evaldsl.model.redact import Redactor
from evaldsl.model.requests import ModelRequest, ModelStats
from evaldsl.model.structured import problem, read_answer
from evaldsl.model.tally import Tally
from evaldsl.model.votes import combine_judges, combine_votes
from evaldsl.values import CheckResult


class DefaultRuntime:
    """A `ModelRuntime` over any `Judge` and `Embedder`; see the module docstring."""

    def __init__(self, judge: Judge, batcher: EmbedBatcher, limiter: RequestLimiter,
                 policy: RetryPolicy, tally: Tally, cache: AnswerCache | None = None,
                 temperature: float = 0.0, closers: Sequence[object] = (),
                 redactor: Redactor | None = None, gate: Gate | None = None) -> None:
        self.judge = judge
        self.batcher = batcher
        self.limiter = limiter
        self.policy = policy
        self.tally = tally
        self.cache = cache
        self.temperature = temperature
        self.identity: str | None = getattr(judge, "cache_identity", None)
        """Answers are cached only for judges that say who they are."""
        self.shown: str | None = getattr(judge, "shown_identity", None) or self.identity
        """The judge named as the source of cached answers (no URL path or query)."""
        self._closers = list(closers)
        self.contact = Contact()
        """Whether the judge has answered yet (a refused first connection stops the run)."""
        self.redactor = redactor or Redactor()
        """What every server text passes through before it becomes part of a result."""
        self.gate = gate if gate is not None else Gate()
        """When to stop asking the judge: the circuit breaker and the run's deadline."""
        self.context: int | None = getattr(judge, "context_tokens", None)
        """The judge's context window in tokens, for judges that say (the local one does)."""

    def stats(self) -> ModelStats:
        """The calls counted so far, and the answer cache's failures."""
        stats = self.tally.snapshot()
        if self.cache is not None:
            failures = self.cache.failures
            stats.cache_read_failures, stats.cache_write_failures = failures
        stats.stopped = self.gate.stopped or self.batcher.gate.stopped
        return stats

    async def resolve(self, case: Case, requests: Sequence[ModelRequest]) -> list[CheckResult]:
        """One result per request, in order; failures are error results."""
        units = [[windowed(u, getattr(r.params, "window", None)) for u in select(case, r.scope)]
                 for r in requests]
        per_unit: list[list[CheckResult | None]] = [[None] * len(u) for u in units]
        answers: Answers = {}
        questions: list[tuple[Question, Unit]] = []
        embeds: list[tuple[int, int]] = []
        for i, request in enumerate(requests):
            for j, unit in enumerate(units[i]):
                check = request.model_check
                if isinstance(check, EmbedCheck):
                    embeds.append((i, j))
                elif isinstance(check, ChatCheck):
                    per_unit[i][j] = self._plan(request, i, j, unit, questions)
                else:
                    per_unit[i][j] = CheckResult.error(
                        f"`{request.primitive.name}` is not a model check", request.check)
        await asyncio.gather(
            *(self._ask(g, requests, answers) for g in group(questions)),
            *(self._embed(requests[i], units[i][j], i, j, per_unit) for i, j in embeds))
        for (i, j), members in answers.items():
            per_unit[i][j] = _of_judges(requests[i], members)
        return [self._finish(r, units[i], per_unit[i]) for i, r in enumerate(requests)]

    def _plan(self, request: ModelRequest, i: int, j: int, unit: Unit,
              questions: list[tuple[Question, Unit]]) -> CheckResult | None:
        params = request.params
        try:
            plan = request.model_check.plan(params, unit)
        except (AnswerError, ValueError) as exc:
            return CheckResult.error(str(exc), request.check)
        if plan.task is None:
            return plan.result or CheckResult.error("the check made no plan", request.check)
        models = params.models if isinstance(params, VotedParams) else [
            getattr(params, "model", None)]
        for member, model in enumerate(models):
            question = Question(i, j, property_key(request.check), plan.task, plan, model,
                                getattr(params, "fuse", True), getattr(params, "votes", 1),
                                member)
            questions.append((question, unit))
        return None

    def _finish(self, request: ModelRequest, units: list[Unit],
                results: list[CheckResult | None]) -> CheckResult:
        if not units:
            return CheckResult.error(f"scope `{request.scope}` selects nothing in this dialog",
                                     request.check)
        done = [r or CheckResult.error("no answer", request.check) for r in results]
        if len(done) == 1 and request.scope.combine == "single":
            return done[0]
        return combine(done, request.scope.combine)

    async def _ask(self, fused: Group, requests: Sequence[ModelRequest],
                   out: Answers) -> None:
        """Ask the group's request once per sample; each question combines the samples
        it asked for (`votes`), each sample read on its own, as its judge's answer."""
        names = [requests[qs[0].request].check for qs in fused.questions.values()]
        request = build_request(fused.unit, fused.tasks(), self.temperature,
                                {"checks": names, "fused": len(names) > 1})
        answers = await asyncio.gather(
            *(self._sample(request, fused, s) for s in range(fused.samples)))
        for key, qs in fused.questions.items():
            for q in qs:
                check = requests[q.request]
                reads = [self._failure(a, check.check) if isinstance(a, BaseException)
                         else self._read(check, fused.unit, q, a, key)
                         for a in answers[:q.votes]]
                out.setdefault((q.request, q.unit), {})[q.member] = combine_votes(
                    reads, check.model_check.vote, check.check)

    async def _sample(self, request: JudgeRequest, fused: Group, sample: int) -> Any:
        """One sample's answer, or the model error that stopped it (counted here, once
        per sample: a failed sample is an error, never a vote)."""
        try:
            return await self._answer(request, fused.model, sample)
        except ConfigError:
            raise
        except (ModelError, EvaldslError) as exc:
            if isinstance(exc, NotAsked):
                self.tally.add(not_asked=sum(len(qs) for qs in fused.questions.values()))
            else:
                self.tally.add(errors=1)
            return exc

    def _read(self, request: ModelRequest, unit: Unit, q: Question, answer: Any,
              key: str) -> CheckResult:
        try:
            result: CheckResult = request.model_check.read(request.params, unit, q.plan,
                                                           answer.get(key))
            return result
        except (AnswerError, ValueError, TypeError, KeyError) as exc:
            self.tally.add(errors=1)
            raw = excerpt(str(answer.get(key)))
            reason = f"the judge's answer does not fit: {exc}; raw: {raw}"
            return CheckResult.error(self.redactor.text(reason), request.check)

    async def _answer(self, request: JudgeRequest, model: str | None, sample: int = 0) -> Any:
        """The validated JSON answer: from the cache, or asked (with one repair)."""
        key = self._key(request, model, sample)
        if key is not None and self.cache is not None:
            stored = self.cache.get(key, lambda value: _fits(value, request.schema))
            if stored is not None:
                self.tally.add(cached=1, source=self._source(model))
                return self.redactor.value(stored)
        answer = await self._whole(request, model, "chat")
        try:
            value = read_answer(answer.text, answer.parsed, request.schema)
        except Unparsed as problem:
            repair = repair_request(request, answer.text, str(problem))
            second = await self._whole(repair, model, "repair")
            try:
                value = read_answer(second.text, second.parsed, request.schema)
            except Unparsed as again:
                raw = second.text or json.dumps(second.parsed, ensure_ascii=False)
                raise MalformedAnswer(f"{again} (after one repair request)", raw) from None
        value = self.redactor.value(value)
        key = self._key(request, model, sample)  # in the form the judge answered in
        if key is not None and self.cache is not None:
            self.cache.put(key, "chat", value)
        return value

    async def _whole(self, request: JudgeRequest, model: str | None, kind: str) -> JudgeAnswer:
        """An answer that was not cut off. One cut at `max_tokens` is asked once more with
        a larger budget (a reasoning model, or a server that writes white space the budget
        did not foresee, may need it); a second cut is a `CutOff`, never a repair request:
        a cut answer is too short, not wrong. A prompt that cannot fit the judge's known
        context is a `ContextExceeded` before anything is sent."""
        check_fits(request.messages, request.max_tokens, self.context)
        answer = await self._call(request, model, kind)
        if not answer.truncated:
            return answer
        self.tally.add(truncated=1, truncation_retries=1)
        larger = replace(request, max_tokens=larger_budget(request.max_tokens,
                                                           answer.completion_tokens))
        again = await self._call(larger, model, "longer")
        if not again.truncated:
            return again
        self.tally.add(truncated=1)
        tokens = larger.max_tokens or again.completion_tokens
        raise CutOff(_("the judge's answer was cut off at {tokens} tokens, also when asked "
                       "again with a larger budget").format(tokens=tokens), again.text)

    def _source(self, model: str | None, shown: bool = True) -> str:
        """The judge an answer is from: its identity (endpoint and model; as `run` shows it,
        or as the cache keys it), and the model a check asks for in place of the
        endpoint's, if any."""
        identity = (self.shown if shown else self.identity) or "?"
        return f"{identity}/{model}" if model else identity

    def _key(self, request: JudgeRequest, model: str | None, sample: int = 0) -> str | None:
        """The answer's cache address. A sample after the first adds its index: each
        sample is stored on its own, the first under the address a single answer has,
        so raising `votes` asks only for the samples not yet stored."""
        if self.identity is None:
            return None
        identity = self._source(model, shown=False)
        form = getattr(self.judge, "response_format", None)
        payload = [request.messages, request.schema, request.temperature, request.max_tokens,
                   {"format": form}]
        if sample:
            payload.append({"sample": sample})
        return cache_key("chat", identity, payload)

    async def _call(self, request: JudgeRequest, model: str | None, kind: str) -> JudgeAnswer:
        judge: Judge = self.judge
        if model is not None and hasattr(judge, "with_model"):
            judge = judge.with_model(model)
        ready = getattr(judge, "ready", None)

        async def attempt() -> JudgeAnswer:
            self.gate.check()
            if ready is not None:  # before a slot: limits count requests the server sees
                await ready()
            async with self.limiter.slot():
                self.gate.check()  # the breaker may have opened while this one waited
                return await self.gate.send(self.contact.send(
                    lambda: judge.complete(request), lambda: self.tally.add(calls=1, kind=kind)))

        answer = await with_retries(attempt, self.policy, lambda e: self.tally.add(retries=1))
        self.tally.add(prompt_tokens=answer.prompt_tokens,
                       completion_tokens=answer.completion_tokens)
        return answer

    async def _embed(self, request: ModelRequest, unit: Unit, i: int, j: int,
                     out: list[list[CheckResult | None]]) -> None:
        check: EmbedCheck = request.model_check
        try:
            first, *others = await self.batcher.vectors(check.texts(request.params, unit))
            out[i][j] = check.read(request.params, [cosine(first, v) for v in others])
        except ConfigError:
            raise
        except Exception as exc:  # an embedder may raise anything; it is this check's error
            unasked = isinstance(exc, NotAsked)
            self.tally.add(not_asked=int(unasked), errors=int(not unasked))
            out[i][j] = self._failure(exc, request.check)

    def _failure(self, exc: BaseException, check: str) -> CheckResult:
        """The error result for a failed model call: its reason (and a malformed answer's
        raw text) redacted, since both may repeat what the server said."""
        reason = str(exc) or type(exc).__name__
        attempts = getattr(exc, "attempts", 0)
        if attempts > 1:
            reason = f"{reason} (gave up after {attempts} attempts)"
        if isinstance(exc, MalformedAnswer) and exc.raw:
            reason = f"{reason}; raw answer: {excerpt(exc.raw)}"
        return CheckResult.error(self.redactor.text(reason), check)

    async def aclose(self) -> None:
        """Close the running loop's clients, then everything `close` closes."""
        for part in (self.judge, self.batcher.embedder):
            closer = getattr(part, "aclose", None)
            if closer is not None:
                await closer()
        self.close()

    def close(self) -> None:
        """Close synchronous resources: sync clients, a local judge server, the cache."""
        for part in (self.judge, *self._closers):
            closer = getattr(part, "close", None) or getattr(part, "stop", None)
            if closer is not None:
                closer()
        if self.cache is not None:
            self.cache.close()


Answers = dict[tuple[int, int], dict[int, CheckResult]]
"""(request, unit) -> judge (its index in `judges:`, 0 for a check of one) -> answer."""


def _of_judges(request: ModelRequest, members: dict[int, CheckResult]) -> CheckResult:
    """A unit's answer: its one judge's, or its judges' combined by the declared rule."""
    params = request.params
    if not isinstance(params, VotedParams) or params.judges is None:
        return members[0]
    ordered = [members.get(k) or CheckResult.error("no answer", request.check)
               for k in range(len(params.judges))]
    vote = request.model_check.vote
    return combine_judges(ordered, params.judges, params.combine or vote, vote, request.check)


def _fits(value: Any, schema: dict[str, Any] | None) -> bool:
    """Whether a cached value is one a live answer to the request could be: the same
    schema check, so a damaged or stale entry is asked again rather than read."""
    if schema is None:
        return True
    return problem(value, schema) is None
