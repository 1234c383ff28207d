"""`[targets.NAME]`: what a settings file may say about the agent under test."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaldsl.agents.config import load_target, target_of
from evaldsl.errors import ConfigError


class TestTargetOf:
    def test_common_settings_are_read_and_the_kind_keeps_its_own(self) -> None:
        config = target_of("a", {"kind": "http", "url": "http://127.0.0.1:1/x",
                                 "reply_path": "reply", "timeout": 5, "concurrency": 2})
        assert (config.kind, config.timeout, config.concurrency, config.max_retries) == (
            "http", 5.0, 2, 0)
        assert config.get("url") == "http://127.0.0.1:1/x"

    def test_an_unknown_kind_is_refused_with_the_kinds(self) -> None:
        with pytest.raises(ConfigError) as err:
            target_of("a", {"kind": "grpc"}, "evaldsl.toml")
        assert str(err.value) == ("evaldsl.toml [targets.a]: `kind` must be one of openai, "
                                  "http, python, not `grpc`")

    def test_a_setting_of_another_kind_is_unknown(self) -> None:
        with pytest.raises(ConfigError) as err:
            target_of("a", {"kind": "python", "callable": "m:f", "url": "x"}, "f.toml")
        assert str(err.value) == "f.toml [targets.a]: unknown setting `url`"

    def test_a_key_in_the_file_is_refused(self) -> None:
        with pytest.raises(ConfigError) as err:
            target_of("a", {"kind": "openai", "model": "m", "api_key": "sk-x"}, "f.toml")
        assert str(err.value) == ("f.toml [targets.a]: `api_key`: secrets are read from the "
                                  "environment only; name the variable with `api_key_env` or "
                                  "`headers_env`")

    @pytest.mark.parametrize("table", [
        {"kind": "http", "url": "u", "reply_path": "r", "headers_env": {"X-Home": "HOME"}},
        {"kind": "openai", "model": "m", "api_key_env": "GITHUB_PAT"}])
    def test_a_variable_not_named_for_a_secret_is_refused(self, table: dict[str, object]
                                                         ) -> None:
        with pytest.raises(ConfigError, match=r"is refused: a variable holding a secret must "
                                              r"be named `\.\.\._API_KEY` or `\.\.\._TOKEN`"):
            target_of("a", table, "f.toml")

    def test_a_required_setting_is_named(self) -> None:
        with pytest.raises(ConfigError) as err:
            target_of("a", {"kind": "http", "url": "u"}, "f.toml")
        assert str(err.value) == ("f.toml [targets.a]: `reply_path` is required for a `http` "
                                  "target")

    def test_a_negative_timeout_is_refused(self) -> None:
        with pytest.raises(ConfigError, match="`timeout` has the wrong type or is negative"):
            target_of("a", {"kind": "python", "callable": "m:f", "timeout": -1}, "f.toml")


class TestLoadTarget:
    def test_an_unknown_name_lists_the_targets(self, tmp_path: Path) -> None:
        path = tmp_path / "evaldsl.toml"
        path.write_text('[targets.bot]\nkind = "python"\ncallable = "m:f"\n', encoding="utf-8")
        with pytest.raises(ConfigError) as err:
            load_target("other", path)
        assert str(err.value) == f"{path}: no target `other` (targets: `bot`)"
