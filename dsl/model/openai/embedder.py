"""Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint.

Used when an embedder model or endpoint is configured; otherwise
`similarity` embeds in-process (`local_embedder`). Batching across cases is
the runtime's job (`batching.py`): this class sends what it is given as one
request.

The request goes through the client's `post` and the reply is read as JSON
text, as the judge does: the typed `embeddings.create` builds a model object
per float of every vector, which measured a third of a judged run's CPU
(3.7 s of 12 s for 2,000 cases with a similarity check each).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import openai

from evaldsl.errors import ConfigError
from evaldsl.i18n import N_, _
from evaldsl.model.endpoint import Endpoint, endpoint_identity
from evaldsl.model.errors import MalformedAnswer
from evaldsl.model.loops import PerLoop
from evaldsl.model.openai.judge import async_http_client, encode, translate


class OpenAIEmbedder:
    """An `Embedder` over the official `openai` client."""

    def __init__(self, endpoint: Endpoint, base_url: Callable[[], str | None] | None = None
                 ) -> None:
        self.endpoint = endpoint
        self.model = endpoint.model
        self.cache_identity = endpoint_identity(endpoint)
        self._base_url = base_url or (lambda: endpoint.base_url)
        self._clients: PerLoop[openai.AsyncOpenAI] = PerLoop(self._client, _aclose)

    def _client(self) -> openai.AsyncOpenAI:
        try:
            return openai.AsyncOpenAI(base_url=self._base_url(), api_key=self.endpoint.api_key,
                                      timeout=self.endpoint.timeout, max_retries=0,
                                      http_client=async_http_client())
        except openai.OpenAIError as exc:
            raise ConfigError(
                _("the embedding endpoint has no key: set EVALDSL_EMBED_API_KEY or "
                  "OPENAI_API_KEY, or remove the embedder settings to embed in-process")
            ) from exc

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        if not texts:
            return []
        client = await self._clients.get()
        body = {"model": self.model, "input": list(texts), "encoding_format": "float"}
        try:
            reply = await client.post("/embeddings", content=encode(body), cast_to=str)
        except openai.OpenAIError as exc:
            raise translate(exc, N_("embedding"), self.endpoint.timeout,
                            self.endpoint.api_key, self._base_url()) from exc
        return vectors_of(reply, len(texts))

    async def aclose(self) -> None:
        await self._clients.close_current()


def vectors_of(reply: str, expected: int) -> list[list[float]]:
    """The vectors of an embeddings reply (JSON text), in input order; malformed otherwise."""
    try:
        rows = sorted(json.loads(reply)["data"], key=lambda row: int(row["index"]))
        vectors = [[float(x) for x in row["embedding"]] for row in rows]
    except (ValueError, KeyError, TypeError) as exc:
        raise MalformedAnswer("the server's reply is not a list of embeddings",
                              reply) from exc
    if len(vectors) != expected:
        raise MalformedAnswer(f"asked for {expected} embeddings, got {len(vectors)}", "")
    return vectors


async def _aclose(client: openai.AsyncOpenAI) -> None:
    await client.close()
