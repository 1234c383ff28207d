"""`resolve_settings`: what `run --judge --judge-model --no-cache` resolves to, for any engine."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from evaldsl.errors import ConfigError
from evaldsl.model.keys import PLACEHOLDER_KEY
from evaldsl.model.resolve import resolve_settings


@pytest.fixture(autouse=True)
def no_user_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No user config and no judge variables from the machine running the tests."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    monkeypatch.chdir(tmp_path)
    for name in ("EVALDSL_JUDGE", "EVALDSL_JUDGE_API_KEY", "EVALDSL_JUDGE_BASE_URL",
                 "EVALDSL_CACHE_DIR", "EVALDSL_NO_CACHE", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_a_url_judge_is_an_openai_server_with_the_placeholder_key() -> None:
    settings = resolve_settings(judge="http://127.0.0.1:9/v1", judge_model="m")
    assert (settings.judge.provider, settings.judge.base_url) == ("openai",
                                                                  "http://127.0.0.1:9/v1")
    assert (settings.judge.model, settings.judge.api_key) == ("m", PLACEHOLDER_KEY)


def test_a_key_set_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_JUDGE_API_KEY", "sk-mine")
    settings = resolve_settings(judge="http://127.0.0.1:9/v1", judge_key_env="MY_JUDGE_API_KEY")
    assert settings.judge.api_key == "sk-mine"


def test_without_a_judge_choice_the_file_decides(tmp_path: Path) -> None:
    config = tmp_path / "evaldsl.toml"
    config.write_text('[judge]\nmodel = "from-file"\nconcurrency = 3\n', encoding="utf-8")
    settings = resolve_settings(config, deadline=12.5)
    assert (settings.judge.model, settings.judge.concurrency) == ("from-file", 3)
    assert settings.judge.api_key is None and settings.deadline == 12.5


def test_the_cache_choices(tmp_path: Path) -> None:
    assert not resolve_settings(no_cache=True).cache_enabled
    assert resolve_settings(cache_dir=tmp_path / "c").cache_dir == tmp_path / "c"


def test_a_vetted_model_file_is_announced_with_its_sha256(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    model = tmp_path / "vetted.gguf"
    model.write_bytes(b"GGUF not really a model" * 10)
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    said: list[str] = []
    settings = resolve_settings(judge="local", judge_model=str(model), judge_sha256=digest,
                                announce=said.append)
    assert settings.judge.provider == "local"
    assert said == [f"local judge: `{model}`, sha256 {digest}"]


def test_a_pin_the_file_does_not_have_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    model = tmp_path / "vetted.gguf"
    model.write_bytes(b"GGUF")
    with pytest.raises(ConfigError, match="is pinned"):
        resolve_settings(judge="local", judge_model=str(model), judge_sha256="0" * 64)
