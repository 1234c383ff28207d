"""Fixtures: the interpreter test kit (test-only primitives, a counting model runtime)."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support import interpreter_kit


@pytest.fixture(scope="session")
def kitmod() -> ModuleType:
    return interpreter_kit
