"""A key a project's settings file names goes only to a host the user allows.

A project's `evaldsl.toml` comes with the project, and a project may come from anyone: it
must not be able to send `GITHUB_TOKEN` (any `*_TOKEN` or `*_API_KEY`) to a host of its
choosing by naming both. The user allows a host for a variable in their own settings
(`[key_hosts]` of the user-level config, `EVALDSL_KEY_HOSTS`) or on the command line
(`--key-host NAME=HOST`); the user's own machine (loopback) needs no allowance."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaldsl.agents.config import load_target
from evaldsl.errors import ConfigError
from evaldsl.model.settings import Settings
from tests.agents.conftest import write_scenarios
from tests.support.user_config import user_config

REMOTE = "https://collector.example.net/agent"
UNRESOLVABLE = "http://agent.invalid:9/agent"
"""A host no resolver answers for (RFC 6761): a run allowed to go there sends nothing."""


def http_project(tmp_path: Path, url: str, variable: str = "GITHUB_TOKEN") -> Path:
    path = tmp_path / "evaldsl.toml"
    path.write_text("[targets.agent]\nkind = \"http\"\n"
                    f'url = "{url}"\nreply_path = "reply"\ntimeout = 2\n'
                    f'headers_env = {{ X-Api-Key = "{variable}" }}\n', encoding="utf-8")
    return path


class TestTargets:
    def test_a_project_cannot_send_a_key_to_a_host_it_names(self, tmp_path: Path) -> None:
        path = http_project(tmp_path, REMOTE)
        with pytest.raises(ConfigError) as caught:
            load_target("agent", path, env={"GITHUB_TOKEN": "ghp_x"})
        assert str(caught.value) == (
            f"{path} [targets.agent]: `GITHUB_TOKEN` is named in the project's settings file "
            "and is not sent to collector.example.net:443: a key goes only to a host your own "
            "settings or the command line allow; allow it with `--key-host "
            "GITHUB_TOKEN=collector.example.net`, `EVALDSL_KEY_HOSTS=GITHUB_TOKEN="
            "collector.example.net`, or `GITHUB_TOKEN = [\"collector.example.net\"]` under "
            "[key_hosts] in your user-level config")

    def test_an_openai_target_key_is_held_to_the_same_rule(self, tmp_path: Path) -> None:
        path = tmp_path / "evaldsl.toml"
        path.write_text('[targets.bot]\nkind = "openai"\nmodel = "m"\n'
                        'base_url = "https://collector.example.net/v1"\n'
                        'api_key_env = "OPENAI_API_KEY"\n', encoding="utf-8")
        with pytest.raises(ConfigError, match="`OPENAI_API_KEY` is named in the project's"):
            load_target("bot", path, env={})

    def test_the_user_config_allows_a_host(self, tmp_path: Path) -> None:
        path = http_project(tmp_path, REMOTE)
        env = user_config(tmp_path, '[key_hosts]\nGITHUB_TOKEN = ["collector.example.net"]\n')
        assert load_target("agent", path, env=env).kind == "http"

    def test_the_environment_allows_a_host_and_port(self, tmp_path: Path) -> None:
        path = http_project(tmp_path, REMOTE)
        env = {"EVALDSL_KEY_HOSTS":
               "OTHER_TOKEN=x.example, GITHUB_TOKEN=collector.example.net:443"}
        assert load_target("agent", path, env=env).kind == "http"
        with pytest.raises(ConfigError):
            load_target("agent", path, env={"EVALDSL_KEY_HOSTS": "GITHUB_TOKEN=x.example:8443"})

    def test_an_allowance_for_another_variable_does_not_count(self, tmp_path: Path) -> None:
        path = http_project(tmp_path, REMOTE)
        with pytest.raises(ConfigError):
            load_target("agent", path,
                        env={"EVALDSL_KEY_HOSTS": "AGENT_TOKEN=collector.example.net"})

    def test_the_project_file_cannot_allow_itself(self, tmp_path: Path) -> None:
        path = http_project(tmp_path, REMOTE)
        path.write_text(path.read_text("utf-8")
                        + '[key_hosts]\nGITHUB_TOKEN = ["collector.example.net"]\n',
                        encoding="utf-8")
        with pytest.raises(ConfigError, match=r"\[key_hosts\] belongs to your own settings"):
            load_target("agent", path, env={})

    def test_loopback_needs_no_allowance(self, tmp_path: Path) -> None:
        for url in ("http://127.0.0.1:8000/a", "http://localhost/a", "http://[::1]:9/a"):
            assert load_target("agent", http_project(tmp_path, url), env={}).kind == "http"


class TestCommandLine:
    def run(self, kit: Any, tmp_path: Path, spec: Path, *extra: str, lang: str = "en") -> Any:
        scenarios = tmp_path / "scenarios.jsonl"
        write_scenarios(scenarios, 1)
        return kit.evaldsl("run", spec, scenarios, "--target", "agent", "--config",
                           http_project(tmp_path, UNRESOLVABLE), "--results",
                           tmp_path / "results.jsonl", "-o", tmp_path / "report.json",
                           "--lang", lang, *extra,
                           env={"GITHUB_TOKEN": "ghp_secret_value_1", "EVALDSL_KEY_HOSTS": ""})

    def test_refused_before_anything_is_sent_in_english_and_chinese(
            self, kit: Any, tmp_path: Path, spec: Path) -> None:
        done = self.run(kit, tmp_path, spec)
        assert done.returncode == 2
        assert "`GITHUB_TOKEN` is named in the project's settings file and is not sent to " \
               "agent.invalid:9" in done.stderr
        assert "--key-host GITHUB_TOKEN=agent.invalid:9" in done.stderr
        zh = self.run(kit, tmp_path, spec, lang="zh")
        assert zh.returncode == 2
        assert "项目的设置文件" in zh.stderr
        assert "--key-host GITHUB_TOKEN=agent.invalid:9" in zh.stderr
        assert "ghp_secret_value_1" not in done.stderr + zh.stderr
        assert not (tmp_path / "results.jsonl").exists()

    def test_key_host_on_the_command_line_allows_it(self, kit: Any, tmp_path: Path,
                                                    spec: Path) -> None:
        done = self.run(kit, tmp_path, spec, "--key-host", "GITHUB_TOKEN=agent.invalid:9")
        assert done.returncode == 4, done.stderr
        assert "the connection to the agent failed" in done.stderr


class TestJudges:
    EVIL = "https://collector.example.net/v1"

    def test_a_project_named_judge_key_goes_only_to_an_allowed_host(
            self, tmp_path: Path) -> None:
        path = tmp_path / "evaldsl.toml"
        path.write_text(f'[judge]\nbase_url = "{self.EVIL}"\napi_key_env = "GITHUB_TOKEN"\n',
                        encoding="utf-8")
        with pytest.raises(ConfigError, match=r"\[judge\]: `GITHUB_TOKEN` is named in the "
                                              r"project's settings file and is not sent to "
                                              r"collector\.example\.net:443"):
            Settings.load(path, env={"GITHUB_TOKEN": "ghp_x"})
        allowed = Settings.load(path, env={
            "GITHUB_TOKEN": "ghp_x", "EVALDSL_KEY_HOSTS": "GITHUB_TOKEN=collector.example.net"})
        assert allowed.judge.api_key == "ghp_x"
        named = Settings.load(path, env={"GITHUB_TOKEN": "ghp_x"},
                              judge_api_key_env="GITHUB_TOKEN")
        assert named.judge.api_key == "ghp_x"
