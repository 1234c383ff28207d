"""`evaldsl --lang`, `EVALDSL_LANG` and the locale choose the language of what the CLI says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaldsl.cli.main import language_named

BAD = 'spec "s"\nlet x = y\n'
CHINESE = "未知名称 `y`"
ENGLISH = "unknown name `y`"
LOCALE_VARS = ("EVALDSL_LANG", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


def check(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`evaldsl check` on a bad spec with only the language settings given here."""
    spec = tmp_path / "bad.eval"
    spec.write_text(BAD, encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if k not in LOCALE_VARS}
    return subprocess.run(
        [sys.executable, "-m", "evaldsl", *args, str(spec)]
        if "check" in args
        else [sys.executable, "-m", "evaldsl", "check", *args, str(spec)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**clean, **env},
        timeout=60,
    )


class TestChoosingChinese:
    def test_lang_option_after_the_verb(self, tmp_path: Path) -> None:
        done = check(tmp_path, "--lang", "zh")
        assert done.returncode == 2
        assert CHINESE in done.stdout and "提示：" in done.stdout
        assert "1 个文件中有 1 个错误和 1 个警告" in done.stdout

    def test_lang_option_before_the_verb(self, tmp_path: Path) -> None:
        assert CHINESE in check(tmp_path, "--lang=zh", "check").stdout

    def test_environment_variable(self, tmp_path: Path) -> None:
        assert CHINESE in check(tmp_path, EVALDSL_LANG="zh").stdout

    def test_locale(self, tmp_path: Path) -> None:
        assert CHINESE in check(tmp_path, LANG="zh_CN.UTF-8").stdout

    def test_the_head_stays_parseable(self, tmp_path: Path) -> None:
        """`file:line:col: error[E101]:` is the same in every language, for tools."""
        assert f"bad.eval:2:9: error[E101]: {CHINESE}" in check(tmp_path, "--lang", "zh").stdout

    def test_one_line_errors(self, tmp_path: Path) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "evaldsl", "--lang", "zh", "check", str(tmp_path / "none")],
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=60,
        )
        assert done.returncode == 2
        assert "evaldsl check：错误：" in done.stderr and "不存在" in done.stderr


class TestEnglish:
    def test_by_default(self, tmp_path: Path) -> None:
        done = check(tmp_path)
        assert ENGLISH in done.stdout and "hint: " in done.stdout
        assert "1 error and 1 warning in 1 file" in done.stdout

    def test_for_another_locale(self, tmp_path: Path) -> None:
        assert ENGLISH in check(tmp_path, LANG="de_DE.UTF-8").stdout

    def test_lang_option_wins_over_the_environment(self, tmp_path: Path) -> None:
        done = check(tmp_path, "--lang", "en", EVALDSL_LANG="zh", LANG="zh_CN.UTF-8")
        assert ENGLISH in done.stdout

    def test_environment_variable_wins_over_the_locale(self, tmp_path: Path) -> None:
        assert ENGLISH in check(tmp_path, EVALDSL_LANG="en", LANG="zh_CN.UTF-8").stdout


@pytest.mark.parametrize(
    ("argv", "language"),
    [
        (["check", "--lang", "zh", "x"], "zh"),
        (["--lang=en", "check"], "en"),
        (["--lang", "zh", "check", "--lang", "en"], "en"),
        (["check", "x"], None),
        (["check", "--lang", "fr"], None),
        (["check", "--lang"], None),
    ],
)
def test_language_named(argv: list[str], language: str | None) -> None:
    assert language_named(argv) == language
