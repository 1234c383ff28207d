"""docs/settings.schema.json: generated from the settings readers, and agreeing with them."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from evaldsl.agents.config import target_of
from evaldsl.errors import ConfigError
from evaldsl.model.settings import ENDPOINT_FIELDS, Settings
from evaldsl.settings_schema import main, rendered, settings_schema

SHIPPED = Path(__file__).resolve().parents[1] / "docs" / "settings.schema.json"
VALIDATOR = jsonschema.Draft202012Validator(settings_schema())

ACCEPTED = [
    'judge = "local"\n',
    '[judge]\nmodel = "m"\nbase_url = "http://127.0.0.1:1/v1"\napi_key_env = "MY_API_KEY"\n'
    'timeout = 5\nconcurrency = 2\nrequests_per_minute = 60.5\ncontext = 4096\n'
    '[embedder]\nmodel = "e"\n[cache]\nenabled = false\ndir = "c"\n',
    '[targets.shop]\nkind = "http"\nurl = "http://127.0.0.1:9/chat"\nreply_path = "reply"\n'
    'headers_env = { Authorization = "SHOP_TOKEN" }\ntimeout = 3\n',
    '[targets.bot]\nkind = "openai"\nmodel = "m"\nmax_steps = 4\n',
]
REFUSED = [
    '[judge]\napi_key = "sk-secret"\n',
    '[judge]\nmodle = "m"\n',
    'judge = "anthropic"\n',
    '[judge]\nconcurrency = "many"\n',
    '[targets.shop]\nkind = "http"\nmodel = "m"\n',
    '[targets.shop]\nkind = "carrier-pigeon"\n',
    '[targets.shop]\nkind = "openai"\nmodel = "m"\ntimeout = -1\n',
]


def loads_fine(text: str, tmp_path: Path) -> bool:
    """Whether the readers accept the file: the model settings, then every target."""
    path = tmp_path / "evaldsl.toml"
    path.write_text(text, encoding="utf-8")
    table: dict[str, Any] = tomllib.loads(text)
    try:
        Settings.load(path, env={"MY_API_KEY": "k"})
        for name, target in (table.get("targets") or {}).items():
            target_of(name, target)
    except ConfigError:
        return False
    return True


class TestShippedFile:
    def test_the_shipped_schema_is_the_generated_one(self) -> None:
        """After a setting changes, `python -m evaldsl.settings_schema
        docs/settings.schema.json` regenerates the file."""
        assert SHIPPED.read_text("utf-8") == rendered()

    def test_check_mode_tells_a_stale_file(self, tmp_path: Path) -> None:
        stale = tmp_path / "settings.schema.json"
        stale.write_text("{}\n", encoding="utf-8")
        assert main([str(stale), "--check"]) == 1
        assert main([str(stale)]) == 0
        assert main([str(stale), "--check"]) == 0

    def test_it_is_a_valid_draft_2020_12_schema(self) -> None:
        jsonschema.Draft202012Validator.check_schema(json.loads(SHIPPED.read_text("utf-8")))


class TestAgreesWithTheReaders:
    def test_every_endpoint_setting_is_in_the_schema_and_the_key_is_not(self) -> None:
        listed = set(settings_schema()["$defs"]["endpoint"]["properties"])
        assert listed == (ENDPOINT_FIELDS - {"api_key"}) | {"api_key_env"}

    @pytest.mark.parametrize("text", ACCEPTED)
    def test_a_file_the_schema_accepts_loads(self, text: str, tmp_path: Path) -> None:
        assert not list(VALIDATOR.iter_errors(tomllib.loads(text)))
        assert loads_fine(text, tmp_path)

    @pytest.mark.parametrize("text", REFUSED)
    def test_a_file_the_readers_refuse_the_schema_refuses(self, text: str,
                                                          tmp_path: Path) -> None:
        assert not loads_fine(text, tmp_path)
        assert list(VALIDATOR.iter_errors(tomllib.loads(text)))
