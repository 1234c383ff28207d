"""`evaldsl check` from the command line: output, exit codes, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evaldsl.cli.main import main

GOOD = 'check polite = judge(criteria: "polite")\n\nmetric polite_rate = rate(polite)\n'
BAD = GOOD.replace("rate(polite)", "rate(polit)")
WARN = GOOD + "let spare = 1\n"


def _write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, "utf-8")
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evaldsl", *args], capture_output=True,
                          text=True, timeout=120)


class TestCheckOutput:
    def test_clean(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A clean spec exits 0 and says so."""
        assert main(["check", str(_write(tmp_path, "a.eval", GOOD))]) == 0
        assert capsys.readouterr().out == "no problems in 1 file\n"

    def test_error_rendering(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """Errors exit 2 (a spec error, as from every verb) and render with location, source
        line, carets and hint."""
        path = _write(tmp_path, "a.eval", BAD)
        assert main(["check", "--no-color", str(path)]) == 2
        assert capsys.readouterr().out == (
            f"{path}:3:27: error[E101]: unknown name `polit`\n"
            "3 | metric polite_rate = rate(polit)\n"
            "  |                           ^^^^^\n"
            "hint: a check with a similar name exists: `polite`\n"
            "\n"
            "1 error in 1 file\n"
        )

    def test_strict_with_errors_and_warnings_is_still_a_spec_error(
            self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """An error outranks a warning made an error by `--strict`: exit 2, not 1."""
        _write(tmp_path, "a.eval", WARN)
        _write(tmp_path, "b.eval", BAD)
        assert main(["check", "--strict", str(tmp_path)]) == 2

    def test_warnings_pass_unless_strict(self, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
        """Warnings exit 0; `--strict` makes them errors, a failed verdict (1)."""
        path = _write(tmp_path, "a.eval", WARN)
        assert main(["check", str(path)]) == 0
        assert "warning[W102]" in capsys.readouterr().out
        assert main(["check", "--strict", str(path)]) == 1
        assert "error[W102]" in capsys.readouterr().out

    def test_json(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """`--format json` prints a list of objects with the documented keys."""
        path = _write(tmp_path, "a.eval", BAD)
        assert main(["check", "--format", "json", str(path)]) == 2
        found = json.loads(capsys.readouterr().out)
        assert found == [{
            "file": str(path), "line": 3, "col": 27, "end_line": 3, "end_col": 32,
            "severity": "error", "code": "E101", "message": "unknown name `polit`",
            "hint": "a check with a similar name exists: `polite`",
        }]

    def test_json_clean(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A clean run in JSON is an empty list."""
        assert main(["check", "--format", "json", str(_write(tmp_path, "a.eval", GOOD))]) == 0
        assert json.loads(capsys.readouterr().out) == []

    def test_chinese_carets(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """Carets line up under wide characters."""
        text = 'check 礼貌 = judge(criteria: "x")\nmetric 率 = rate(礼帽)\n'
        path = _write(tmp_path, "a.eval", text)
        assert main(["check", "--no-color", str(path)]) == 2
        lines = capsys.readouterr().out.splitlines()
        assert lines[1:3] == ["2 | metric 率 = rate(礼帽)", "  |" + " " * 18 + "^^^^"]


class TestColour:
    def test_no_colour_when_piped(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """Output to a pipe or file is plain."""
        main(["check", str(_write(tmp_path, "a.eval", BAD))])
        assert "\x1b[" not in capsys.readouterr().out

    def test_colour_on_a_terminal(self, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
        """On a TTY errors are coloured, unless `--no-color` or `NO_COLOR`."""
        path = str(_write(tmp_path, "a.eval", BAD))
        monkeypatch.delenv("NO_COLOR", raising=False)
        monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
        main(["check", path])
        assert "\x1b[1;31m" in capsys.readouterr().out
        main(["check", "--no-color", path])
        assert "\x1b[" not in capsys.readouterr().out
        monkeypatch.setenv("NO_COLOR", "1")
        main(["check", path])
        assert "\x1b[" not in capsys.readouterr().out


class TestPaths:
    def test_folders_are_searched_recursively(self, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
        """Every `*.eval` below a folder, hidden folders and other files skipped."""
        _write(tmp_path, "a.eval", GOOD)
        _write(tmp_path, "deep/er/b.eval", BAD)
        _write(tmp_path, "notes.txt", "not a spec")
        _write(tmp_path, ".hidden/c.eval", BAD)
        assert main(["check", "--format", "json", str(tmp_path)]) == 2
        files = {Path(d["file"]).name for d in json.loads(capsys.readouterr().out)}
        assert files == {"b.eval"}

    def test_missing_path(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A path that does not exist is a usage error (exit 2)."""
        assert main(["check", str(tmp_path / "nope.eval")]) == 2
        assert "does not exist" in capsys.readouterr().err

    def test_folder_without_specs(self, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
        """A folder with no spec is a usage error."""
        assert main(["check", str(tmp_path)]) == 2
        assert "no `.eval` files" in capsys.readouterr().err

    def test_unreadable(self, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                        monkeypatch: pytest.MonkeyPatch) -> None:
        """A file that cannot be read exits 2 with the reason, no traceback."""
        path = _write(tmp_path, "a.eval", GOOD)

        def refuse(self: Path) -> bytes:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(Path, "read_bytes", refuse)
        assert main(["check", str(path)]) == 2
        assert capsys.readouterr().err == (
            f"evaldsl check: error: cannot read `{path}`: Permission denied\n")

    def test_no_paths_is_usage(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Without a path argparse reports usage (exit 2)."""
        with pytest.raises(SystemExit) as info:
            main(["check"])
        assert info.value.code == 2


class TestHostileInput:
    @pytest.mark.parametrize(("name", "content", "code"), [
        ("junk.eval", bytes(range(256)) * 20, "E001"),
        ("latin1.eval", 'let x = "caf\xe9"\n'.encode("latin-1"), "E001"),
        ("deep.eval", "let x = " + "(" * 1000 + "1" + ")" * 1000 + "\n", "E003"),
        ("nots.eval", "let x = " + "not " * 1000 + "true\n", "E003"),
        ("big.eval", "let x = 1\n" * 1_100_000, "E002"),
    ])
    def test_reported_not_raised(self, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 name: str, content: str | bytes, code: str) -> None:
        """Binary junk, bad encodings, 1,000-deep nesting and 10 MB files are diagnostics."""
        assert main(["check", "--format", "json", str(_write(tmp_path, name, content))]) == 2
        assert [d["code"] for d in json.loads(capsys.readouterr().out)] == [code]

    def test_empty_file(self, tmp_path: Path) -> None:
        """An empty spec is clean."""
        assert main(["check", str(_write(tmp_path, "empty.eval", ""))]) == 0

    def test_no_traceback_in_a_real_process(self, tmp_path: Path) -> None:
        """The installed entry point survives the worst inputs without a traceback."""
        _write(tmp_path, "junk.eval", bytes(range(256)) * 10)
        _write(tmp_path, "deep.eval", "let x = " + "[" * 1000 + "]" * 1000)
        result = _run("check", str(tmp_path))
        assert result.returncode == 2
        assert "Traceback" not in result.stdout + result.stderr
        assert "2 errors in 2 files" in result.stdout


class TestBenchmark:
    def test_benchmark_specs_are_valid(self) -> None:
        """The check-speed benchmark measures specs the checker accepts."""
        script = Path(__file__).resolve().parents[2] / "benchmarks" / "check_speed.py"
        result = subprocess.run([sys.executable, str(script), "--specs", "30"],
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        assert "errors found: 0," in result.stdout
