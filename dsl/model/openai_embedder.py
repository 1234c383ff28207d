"""Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint.

Used when an embedder model or endpoint is configured; otherwise
`similarity` embeds in-process (`local_embedder`). Batching across cases is
the runtime's job (`batching.py`): this class sends what it is given as one
request.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import openai

from evaldsl.errors import ConfigError
from evaldsl.model.errors import MalformedAnswer
from evaldsl.model.loops import PerLoop
from evaldsl.model.openai_judge import async_http_client, translate
from evaldsl.model.settings import Endpoint


class OpenAIEmbedder:
    """An `Embedder` over the official `openai` client."""

    def __init__(self, endpoint: Endpoint, base_url: Callable[[], str | None] | None = None
                 ) -> None:
        self.endpoint = endpoint
        self.model = endpoint.model
        self.cache_identity = f"{endpoint.provider}:{endpoint.model}"
        self._base_url = base_url or (lambda: endpoint.base_url)
        self._clients: PerLoop[openai.AsyncOpenAI] = PerLoop(self._client, _aclose)

    def _client(self) -> openai.AsyncOpenAI:
        try:
            return openai.AsyncOpenAI(base_url=self._base_url(), api_key=self.endpoint.api_key,
                                      timeout=self.endpoint.timeout, max_retries=0,
                                      http_client=async_http_client())
        except openai.OpenAIError as exc:
            raise ConfigError(
                "the embedding endpoint has no key: set EVALDSL_EMBED_API_KEY or OPENAI_API_KEY, "
                "or remove the embedder settings to embed in-process") from exc

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        if not texts:
            return []
        client = await self._clients.get()
        try:
            response = await client.embeddings.create(model=self.model, input=list(texts),
                                                      encoding_format="float")
        except openai.OpenAIError as exc:
            raise translate(exc, "embedding", self.endpoint.timeout) from exc
        rows = sorted(response.data, key=lambda d: d.index)
        if len(rows) != len(texts):
            raise MalformedAnswer(f"asked for {len(texts)} embeddings, got {len(rows)}", "")
        return [list(row.embedding) for row in rows]

    async def aclose(self) -> None:
        await self._clients.close_current()


async def _aclose(client: openai.AsyncOpenAI) -> None:
    await client.close()
