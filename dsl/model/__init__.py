"""The model layer: how model-backed checks reach a judge or an embedder.

A MODEL primitive's factory returns a `ChatCheck` or `EmbedCheck`
(`evaldsl.model.checks`); the interpreter hands the checks one case needs in
a round to `ModelRuntime.resolve` (`evaldsl.model.requests`). The default
runtime (`default_runtime`) fuses checks on the same text into one request,
caches answers on disk, batches embeddings across cases, bounds concurrency
and request rate, retries transient failures and returns an error result,
never a pass or a fail, when a model cannot answer. Engines bring their own
model stack by implementing `Judge` and `Embedder` (`evaldsl.model.protocols`).

Importing this package is cheap: each of its names, and the `openai` client, loads on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evaldsl.model.engine import DefaultRuntime
    from evaldsl.model.errors import ModelError
    from evaldsl.model.factory import default_runtime
    from evaldsl.model.protocols import Embedder, Judge, JudgeAnswer, JudgeRequest
    from evaldsl.model.requests import ModelRequest, ModelRuntime, ModelStats
    from evaldsl.model.settings import Endpoint, Settings

__all__ = [
    "DefaultRuntime",
    "Embedder",
    "Endpoint",
    "Judge",
    "JudgeAnswer",
    "JudgeRequest",
    "ModelError",
    "ModelRequest",
    "ModelRuntime",
    "ModelStats",
    "Settings",
    "default_runtime",
]

_LAZY = {
    "Embedder": "evaldsl.model.protocols",
    "Judge": "evaldsl.model.protocols",
    "JudgeAnswer": "evaldsl.model.protocols",
    "JudgeRequest": "evaldsl.model.protocols",
    "ModelRequest": "evaldsl.model.requests",
    "ModelRuntime": "evaldsl.model.requests",
    "ModelStats": "evaldsl.model.requests",
    "DefaultRuntime": "evaldsl.model.engine",
    "ModelError": "evaldsl.model.errors",
    "default_runtime": "evaldsl.model.factory",
    "Endpoint": "evaldsl.model.settings",
    "Settings": "evaldsl.model.settings",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'evaldsl.model' has no attribute {name!r}")
