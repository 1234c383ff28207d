"""One table from exception to exit code: every verb ends through it, and a bug is one line."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from evaldsl.cli import explain
from evaldsl.cli.exits import (
    EXIT_BROKEN_PIPE,
    EXIT_DATA,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    EXITS,
    exit_for,
)
from evaldsl.cli.main import main
from evaldsl.errors import CaseDataError, ConfigError, EvaldslError, SpecError, UsageError

REPO = Path(__file__).resolve().parents[2]
SPEC = 'check k = keyword(any: ["hi"])\n'
BAD_SPEC = 'check k = keyword(any: ["hi"])\nmetric r = rate(kk)\n'


def _write(path: Path, text: str) -> Path:
    path.write_text(text, "utf-8")
    return path


class TestTable:
    @pytest.mark.parametrize(("exc", "code"), [
        (SpecError([], "cannot read spec `x.eval`"), EXIT_USAGE),
        (UsageError("--resume needs --results"), EXIT_USAGE),
        (ConfigError("no judge configured"), EXIT_USAGE),
        (EvaldslError("another spec"), EXIT_USAGE),
        (CaseDataError("cases.jsonl", 3, "not valid JSON"), EXIT_DATA),
        (FileNotFoundError(2, "No such file or directory", "cases.jsonl"), EXIT_DATA),
        (KeyboardInterrupt(), EXIT_INTERRUPTED),
        (BrokenPipeError(), EXIT_BROKEN_PIPE),
    ])
    def test_each_kind_has_its_code(self, exc: BaseException, code: int,
                                    capsys: pytest.CaptureFixture[str]) -> None:
        """The codes the README promises, whatever verb raised."""
        assert exit_for(exc, "run") == code

    def test_no_row_is_shadowed_by_an_earlier_one(self) -> None:
        """First match wins, so a subclass listed after its base would never be reached."""
        for i, earlier in enumerate(EXITS):
            for later in EXITS[i + 1:]:
                assert not issubclass(later.kind, earlier.kind), (later.kind, earlier.kind)

    def test_messages_name_the_verb(self, capsys: pytest.CaptureFixture[str]) -> None:
        exit_for(CaseDataError("cases.jsonl", 3, "not valid JSON"), "run")
        exit_for(FileNotFoundError(2, "No such file or directory", "x.jsonl"), "review")
        assert capsys.readouterr().err.splitlines() == [
            "evaldsl run: error: cases.jsonl:3: not valid JSON",
            "evaldsl review: error: `x.jsonl`: No such file or directory"]

    def test_a_hint_follows_the_message(self, capsys: pytest.CaptureFixture[str]) -> None:
        """Advice is kept apart from the message, as in diagnostics."""
        exit_for(UsageError("`labels.csv` holds no rows", hint="fill in the sample"), "calibrate")
        exit_for(CaseDataError("s.csv", 2, "not UTF-8", hint="save it as CSV UTF-8"), "calibrate")
        assert capsys.readouterr().err.splitlines() == [
            "evaldsl calibrate: error: `labels.csv` holds no rows", "hint: fill in the sample",
            "evaldsl calibrate: error: s.csv:2: not UTF-8", "hint: save it as CSV UTF-8"]

    def test_a_broken_pipe_prints_nothing(self, capsys: pytest.CaptureFixture[str]) -> None:
        assert exit_for(BrokenPipeError(), "check") == EXIT_BROKEN_PIPE
        assert capsys.readouterr().err == ""


class TestInternalError:
    @pytest.fixture(autouse=True)
    def _traceback_dir(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def test_a_verb_that_raises_prints_one_line(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> None:
        """A bug is `evaldsl: internal error: TYPE: message`, no traceback, exit 70."""
        def broken(path: str) -> None:
            raise RuntimeError("graph lost\nits way")

        monkeypatch.setattr(explain, "load", broken)
        assert main(["explain", str(_write(tmp_path / "s.eval", SPEC))]) == EXIT_INTERNAL
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1, err
        assert err.startswith("evaldsl: internal error: RuntimeError: graph lost its way "
                              "(traceback in ")
        assert "Traceback" not in err

    def test_the_traceback_is_saved_where_the_line_says(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> None:
        def broken(path: str) -> None:
            raise KeyError("missing")

        monkeypatch.setattr(explain, "load", broken)
        main(["explain", str(_write(tmp_path / "s.eval", SPEC))])
        err = capsys.readouterr().err
        saved = Path(err.split("(traceback in ", 1)[1].split(";", 1)[0])
        assert saved.parent == tmp_path
        text = saved.read_text("utf-8")
        assert text.startswith("Traceback") and "in broken" in text and "KeyError" in text

    def test_without_a_writable_temp_dir_the_line_still_comes(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> None:
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
        assert exit_for(ValueError(), "run") == EXIT_INTERNAL
        assert capsys.readouterr().err == "evaldsl: internal error: ValueError\n"


class TestVerbsAgree:
    """The same problem ends every verb with the same code."""

    @pytest.mark.parametrize("verb", [["check"], ["explain"], ["test"], ["run"]])
    def test_a_missing_spec_is_a_usage_error(self, verb: list[str], tmp_path: Path) -> None:
        spec = str(tmp_path / "missing.eval")
        cases = [str(_write(tmp_path / "c.jsonl", ""))] if verb == ["run"] else []
        assert main([*verb, spec, *cases]) == EXIT_USAGE

    @pytest.mark.parametrize("verb", [["check"], ["explain"], ["test"], ["run"]])
    def test_a_spec_with_errors_is_a_usage_error(self, verb: list[str], tmp_path: Path) -> None:
        """2 from every verb, `check` included: 1 is kept for a failed verdict."""
        spec = str(_write(tmp_path / "bad.eval", BAD_SPEC))
        cases = [str(_write(tmp_path / "c.jsonl", ""))] if verb == ["run"] else []
        assert main([*verb, spec, *cases]) == EXIT_USAGE

    def test_missing_data_is_a_data_error(self, tmp_path: Path) -> None:
        spec = str(_write(tmp_path / "s.eval", SPEC))
        missing = str(tmp_path / "missing.jsonl")
        assert main(["run", spec, missing]) == EXIT_DATA
        assert main(["review", missing, "--spec", spec, "-o", str(tmp_path / "o.jsonl")]) \
            == EXIT_DATA
        assert main(["calibrate", missing, missing]) == EXIT_DATA

    def test_a_report_onto_a_fifo_is_a_data_error_naming_it(
            self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        spec = str(_write(tmp_path / "s.eval", SPEC))
        row = '{"id": "a", "messages": [{"role": "user", "content": "hi"}]}\n'
        cases = str(_write(tmp_path / "c.jsonl", row))
        fifo = tmp_path / "report.json"
        os.mkfifo(fifo)
        assert main(["run", spec, cases, "-o", str(fifo), "-q"]) == EXIT_DATA
        assert str(fifo) in capsys.readouterr().err
        assert fifo.is_fifo()


class TestEveryVerb:
    def test_a_verb_module_that_cannot_be_imported_fails_loudly(
            self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A broken install never drops a verb from the command line without a word."""
        from evaldsl.cli import main as entry

        monkeypatch.setattr(entry, "VERBS", (*entry.VERBS, "no_such_verb"))
        with pytest.raises(ModuleNotFoundError, match="no_such_verb"):
            main(["--help"])


class TestBrokenPipe:
    """`evaldsl ... | head` ends quietly, with the code a shell gives a writer SIGPIPE ended."""

    @pytest.mark.parametrize("args", [["--version"], ["explain", "specs/repair_booking.eval"],
                                      ["primitives"]], ids=["argparse", "small", "large"])
    def test_a_reader_that_goes_away_ends_the_command_quietly(self, args: list[str]) -> None:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
        process = subprocess.Popen([sys.executable, "-m", "evaldsl", *args], cwd=REPO,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        try:
            code = process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
        stderr = process.stderr.read().decode()
        process.stderr.close()
        assert stderr == ""
        assert code == EXIT_BROKEN_PIPE == 141
