"""The seam between the interpreter and the model layer.

The interpreter never talks to a model. For one case it collects the model
checks it still needs *in the current round* (those whose value can change a
label, a metric or a review decision) and awaits `ModelRuntime.resolve` once
with all of them, so the runtime can fuse checks that share a judge and scope
into one request, serve answers from the cache, batch embeddings across cases,
bound concurrency and retry. Whatever happens, it returns one `CheckResult`
per request, in order: an error result after the last retry, never a pass or
a fail invented for a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import msgspec
from pydantic import BaseModel

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import Scope
from evaldsl.primitives.registry import Primitive
from evaldsl.values import CheckResult


class ModelRequest(msgspec.Struct, frozen=True):
    """One model check needed for one case."""

    check: str
    """The check's name in the spec."""
    primitive: Primitive
    params: BaseModel
    """Validated params (dynamic ones already evaluated for this case)."""
    model_check: Any
    """What `primitive.factory(params)` returned."""
    scope: Scope


class ModelStats(msgspec.Struct):
    """Counters a run reports as its cost."""

    calls: int = 0
    """Requests sent to a server (chat and embedding), retries excluded."""
    cached: int = 0
    """Answers served from the cache instead."""
    retries: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    by_kind: dict[str, int] = msgspec.field(default_factory=dict)
    cache_read_failures: int = 0
    """Cache lookups that failed (an unreadable file, a stored value that does not fit)."""
    cache_write_failures: int = 0
    """Answers the cache could not store."""
    not_asked: int = 0
    """Model checks failed without a request: the breaker was open or the deadline passed."""
    stopped: str | None = None
    """Why the runtime stopped asking (the breaker's reason, or the deadline), if it did."""
    truncated: int = 0
    """Answers cut off at `max_tokens` (`finish_reason: "length"`), retries' included."""
    truncation_retries: int = 0
    """Requests asked again with a larger budget because their answer was cut off."""
    cached_by: dict[str, int] = msgspec.field(default_factory=dict)
    """Answers from the cache per judge that gave them (`openai:model@url`)."""

    def merge(self, other: ModelStats) -> ModelStats:
        kinds = dict(self.by_kind)
        for k, v in other.by_kind.items():
            kinds[k] = kinds.get(k, 0) + v
        sources = dict(self.cached_by)
        for k, v in other.cached_by.items():
            sources[k] = sources.get(k, 0) + v
        return ModelStats(
            self.calls + other.calls, self.cached + other.cached, self.retries + other.retries,
            self.errors + other.errors, self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens, kinds,
            self.cache_read_failures + other.cache_read_failures,
            self.cache_write_failures + other.cache_write_failures,
            self.not_asked + other.not_asked, self.stopped or other.stopped,
            self.truncated + other.truncated, self.truncation_retries + other.truncation_retries,
            sources,
        )


class ModelRuntime(Protocol):
    async def resolve(self, case: Case, requests: Sequence[ModelRequest]) -> list[CheckResult]:
        """One result per request, in order; failures are error results."""
        ...

    def stats(self) -> ModelStats: ...
