"""The pytest plugin: spec examples as pytest items, only when asked for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SPEC = """\
check greets = keyword(scope: first_user, any: ["hello"])
outcome {
  good if greets
  bad otherwise
}
metric good_rate = rate(good)

example "greeting" {
  user "hello"
  assistant "hi"
  expect good
}

example "no greeting" {
  user "yo"
  assistant "hi"
  expect EXPECTED
}
"""


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          capture_output=True, text=True, cwd=folder, timeout=120)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "greet.eval").write_text(SPEC.replace("EXPECTED", "bad"), encoding="utf-8")
    (specs / "wrong.eval").write_text(SPEC.replace("EXPECTED", "good"), encoding="utf-8")
    return tmp_path


def test_a_named_spec_file_is_collected(folder: Path) -> None:
    done = pytest_in(folder, "specs/greet.eval", "-v")
    assert done.returncode == 0, done.stdout
    assert "greet.eval::greeting PASSED" in done.stdout
    assert "2 passed" in done.stdout


def test_a_failing_expect_fails_the_item(folder: Path) -> None:
    done = pytest_in(folder, "specs/wrong.eval")
    assert done.returncode == 1
    assert "wrong.eval:17:3: expect good  ->  false" in done.stdout
    assert "1 failed, 1 passed" in done.stdout


def test_folders_are_not_searched_without_the_flag(folder: Path) -> None:
    """Installed everywhere, the plugin must not pick up .eval files on its own."""
    done = pytest_in(folder, "specs")
    assert done.returncode == 5, done.stdout
    assert "no tests ran" in done.stdout


def test_folders_are_searched_with_the_flag(folder: Path) -> None:
    done = pytest_in(folder, "specs", "--evaldsl")
    assert done.returncode == 1
    assert "1 failed, 3 passed" in done.stdout


def test_ini_option(folder: Path) -> None:
    (folder / "pytest.ini").write_text("[pytest]\nevaldsl_specs = specs\n", encoding="utf-8")
    done = pytest_in(folder, "specs/")
    assert "1 failed, 3 passed" in done.stdout
