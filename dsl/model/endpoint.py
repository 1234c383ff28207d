"""`Endpoint`: how to reach one model server and how hard to push it.

What the settings files say about a judge or an embedder (`evaldsl.model.settings` reads
them), and what a provider (`evaldsl.model.providers`) builds its client from. Kept apart
from the reading so a provider's client depends on this alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evaldsl.errors import ConfigError
from evaldsl.i18n import _
from evaldsl.model.breaker import DEFAULT_THRESHOLD

DEFAULT_JUDGE_MODEL = "gpt-4o-mini"
DEFAULT_EMBED_MODEL = "text-embedding-3-small"


@dataclass(frozen=True)
class Endpoint:
    """How to reach one model server and how hard to push it."""

    provider: str = "openai"
    """`openai` (any OpenAI-compatible server) or `local` (started by evaldsl)."""
    model: str = DEFAULT_JUDGE_MODEL
    base_url: str | None = field(default=None, repr=False)
    """None: the client's own default (`OPENAI_BASE_URL`, else OpenAI)."""
    api_key: str | None = field(default=None, repr=False)
    """Read from the environment only; never printed (repr=False)."""
    temperature: float = 0.0
    timeout: float = 30.0
    """Seconds per request: with two retries and the breaker, a server that never answers
    costs the first wave of requests (about 30 s), not every case's whole budget."""
    concurrency: int = 8
    requests_per_minute: float | None = None
    max_retries: int = 2
    backoff: float = 0.5
    """Base delay in seconds of the exponential backoff between retries."""
    circuit_breaker: int = DEFAULT_THRESHOLD
    """Identical transport failures in a row after which the rest is not asked (0: never)."""
    context: int | None = None
    """The judge's context window in tokens: a prompt estimated beyond it, with its answer's
    budget, is an error without a request. None: only the server knows (the local judge's
    is `LOCAL_CONTEXT`)."""
    sha256: str | None = None
    """The local judge's model file must have this sha256 (`--judge-sha256`): a vetted file
    pinned, so a changed one stops the run."""
    configured: bool = False
    """Whether any source set a model or endpoint (decides remote vs in-process embeddings)."""

    def check(self, name: str) -> Endpoint:
        """Self, or a `ConfigError` naming the bad setting."""
        for attr, low in (("timeout", 0.0), ("concurrency", 1), ("max_retries", 0),
                          ("backoff", 0.0), ("temperature", 0.0), ("circuit_breaker", 0)):
            if getattr(self, attr) < low:
                raise ConfigError(
                    _("{name}: `{attr}` must be at least {low}").format(
                        name=name, attr=attr, low=low
                    )
                )
        if self.context is not None and self.context < 1:
            raise ConfigError(_("{name}: `{attr}` must be at least {low}").format(
                name=name, attr="context", low=1))
        if self.requests_per_minute is not None and self.requests_per_minute <= 0:
            raise ConfigError(_("{name}: `requests_per_minute` must be positive").format(name=name))
        return self


LOCAL_CONTEXT = 8192
"""The local judge's context window (`n_ctx`). benchmarks/judge_context.py measured the
prompt of a `judge(scope: dialog)` check over the 1,000 shipped task dialogs (CrossWOZ,
MultiWOZ, SGD, USS) with the model's own tokenizer: median 446-687 tokens by corpus, 99th
percentile 825-1130, longest 1444; one judge's answer budget is 422, a `slots` check of
ten facts about 2,200. 4096 would hold the longest dialog with only a few fused checks;
8192 holds it with a dozen, or a dialog five times longer, for about 50 MB more of KV
cache (Qwen2.5 0.5B keeps 12 KB a token). A request is as slow as its prompt is long,
not as its window."""


def endpoint_identity(endpoint: Endpoint, shown: bool = False) -> str:
    """Who answers at an endpoint: `openai:gpt-4o-mini@https://api.example.com/v1`, what the
    answer cache keys answers by (hashed: the cache file holds only the digest), so answers
    of one server are never served for another. `shown` gives the form `run` prints,
    `openai:gpt-4o-mini@api.example.com:443`: host and port only, as connection errors name
    a server, since a gateway may carry a token in its path or query."""
    from urllib.parse import urlsplit

    if not endpoint.base_url:
        return f"{endpoint.provider}:{endpoint.model}"
    if not shown:
        return f"{endpoint.provider}:{endpoint.model}@{endpoint.base_url}"
    parts = urlsplit(endpoint.base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{endpoint.provider}:{endpoint.model}@{parts.hostname or ''}:{port}"
