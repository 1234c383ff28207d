"""The project holds itself to its own tools: ruff, mypy, and evaldsl on its own specs."""

from __future__ import annotations

import atexit
import importlib.util
import shutil
import subprocess
import sys
import tempfile
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


_MYPY: list[tuple[subprocess.Popen[str], Path]] = []
"""mypy, once started: the one process and its cache folder."""


def start_mypy() -> None:
    """Start mypy as soon as the session has collected this test (tests/conftest.py):
    it takes a minute of one core, and the suite's tests run in one process, so it runs
    on the other core while they do, and the test only waits for its verdict."""
    if _MYPY or importlib.util.find_spec("mypy") is None:
        return
    cache = Path(tempfile.mkdtemp(prefix="evaldsl-mypy-"))
    process = subprocess.Popen([sys.executable, str(REPO / "scripts" / "mypy.py"),
                                "--cache-dir", str(cache / ".mypy_cache")], cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _MYPY.append((process, cache))
    atexit.register(_stop_mypy)


def _stop_mypy() -> None:
    """A session that ends before the test (`-x`, ctrl-c) leaves no mypy and no cache."""
    for process, cache in _MYPY:
        if process.poll() is None:
            process.kill()
            process.communicate()
        shutil.rmtree(cache, ignore_errors=True)


def test_mypy_strict_is_clean() -> None:
    """Through `scripts/mypy.py`, the one way to run mypy on the package by hand too."""
    pytest.importorskip("mypy")
    start_mypy()
    process = _MYPY[0][0]
    try:
        out, err = process.communicate(timeout=900)
    finally:
        _stop_mypy()
    assert process.returncode == 0, out[-5000:] + err


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
