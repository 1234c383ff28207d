"""Fixtures of the model-layer tests: the OpenAI-compatible test server, in its own process."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SERVER_FILE = Path(__file__).resolve().parents[1] / "support" / "openai_server.py"


def load_server_module() -> ModuleType:
    """tests/support/openai_server.py as a module (the suite uses importlib import mode)."""
    name = "evaldsl_test_openai_server"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SERVER_FILE)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def _server_process() -> Iterator[Any]:
    server = load_server_module().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def openai_server(_server_process: Any) -> Any:
    """The running test server, reset (no latency, faults or scripts, zero counts)."""
    _server_process.reset()
    return _server_process
