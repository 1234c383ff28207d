"""Which key each endpoint gets: a project's evaldsl.toml cannot send a key elsewhere."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaldsl.errors import ConfigError
from evaldsl.model.keys import PLACEHOLDER_KEY, keys_withheld, without_keys
from evaldsl.model.settings import Settings
from tests.support.user_config import user_config

KEY = "sk-home-0123456789"
EVIL = "https://collector.example.net/v1"


def project(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "evaldsl.toml"
    path.write_text(text, encoding="utf-8")
    return path


class TestVariableNames:
    @pytest.mark.parametrize("name", ["HOME", "AWS_SECRET_ACCESS_KEY", "GITHUB_PAT", "PATH"])
    def test_a_name_without_a_key_suffix_is_a_settings_error(self, tmp_path: Path,
                                                             name: str) -> None:
        """The file, the table and the rule are named; the variable is never read."""
        path = project(tmp_path, f'[judge]\napi_key_env = "{name}"\n')
        with pytest.raises(ConfigError) as caught:
            Settings.load(path, env={name: "secret-value"})
        assert str(caught.value) == (
            f"{path} [judge]: api_key_env `{name}` is refused: a key variable's name must "
            "end in `_API_KEY` or `_TOKEN`")

    def test_the_rule_holds_in_the_environment_and_on_the_command_line(self) -> None:
        with pytest.raises(ConfigError, match="EVALDSL_EMBED_API_KEY_ENV: api_key_env `HOME`"):
            Settings.load(env={"EVALDSL_EMBED_API_KEY_ENV": "HOME", "HOME": "/root"})
        with pytest.raises(ConfigError, match="--judge-key-env: api_key_env `USER`"):
            Settings.load(env={"USER": "x"}, judge_api_key_env="USER")

    @pytest.mark.parametrize("name", ["MY_JUDGE_API_KEY", "GATEWAY_TOKEN"])
    def test_a_named_variable_of_its_own_goes_to_the_project_host_the_user_allows(
            self, tmp_path: Path, name: str) -> None:
        path = project(tmp_path, f'[judge]\nbase_url = "{EVIL}"\napi_key_env = "{name}"\n')
        env = {name: "own-key", "OPENAI_API_KEY": KEY}
        with pytest.raises(ConfigError, match=f"`{name}` is named in the project's settings"):
            Settings.load(path, env=env)
        env.update(user_config(tmp_path, f'[key_hosts]\n{name} = ["collector.example.net"]\n'))
        assert Settings.load(path, env=env).judge.api_key == "own-key"


class TestHomeHost:
    def test_the_default_key_goes_to_the_default_host(self) -> None:
        assert Settings.load(env={"OPENAI_API_KEY": KEY}).judge.api_key == KEY

    def test_a_project_file_pointing_elsewhere_gets_no_default_key(self, tmp_path: Path) -> None:
        """Neither OPENAI_API_KEY nor EVALDSL_JUDGE_API_KEY: the placeholder is sent, so the
        client cannot fall back to OPENAI_API_KEY itself."""
        path = project(tmp_path, f'[judge]\nbase_url = "{EVIL}"\n'
                                 f'[embedder]\nbase_url = "{EVIL}"\n')
        settings = Settings.load(path, env={"OPENAI_API_KEY": KEY,
                                            "EVALDSL_JUDGE_API_KEY": KEY,
                                            "EVALDSL_EMBED_API_KEY": KEY})
        assert settings.judge.api_key == PLACEHOLDER_KEY
        assert settings.embedder.api_key == PLACEHOLDER_KEY

    def test_a_project_file_naming_a_default_variable_elsewhere_is_refused(
            self, tmp_path: Path) -> None:
        path = project(tmp_path, f'[judge]\nbase_url = "{EVIL}"\n'
                                 'api_key_env = "OPENAI_API_KEY"\n')
        with pytest.raises(ConfigError) as caught:
            Settings.load(path, env={"OPENAI_API_KEY": KEY})
        assert str(caught.value).startswith(
            f"{path} [judge]: `OPENAI_API_KEY` holds the key for api.openai.com and is not "
            "sent to collector.example.net")
        assert KEY not in str(caught.value)

    def test_the_environment_sets_the_home_host(self, tmp_path: Path) -> None:
        """OPENAI_BASE_URL (or EVALDSL_JUDGE_BASE_URL) moves the home host: a project file
        pointing at the same host gets the key."""
        path = project(tmp_path, '[judge]\nbase_url = "http://gw.internal:8080/v1"\n')
        env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": "http://gw.internal:8080/v1"}
        assert Settings.load(path, env=env).judge.api_key == KEY
        judge_env = {"EVALDSL_JUDGE_API_KEY": KEY,
                     "EVALDSL_JUDGE_BASE_URL": "http://127.0.0.1:9999/v1"}
        assert Settings.load(env=judge_env).judge.api_key == KEY

    def test_a_url_on_the_command_line_gets_no_default_key(self) -> None:
        settings = Settings.load(env={"OPENAI_API_KEY": KEY},
                                 judge_base_url="http://127.0.0.1:8080/v1")
        assert settings.judge.api_key == PLACEHOLDER_KEY

    def test_the_command_line_can_send_a_default_key_anywhere(self, tmp_path: Path) -> None:
        path = project(tmp_path, f'[judge]\nbase_url = "{EVIL}"\n'
                                 'api_key_env = "OPENAI_API_KEY"\n')
        settings = Settings.load(path, env={"OPENAI_API_KEY": KEY},
                                 judge_api_key_env="OPENAI_API_KEY")
        assert settings.judge.api_key == KEY

    def test_the_user_config_sets_the_home_host(self, tmp_path: Path) -> None:
        gateway = 'base_url = "https://gateway.corp.example/v1"\n'
        env = {**user_config(tmp_path, "[judge]\n" + gateway), "OPENAI_API_KEY": KEY}
        path = project(tmp_path, "[judge]\n" + gateway + 'model = "m"\n')
        assert Settings.load(path, env=env).judge.api_key == KEY
        assert Settings.load(env=env).judge.base_url == "https://gateway.corp.example/v1"

    def test_an_unset_named_variable_sends_the_placeholder(self, tmp_path: Path) -> None:
        """Not the client's own fallback to OPENAI_API_KEY."""
        path = project(tmp_path, f'[judge]\nbase_url = "{EVIL}"\napi_key_env = "MY_API_KEY"\n')
        env = {"OPENAI_API_KEY": KEY, "EVALDSL_KEY_HOSTS": "MY_API_KEY=collector.example.net"}
        assert Settings.load(path, env=env).judge.api_key == PLACEHOLDER_KEY


class TestUserConfig:
    def test_it_is_read_below_the_project_file(self, tmp_path: Path) -> None:
        env = user_config(tmp_path, '[judge]\nmodel = "user"\ntimeout = 9\n')
        path = project(tmp_path, '[judge]\nmodel = "project"\n')
        settings = Settings.load(path, env=env)
        assert (settings.judge.model, settings.judge.timeout) == ("project", 9.0)

    def test_home_config_is_the_fallback(self, tmp_path: Path) -> None:
        folder = tmp_path / ".config" / "evaldsl"
        folder.mkdir(parents=True)
        (folder / "config.toml").write_text('[judge]\nmodel = "mine"\n', encoding="utf-8")
        assert Settings.load(env={"HOME": str(tmp_path)}).judge.model == "mine"

    def test_a_broken_user_config_names_itself(self, tmp_path: Path) -> None:
        env = user_config(tmp_path, "[judge\n")
        with pytest.raises(ConfigError, match="cannot read settings file .*config.toml"):
            Settings.load(env=env)


class TestChildEnvironments:
    def test_without_keys_drops_every_key_variable(self) -> None:
        env = {"OPENAI_API_KEY": "k", "gh_token": "t", "HOME": "/h", "PATH": "/bin"}
        assert without_keys(env) == {"HOME": "/h", "PATH": "/bin"}

    def test_keys_are_withheld_and_restored_even_after_an_error(
            self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("ACME_API_KEY", KEY)
        with pytest.raises(RuntimeError), keys_withheld():
            assert "ACME_API_KEY" not in os.environ
            raise RuntimeError("a worker failed to start")
        assert os.environ["ACME_API_KEY"] == KEY
