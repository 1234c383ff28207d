"""`[targets.NAME]` in `evaldsl.toml`: the agent under test, read and checked once.

    [targets.support]
    kind = "http"                    # or "openai", "python"
    url = "http://127.0.0.1:8000/chat"
    request = { message = "{message}", session = "{session}", history = "{history}" }
    reply_path = "reply"             # where the reply text is in the answer (dotted)
    tool_calls_path = "tool_calls"   # optional: the calls the agent made
    headers_env = { Authorization = "AGENT_TOKEN" }
    max_reply_bytes = 16777216       # optional: a longer answer fails the turn (16 MiB)
    redirect_hosts = ["login.example.com"]  # optional: other hosts a redirect may go to
    timeout = 30
    max_retries = 0
    concurrency = 8

The file is found as the model settings find theirs (`--config`, else `./evaldsl.toml`).
As for judges (`evaldsl.model.keys`), a secret is only ever read from the environment, from
a variable whose name ends in `_API_KEY` or `_TOKEN`: a project's file cannot make evaldsl
read `HOME` into a header or carry a key in the file itself.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaldsl.errors import ConfigError
from evaldsl.i18n import _
from evaldsl.model.keys import (
    DEFAULT_BASE_URL,
    check_key_host,
    is_key_variable,
    refuse_key_hosts,
)
from evaldsl.model.settings import CONFIG_FILE, _read_toml, user_key_hosts

KINDS = ("openai", "http", "python")
DEFAULT_MAX_STEPS = 8
"""Model calls an `openai` target may make for one user turn (tool call, result, ...)."""

_COMMON = {"kind": str, "timeout": float, "max_retries": int, "backoff": float,
           "concurrency": int, "circuit_breaker": int}
_BY_KIND: dict[str, dict[str, Any]] = {
    "openai": {"base_url": str, "model": str, "system": str, "tools": list,
               "api_key_env": str, "max_steps": int, "temperature": float},
    "http": {"url": str, "request": dict, "reply_path": str, "tool_calls_path": str,
             "headers_env": dict, "method": str, "max_reply_bytes": int,
             "redirect_hosts": list},
    "python": {"callable": str, "entry_point": str},
}


@dataclass(frozen=True)
class TargetConfig:
    """One target as configured; which fields matter depends on `kind`."""

    name: str
    kind: str
    options: Mapping[str, Any] = field(default_factory=dict, repr=False)
    """The kind's own settings, checked (`_BY_KIND`); secrets are not in it, only the names
    of the variables that hold them."""
    timeout: float = 60.0
    """Seconds one call to the agent may take (one turn, or one model step)."""
    max_retries: int = 0
    """Retries of a failed call. None by default: an agent keeps state, and a turn sent
    twice may be applied twice."""
    backoff: float = 0.5
    concurrency: int = 8
    """Conversations in flight."""
    circuit_breaker: int = 5
    """Identical transport failures in a row after which no turn is sent (0: never)."""

    def get(self, key: str, default: Any = None) -> Any:
        return self.options.get(key, default)


def load_target(name: str, config: str | Path | None = None,
                env: Mapping[str, str] | None = None,
                key_hosts: Sequence[str] = ()) -> TargetConfig:
    """The target `name` of the settings file (or the built-in `demo`); a `ConfigError`
    saying what is wrong. The file is a project's, so a key it names goes only to a host the
    user allows (`evaldsl.model.keys.check_key_host`; `key_hosts` are `--key-host`'s)."""
    from evaldsl.agents import demo

    path = Path(config) if config is not None else Path.cwd() / CONFIG_FILE
    targets = configured_targets(config)
    if demo.is_builtin(name, targets):
        return target_of(demo.DEMO, demo.TABLE, _("built-in"))
    if config is None and not path.is_file():
        raise ConfigError(_("no target `{name}`: there is no {file} here").format(
            name=name, file=CONFIG_FILE))
    table = targets.get(name)
    if not isinstance(table, dict):
        known = ", ".join(f"`{t}`" for t in targets) or _("none")
        raise ConfigError(_("{path}: no target `{name}` (targets: {known})").format(
            path=path, name=name, known=known))
    target = target_of(name, table, str(path))
    _check_key_hosts(target, f"{path} [targets.{name}]",
                     user_key_hosts(os.environ if env is None else env, key_hosts))
    return target


def _check_key_hosts(config: TargetConfig, where: str, hosts: Mapping[str, set[str]]) -> None:
    """Each key variable the project's file names goes only to a host the user allows."""
    if config.kind == "http":
        for variable in (config.get("headers_env") or {}).values():
            check_key_host(where, str(variable), str(config.get("url")), hosts)
    elif config.kind == "openai" and config.get("api_key_env"):
        base = config.get("base_url") or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        if base != "local":
            check_key_host(where, str(config.get("api_key_env")), str(base), hosts)


def configured_targets(config: str | Path | None) -> dict[str, Any]:
    """The `[targets]` tables of the settings file (none when there is no file)."""
    path = Path(config) if config is not None else Path.cwd() / CONFIG_FILE
    if config is None and not path.is_file():
        return {}
    table = _read_toml(path)
    refuse_key_hosts(str(path), table)
    targets = table.get("targets") or {}
    return targets if isinstance(targets, dict) else {}


def target_of(name: str, table: Mapping[str, Any], where: str = CONFIG_FILE) -> TargetConfig:
    """A `[targets.NAME]` table as a `TargetConfig`, every setting checked."""
    kind = table.get("kind")
    if kind not in KINDS:
        raise ConfigError(_("{where} [targets.{name}]: `kind` must be one of {kinds}, not "
                            "`{kind}`").format(where=where, name=name, kind=kind,
                                               kinds=", ".join(KINDS)))
    allowed = {**_COMMON, **_BY_KIND[kind]}
    for key, value in table.items():
        _check_setting(f"{where} [targets.{name}]", key, value, allowed)
    _check_secrets(f"{where} [targets.{name}]", table)
    common = {k: _COMMON[k](table[k]) for k in _COMMON if k in table and k != "kind"}
    options = {k: v for k, v in table.items() if k not in _COMMON}
    config = TargetConfig(name, str(kind), options, **common)
    _require(config, where)
    return config


def _check_setting(where: str, key: str, value: Any, allowed: Mapping[str, Any]) -> None:
    if key == "api_key" or key == "headers":
        raise ConfigError(_("{where}: `{key}`: secrets are read from the environment only; "
                            "name the variable with `api_key_env` or `headers_env`").format(
            where=where, key=key))
    if key not in allowed:
        raise ConfigError(_("{where}: unknown setting `{key}`").format(where=where, key=key))
    wanted = allowed[key]
    fine = isinstance(value, (int, float)) and not isinstance(value, bool) if wanted in (
        int, float) else isinstance(value, wanted)
    if not fine or (wanted in (int, float) and value < 0):
        raise ConfigError(_("{where}: `{key}` has the wrong type or is negative").format(
            where=where, key=key))


def _check_secrets(where: str, table: Mapping[str, Any]) -> None:
    """Every variable named for a secret is one whose name says it holds one."""
    names = list((table.get("headers_env") or {}).values())
    if "api_key_env" in table:
        names.append(table["api_key_env"])
    for variable in names:
        if not isinstance(variable, str) or not is_key_variable(variable):
            raise ConfigError(_("{where}: `{name}` is refused: a variable holding a secret "
                                "must be named `..._API_KEY` or `..._TOKEN`").format(
                where=where, name=variable))


_REQUIRED = {"openai": ("model",), "http": ("url", "reply_path"), "python": ()}


def _require(config: TargetConfig, where: str) -> None:
    for key in _REQUIRED[config.kind]:
        if key not in config.options:
            raise ConfigError(_("{where} [targets.{name}]: `{key}` is required for a `{kind}` "
                                "target").format(where=where, name=config.name, key=key,
                                                 kind=config.kind))
    if config.kind == "python" and ("callable" in config.options) == (
            "entry_point" in config.options):
        raise ConfigError(_("{where} [targets.{name}]: give one of `callable` "
                            "(`module:function`) or `entry_point`").format(
            where=where, name=config.name))
