"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from evaldsl.i18n import set_language
from tests.support import run_kit

# The suite asserts English messages, so it runs in English whatever the developer's locale
# (LANG=zh_CN.UTF-8 would otherwise choose Chinese); subprocesses inherit it. The tests of
# the language choice itself set their own environment.
os.environ["EVALDSL_LANG"] = "en"
set_language("en")

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


@pytest.fixture(scope="session")
def kit() -> SimpleNamespace:
    """The runner kit: a deterministic spec, generated case files, the CLI."""
    k = run_kit
    return SimpleNamespace(SPEC=k.SPEC, MODEL_SPEC=k.MODEL_SPEC, write_cases=k.write_cases,
                           evaldsl=k.evaldsl, start_evaldsl=k.start_evaldsl,
                           without_run=k.without_run)


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    path = tmp_path / "runner.eval"
    path.write_text(run_kit.SPEC, encoding="utf-8")
    return path


@pytest.fixture
def judge_server(model_server_process: Any) -> Any:
    """The project's OpenAI-compatible test server, as a real process on 127.0.0.1, reset."""
    model_server_process.reset()
    return model_server_process
