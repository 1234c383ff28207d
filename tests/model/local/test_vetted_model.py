"""`--judge local --judge-model PATH`: the local judge on a GGUF file the user vetted, its
sha256 shown and pinned. The pin is checked on a small file; loading a real model is
tested only where the `local` extra is installed."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

SPEC = """\
check polite = judge(criteria: "礼貌", scale: 10)
metric polite_rate = rate(polite)
"""
ROWS = [{"id": f"c{i}", "messages": [{"role": "user", "content": "空调坏了"},
                                     {"role": "assistant", "content": "师傅明天上门"}]}
        for i in range(2)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "s.eval").write_text(SPEC, encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    (tmp_path / "vetted.gguf").write_bytes(b"GGUF not really a model" * 100)
    return tmp_path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


NEEDS_LLAMA = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None,
    reason="without the `local` extra the run stops at the missing extra before it reads the "
           "model (tests/cli/test_run_local_judge.py)")


def _env(tmp: Path) -> dict[str, str]:
    return {"EVALDSL_LANG": "en", "EVALDSL_CACHE_DIR": str(tmp / "cache"),
            "XDG_CONFIG_HOME": str(tmp / "none")}


@NEEDS_LLAMA
def test_a_pin_that_does_not_match_stops_the_run(project: Path, kit: Any) -> None:
    model = project / "vetted.gguf"
    done = kit.evaldsl("run", project / "s.eval", project / "cases.jsonl", "--judge", "local",
                       "--judge-model", model, "--judge-sha256", "0" * 64, env=_env(project))
    assert done.returncode == 2, done.stderr
    assert (f"the judge model `{model}` has sha256 `{_digest(model)}`, but `{'0' * 64}` is "
            "pinned") in done.stderr
    assert "Traceback" not in done.stderr


@NEEDS_LLAMA
def test_the_pin_is_read_from_evaldsl_toml(project: Path, kit: Any) -> None:
    model = project / "vetted.gguf"
    (project / "evaldsl.toml").write_text(
        f'[judge]\nprovider = "local"\nmodel = "{model}"\nsha256 = "{"f" * 64}"\n',
        encoding="utf-8")
    done = kit.evaldsl("run", project / "s.eval", project / "cases.jsonl", "--config",
                       project / "evaldsl.toml", env=_env(project))
    assert done.returncode == 2, done.stderr
    assert f"but `{'f' * 64}` is pinned" in done.stderr


@NEEDS_LLAMA
def test_a_missing_model_file_is_named(project: Path, kit: Any) -> None:
    done = kit.evaldsl("run", project / "s.eval", project / "cases.jsonl", "--judge", "local",
                       "--judge-model", project / "gone.gguf", env=_env(project))
    assert done.returncode == 2
    assert f"the judge model `{project / 'gone.gguf'}` does not exist" in done.stderr


@pytest.mark.slow
@pytest.mark.local_judge
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                    reason="the local judge needs the `local` extra")
def test_a_vetted_copy_of_the_weights_judges(project: Path, kit: Any) -> None:
    """The bundled weights copied elsewhere and pinned: the run shows the file and its
    sha256, and every case is judged by the model loaded from that file."""
    from evaldsl.model.local.weights import WEIGHTS_SHA256, ensure_weights

    model = ensure_weights()
    done = kit.evaldsl("run", project / "s.eval", project / "cases.jsonl", "--judge", "local",
                       "--judge-model", model, "--judge-sha256", WEIGHTS_SHA256,
                       "-o", project / "r.json", env=_env(project), timeout=600)
    assert done.returncode in (0, 1), done.stderr
    assert f"local judge: `{model}`, sha256 {WEIGHTS_SHA256}" in done.stderr
    report = json.loads((project / "r.json").read_text("utf-8"))
    assert report["cost"]["model_calls"] == 2 and report["cases"]["errored"] == 0
