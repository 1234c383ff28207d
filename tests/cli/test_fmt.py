"""`evaldsl fmt` from the command line: rewrites, `--check`, standard input, exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evaldsl.cli.main import main

GOOD = 'check polite = judge(criteria: "polite")\n\nmetric polite_rate = rate(polite)\n'
UGLY = 'check   polite=judge( criteria :"polite" )\nmetric polite_rate =rate(polite)\n'


def _write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, "utf-8")
    return path


class TestFmt:
    def test_check_lists_files_that_would_change(self, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
        """`--check` writes nothing, lists the files and exits 1."""
        ugly = _write(tmp_path, "ugly.eval", UGLY)
        _write(tmp_path, "fine.eval", GOOD)
        assert main(["fmt", "--check", str(tmp_path)]) == 1
        assert capsys.readouterr().out == f"would reformat {ugly}\n"
        assert ugly.read_text("utf-8") == UGLY

    def test_rewrites_in_place(self, tmp_path: Path) -> None:
        """Without `--check` files are rewritten, then `--check` passes."""
        ugly = _write(tmp_path, "ugly.eval", UGLY)
        assert main(["fmt", str(ugly)]) == 0
        assert ugly.read_text("utf-8") == GOOD
        assert main(["fmt", "--check", str(ugly)]) == 0

    def test_syntax_error_leaves_the_file(self, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
        """A file that does not parse is reported and not touched (exit 2)."""
        broken = _write(tmp_path, "broken.eval", "let x = (\n")
        assert main(["fmt", str(broken)]) == 2
        assert "error[E012]" in capsys.readouterr().err
        assert broken.read_text("utf-8") == "let x = (\n"

    @pytest.mark.parametrize("newline", [b"\r", b"\r\n"])
    def test_other_line_breaks_are_written_as_newlines(self, tmp_path: Path,
                                                       newline: bytes) -> None:
        """A CR-only (old Mac) or CRLF file is read line by line and written with `\\n`."""
        spec = _write(tmp_path, "cr.eval", GOOD.encode().replace(b"\n", newline))
        assert main(["fmt", "--check", str(spec)]) == 1
        assert main(["fmt", str(spec)]) == 0
        assert spec.read_bytes() == GOOD.encode()

    def test_a_surrogate_is_a_spec_error(self, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
        """An escaped lone surrogate is E004 (exit 2), not an encoding crash."""
        spec = _write(tmp_path, "s.eval", 'check a = keyword(any: ["\\ud800"])\n')
        assert main(["fmt", str(spec)]) == 2
        assert "error[E004]" in capsys.readouterr().err

    def test_binary_input(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """Junk is an error, not a traceback."""
        assert main(["fmt", str(_write(tmp_path, "junk.eval", b"\xff\x00\xfe"))]) == 2
        assert "error[E001]" in capsys.readouterr().err

    def test_stdin_to_stdout(self) -> None:
        """`-` formats standard input to standard output."""
        result = subprocess.run([sys.executable, "-m", "evaldsl", "fmt", "-"], input=UGLY,
                                capture_output=True, text=True, timeout=120)
        assert (result.returncode, result.stdout) == (0, GOOD)

    def test_a_meaning_change_is_an_internal_error(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> None:
        """A formatter bug leaves the file alone and says so in one line (exit 70)."""
        import tempfile

        from evaldsl.cli import fmt

        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
        monkeypatch.setattr(fmt, "format_module", lambda module: "let other = 1\n")
        ugly = _write(tmp_path, "ugly.eval", UGLY)
        assert main(["fmt", str(ugly)]) == 70
        err = capsys.readouterr().err
        assert err.startswith("evaldsl: internal error: FormatterBug: formatting ")
        assert len(err.splitlines()) == 1 and ugly.read_text("utf-8") == UGLY
