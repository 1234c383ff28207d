"""`default_runtime`: which judge and embedder it builds from settings."""

from __future__ import annotations

from pathlib import Path

from evaldsl.model import Settings, default_runtime
from evaldsl.model.openai.embedder import OpenAIEmbedder
from evaldsl.model.openai.judge import OpenAIJudge


def test_local_judge_is_started_lazily_and_stopped_on_close(tmp_path: Path) -> None:
    """`judge = "local"` wires the local server in, but starts nothing until a request."""
    settings = Settings.load(env={"EVALDSL_JUDGE": "local", "EVALDSL_CACHE_DIR": str(tmp_path)})
    runtime = default_runtime(settings)
    judge = runtime.judge
    assert isinstance(judge, OpenAIJudge)
    assert judge.cache_identity == "local:judge"
    server = runtime._closers[0]
    assert not server.running
    runtime.close()
    assert not server.running


def test_no_embedding_endpoint_means_in_process(tmp_path: Path) -> None:
    """Without embedder settings `similarity` embeds in-process; with a URL, remotely."""
    local = default_runtime(Settings.load(env={"EVALDSL_CACHE_DIR": str(tmp_path)}))
    remote = default_runtime(Settings.load(env={"EVALDSL_EMBED_BASE_URL": "http://127.0.0.1:9/v1",
                                                "EVALDSL_CACHE_DIR": str(tmp_path)}))
    assert type(local.batcher.embedder).__name__ == "LocalEmbedder"
    assert isinstance(remote.batcher.embedder, OpenAIEmbedder)
    local.close()
    remote.close()


def test_injected_parts_are_used_as_given(tmp_path: Path) -> None:
    """Any Judge and Embedder an engine passes replace the configured ones."""

    class Judge:
        async def complete(self, request: object) -> object:
            raise NotImplementedError

    class Embedder:
        async def embed(self, texts: object) -> list[list[float]]:
            return []

    judge, embedder = Judge(), Embedder()
    runtime = default_runtime(Settings(cache_dir=tmp_path), judge=judge,  # type: ignore[arg-type]
                              embedder=embedder)
    assert runtime.judge is judge and runtime.batcher.embedder is embedder
    assert runtime.identity is None
    runtime.close()
