"""Fixtures: the interpreter test kit (test-only primitives, a counting model runtime)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

KIT_FILE = Path(__file__).resolve().parents[1] / "support" / "interpreter_kit.py"


def load_kit_module() -> ModuleType:
    """tests/support/interpreter_kit.py as a module (the suite uses importlib import mode)."""
    name = "evaldsl_test_interpreter_kit"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, KIT_FILE)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


load_kit_module()
"""Test modules `import evaldsl_test_interpreter_kit as kit` after this has run."""


@pytest.fixture(scope="session")
def kitmod() -> ModuleType:
    return load_kit_module()
