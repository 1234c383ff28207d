"""The openai-backed embedder: replies read as JSON text, in input order, or malformed."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from evaldsl.model.errors import MalformedAnswer
from evaldsl.model.openai.embedder import OpenAIEmbedder, vectors_of
from evaldsl.model.settings import Endpoint


def test_vectors_come_back_in_input_order_whatever_the_reply_order() -> None:
    reply = {"data": [{"index": 1, "embedding": [0, 1]}, {"index": 0, "embedding": [1.5, 2]}]}
    assert vectors_of(json.dumps(reply), 2) == [[1.5, 2.0], [0.0, 1.0]]


@pytest.mark.parametrize("reply", ["not json", '{"data": [{"index": 0}]}', '{"rows": []}',
                                   '{"data": [{"index": 0, "embedding": ["x"]}]}'])
def test_a_reply_that_is_not_a_list_of_embeddings_is_malformed(reply: str) -> None:
    with pytest.raises(MalformedAnswer):
        vectors_of(reply, 1)


def test_a_count_that_does_not_match_is_malformed() -> None:
    reply = {"data": [{"index": 0, "embedding": [1.0]}]}
    with pytest.raises(MalformedAnswer, match="asked for 2 embeddings, got 1"):
        vectors_of(json.dumps(reply), 2)


def test_it_embeds_through_the_real_client(openai_server: Any) -> None:
    """Against the test server: one request for the batch, unit vectors of its dimension."""
    endpoint = Endpoint(model="m", base_url=openai_server.base_url, api_key="sk-x", timeout=5)
    vectors = asyncio.run(OpenAIEmbedder(endpoint).embed(["你好", "hello", "你好"]))
    assert len(vectors) == 3 and vectors[0] == vectors[2] != vectors[1]
    assert abs(sum(x * x for x in vectors[0]) - 1.0) < 1e-9
    assert openai_server.stats()["embeddings"] == 1
