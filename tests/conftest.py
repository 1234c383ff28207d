"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SPECS = REPO / "specs"


def shared_data_dir() -> Path | None:
    """The third-party data folder beside the checkout (`../shared/data`), if present.

    `EVALDSL_SHARED_DATA` overrides the location.
    """
    configured = os.environ.get("EVALDSL_SHARED_DATA")
    candidates = [Path(configured)] if configured else []
    candidates.append(REPO.parent / "shared" / "data")
    return next((c for c in candidates if c.is_dir()), None)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """`../shared/data`; tests that need it skip with the reason where it is absent."""
    found = shared_data_dir()
    if found is None:
        pytest.skip("third-party data (../shared/data) is not present beside this checkout")
    return found


@pytest.fixture(scope="session")
def model_server_process() -> Iterator[Any]:
    """The project's OpenAI-compatible test server (tests/support/openai_server.py), one
    real process on 127.0.0.1 for the session; fixtures hand it out reset."""
    from tests.support import openai_server

    server = openai_server.start()
    try:
        yield server
    finally:
        server.stop()
