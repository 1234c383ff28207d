"""Fixtures of the real-data tests: case builders loaded by path (importlib import mode)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

import evaldsl

HERE = Path(__file__).resolve().parent
SPECS = HERE.parents[1] / "specs"


def builder(name: str) -> ModuleType:
    """tests/data/<name>.py as a module."""
    key = f"evaldsl_test_data_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, HERE / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


def load_spec(name: str) -> evaldsl.Spec:
    return evaldsl.load(SPECS / name)


@pytest.fixture(scope="session")
def load() -> Callable[[str], evaldsl.Spec]:
    """Loads a spec of specs/ by file name."""
    return load_spec


@pytest.fixture(scope="session")
def bfcl() -> ModuleType:
    return builder("bfcl_cases")


@pytest.fixture(scope="session")
def sgd() -> ModuleType:
    return builder("sgd_cases")


@pytest.fixture(scope="session")
def dialog_cases() -> ModuleType:
    return builder("dialog_cases")
