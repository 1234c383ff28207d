"""The `openai` provider: any OpenAI-compatible server, through the official `openai` client.

Registered in `evaldsl.model.providers`; the runtime asks it for the judge and the
embedder an endpoint with `provider = "openai"` describes.
"""

from __future__ import annotations

from typing import Any

from evaldsl.model.endpoint import Endpoint
from evaldsl.model.protocols import Embedder, Judge


def judge(endpoint: Endpoint) -> tuple[Judge, Any]:
    """The chat endpoint's judge; it starts no server."""
    from evaldsl.model.openai.judge import OpenAIJudge

    return OpenAIJudge(endpoint), None


def embedder(endpoint: Endpoint) -> Embedder:
    """The `/v1/embeddings` endpoint's embedder."""
    from evaldsl.model.openai.embedder import OpenAIEmbedder

    return OpenAIEmbedder(endpoint)
