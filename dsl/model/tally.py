"""Thread-safe counting of model calls into `ModelStats`."""

from __future__ import annotations

import threading

from evaldsl.model.requests import ModelStats


class Tally:
    """Counters shared by every loop and thread of one runtime."""

    def __init__(self) -> None:
        self._stats = ModelStats()
        self._lock = threading.Lock()

    def add(self, calls: int = 0, cached: int = 0, retries: int = 0, errors: int = 0,
            prompt_tokens: int = 0, completion_tokens: int = 0, kind: str | None = None,
            not_asked: int = 0, truncated: int = 0, truncation_retries: int = 0,
            source: str | None = None) -> None:
        """Add to the counters; `kind` also counts `calls` under `by_kind[kind]`, `source`
        counts `cached` under `cached_by[source]` (the judge the answers were from)."""
        with self._lock:
            s = self._stats
            s.calls += calls
            s.cached += cached
            s.retries += retries
            s.errors += errors
            s.prompt_tokens += prompt_tokens
            s.completion_tokens += completion_tokens
            s.not_asked += not_asked
            s.truncated += truncated
            s.truncation_retries += truncation_retries
            if kind is not None:
                s.by_kind[kind] = s.by_kind.get(kind, 0) + calls
            if source is not None and cached:
                s.cached_by[source] = s.cached_by.get(source, 0) + cached

    def snapshot(self) -> ModelStats:
        """A copy of the counters now."""
        with self._lock:
            return ModelStats().merge(self._stats)
