"""The providers are one registry: the settings, the runtime and the settings schema read it.

A provider added as one module and registered is accepted by `Settings.load`, offered by
the schema of `evaldsl.toml`, and built by `default_runtime`; an unknown one is refused
naming the registered ones. The shipped providers are the schema's enum, exactly.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaldsl.errors import ConfigError
from evaldsl.model import Settings, default_runtime
from evaldsl.model import providers as registry
from evaldsl.settings_schema import settings_schema

ECHO = '''\
"""A provider written as one module: a judge that answers every question the same."""

from evaldsl.model.protocols import JudgeAnswer

class EchoJudge:
    def __init__(self, endpoint):
        self.endpoint = endpoint

    async def complete(self, request):
        return JudgeAnswer({"value": True}, "{}")

class EchoEmbedder:
    async def embed(self, texts):
        return [[1.0, 0.0] for _ in texts]

def judge(endpoint):
    return EchoJudge(endpoint), None

def embedder(endpoint):
    return EchoEmbedder()
'''


def _schema_providers() -> tuple[list[str], list[str]]:
    """The provider names the schema offers: `judge = "NAME"` and `[judge] provider`."""
    schema = settings_schema()
    shorthand = next(option for option in schema["properties"]["judge"]["anyOf"]
                     if "enum" in option)
    table = schema["$defs"]["endpoint"]["properties"]["provider"]
    return shorthand["enum"], table["enum"]


def test_the_shipped_providers_are_the_schemas_names() -> None:
    assert registry.provider_names() == ("openai", "local")
    assert _schema_providers() == (["openai", "local"], ["openai", "local"])


@pytest.fixture
def echo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The `echo` provider: its module on the path, registered as a shipped one is."""
    (tmp_path / "echo_provider.py").write_text(ECHO, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))

    @registry.model_provider("echo")
    def _echo() -> Any:
        import echo_provider  # type: ignore[import-not-found]

        return echo_provider

    try:
        yield "echo"
    finally:
        registry._LOADERS.pop("echo", None)
        sys.modules.pop("echo_provider", None)


def test_a_provider_added_as_one_module_is_read_by_all_three(echo: str,
                                                             tmp_path: Path) -> None:
    settings = Settings.load(env={"EVALDSL_JUDGE": echo, "EVALDSL_EMBEDDER": echo,
                                  "EVALDSL_CACHE_DIR": str(tmp_path)})
    assert (settings.judge.provider, settings.embedder.provider) == (echo, echo)
    assert _schema_providers() == (["openai", "local", echo], ["openai", "local", echo])
    runtime = default_runtime(settings)
    try:
        assert type(runtime.judge).__name__ == "EchoJudge"
        assert runtime.judge.endpoint is settings.judge
        assert type(runtime.batcher.embedder).__name__ == "EchoEmbedder"
    finally:
        runtime.close()


def test_an_unknown_provider_is_refused_naming_the_registered_ones(echo: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.load(env={"EVALDSL_JUDGE": "magic"})
    assert str(caught.value) == ("judge: provider must be `openai` or `local` or `echo`, not "
                                 "`magic`")
    with pytest.raises(ConfigError, match="provider must be"):
        registry.provider("magic")


def test_the_registry_imports_a_provider_only_when_it_is_used() -> None:
    """Reading the names imports no client: a spec without model checks never loads one."""
    import subprocess

    probe = ("import sys; from evaldsl.model.providers import provider_names; "
             "provider_names(); print('evaldsl.model.openai.judge' in sys.modules, "
             "'openai' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.split() == ["False", "False"], done.stderr
