"""The project holds itself to its own tools: ruff, mypy, and evaldsl on its own specs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = ["dsl", "stdlib_rules", "grammar"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=900)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_ruff_is_clean() -> None:
    result = _run("ruff", "check", *SOURCES, "tests", "benchmarks", "scripts")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean(tmp_path: Path) -> None:
    """Through `scripts/mypy.py`, the one way to run mypy on the package by hand too."""
    pytest.importorskip("mypy")
    result = _run(sys.executable, str(REPO / "scripts" / "mypy.py"),
                  "--cache-dir", str(tmp_path / ".mypy_cache"))
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr


def test_shipped_specs_pass_check_strict() -> None:
    specs = sorted(str(p) for p in (REPO / "specs").rglob("*.eval"))
    assert specs, "the project ships example specs"
    result = _run(sys.executable, "-m", "evaldsl", "check", "--strict", *specs)
    assert result.returncode == 0, result.stdout + result.stderr


def test_shipped_specs_are_formatted() -> None:
    result = _run(sys.executable, "-m", "evaldsl", "fmt", "--check", "specs")
    assert result.returncode == 0, result.stdout + result.stderr


def test_shipped_spec_examples_pass() -> None:
    result = _run(sys.executable, "-m", "evaldsl", "test", "specs")
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr
