"""The two interfaces through which every model call goes.

Engines that have their own model stack implement `Judge` and/or `Embedder`
and pass them to `evaldsl.load(..., judge=..., embedder=...)` (or `loads`); the default
implementations speak to any OpenAI-compatible server through the official
`openai` client. Both are async: the interpreter overlaps many cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class JudgeRequest:
    """One chat completion asking for a structured (JSON) answer."""

    messages: tuple[dict[str, str], ...]
    """OpenAI chat messages (role, content)."""
    schema: dict[str, Any] | None = None
    """JSON Schema the answer must conform to; None for free text."""
    schema_name: str = "answer"
    temperature: float = 0.0
    max_tokens: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    """Not sent to the model; carried into traces (check names, fused or not)."""
    seed: int | None = None
    """Sent as the request's `seed` when set: a simulated user's turns are sampled, and a
    seeded run repeats them (servers that honour it: llama.cpp's, OpenAI's)."""


@dataclass(frozen=True)
class JudgeAnswer:
    """A model's answer: the raw text, and the parsed JSON when a schema was asked."""

    text: str
    parsed: Any = None
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    truncated: bool = False
    """The server stopped at `max_tokens` (`finish_reason: "length"`): the answer is cut off."""


@runtime_checkable
class Judge(Protocol):
    """Answers chat requests. Raise `ModelError` (evaldsl.model.errors) on failure."""

    async def complete(self, request: JudgeRequest) -> JudgeAnswer: ...


@runtime_checkable
class Embedder(Protocol):
    """Embeds texts into vectors of one dimension; same mode on both sides."""

    async def embed(self, texts: Sequence[str]) -> list[list[float]]: ...
