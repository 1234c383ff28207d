"""Fixtures of the model-layer tests: the OpenAI-compatible test server, in its own process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def openai_server(model_server_process: Any) -> Any:
    """The running test server, reset (no latency, faults or scripts, zero counts)."""
    model_server_process.reset()
    return model_server_process


def model_request(check: str, primitive: str, scope: str = "last_reply", **params: Any) -> Any:
    """A `ModelRequest` for a standard-library primitive with validated params."""
    from evaldsl.cases.scopes import Scope
    from evaldsl.model import ModelRequest
    from evaldsl.primitives.registry import default_registry

    entry = default_registry().get(primitive)
    assert entry is not None
    validated = entry.params(**params)
    return ModelRequest(check, entry, validated, entry.factory(validated), Scope(scope))


def dialog(*turns: str, case_id: str = "c1") -> Any:
    """A case alternating user and assistant turns, starting with the user."""
    from evaldsl.cases.case import Case

    roles = ("user", "assistant")
    messages = [{"role": roles[i % 2], "content": t} for i, t in enumerate(turns)]
    return Case.from_dict({"id": case_id, "messages": messages})


@pytest.fixture
def requests_of() -> Any:
    return model_request


@pytest.fixture
def make_dialog() -> Any:
    return dialog


@pytest.fixture
def runtime_for(openai_server: Any, tmp_path: Path) -> Iterator[Any]:
    """Build default runtimes against the test server; extra env settings as keywords."""
    from evaldsl.model import Settings, default_runtime

    made: list[Any] = []

    def build(cache: bool = True, judge: Any = None, embedder: Any = None,
              **env: str) -> Any:
        values = {"EVALDSL_JUDGE_BASE_URL": openai_server.base_url,
                  "EVALDSL_JUDGE_API_KEY": "sk-test-secret-123",
                  "EVALDSL_JUDGE_BACKOFF": "0.01",
                  "EVALDSL_EMBED_BASE_URL": openai_server.base_url,
                  "EVALDSL_EMBED_API_KEY": "sk-test-secret-123",
                  "EVALDSL_EMBED_BACKOFF": "0.01",
                  "EVALDSL_CACHE_DIR": str(tmp_path / "cache")}
        values.update({f"EVALDSL_{k.upper()}": v for k, v in env.items()})
        if not cache:
            values["EVALDSL_NO_CACHE"] = "1"
        runtime = default_runtime(Settings.load(env=values), judge=judge, embedder=embedder)
        made.append(runtime)
        return runtime

    yield build
    for runtime in made:
        runtime.close()
