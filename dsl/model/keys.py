"""Which key each endpoint gets, so that a project's `evaldsl.toml` cannot send one elsewhere.

A settings file found in the working directory (or given with `--config`) comes with the
project, and a project may come from anyone: it must not be able to read an arbitrary
variable (`api_key_env = "GITHUB_PAT"`) or send the user's OpenAI key to a host of its
choosing. So:

- a variable holds a key only if its name ends in `_API_KEY` or `_TOKEN`, wherever it is
  named; any other name is a settings error;
- the default key variables (`EVALDSL_JUDGE_API_KEY` or `EVALDSL_EMBED_API_KEY`, then
  `OPENAI_API_KEY`) belong to their *home host*: the host the user's own settings name for
  the endpoint (the environment's `EVALDSL_JUDGE_BASE_URL` / `EVALDSL_EMBED_BASE_URL`, the
  user-level config's `base_url`, `OPENAI_BASE_URL`), else api.openai.com. Pointed at any
  other host, the endpoint gets none of them unless the command line names one
  (`--judge-key-env OPENAI_API_KEY`); a project file that names one for another host is a
  settings error;
- any other variable named by the user (the user-level config, the environment, the
  command line) goes to the host that is configured; one named in a project's file goes only
  to the endpoint's home host, to the user's own machine (loopback), or to a host the user
  allows for that variable: `[key_hosts]` of the user-level config
  (`GITHUB_TOKEN = ["api.github.com"]`), `EVALDSL_KEY_HOSTS` (`NAME=HOST,NAME=HOST:PORT`) or
  `--key-host NAME=HOST` where a verb has it (`check_key_host`). A project's file cannot
  hold `[key_hosts]`: it would allow itself.

An endpoint left without a key is given `PLACEHOLDER_KEY`, never None, when it points away
from home: with None the `openai` client would read `OPENAI_API_KEY` by itself.

The same rule says which variables are keys when evaldsl starts a process of its own: a
child is started without any (`without_keys`, `keys_withheld`); one that judges is handed
its key in its settings, never through the environment.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from evaldsl.errors import ConfigError
from evaldsl.i18n import _

KEY_SUFFIXES = ("_API_KEY", "_TOKEN")
DEFAULT_BASE_URL = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"
"""The key sent where no key may go: a local OpenAI-compatible server ignores it, one that
wants a key answers 401, which stops the run with the reason. Not a secret: never redacted."""
ENVIRONMENT = "environment"
COMMAND_LINE = "command line"


@dataclass(frozen=True)
class Layer:
    """One source of settings, flattened (`judge_model`, `embed_api_key_env`, ...)."""

    kind: str
    """`user` (the user-level config), `project` (evaldsl.toml), `environment` or
    `command line`."""
    where: str
    """How messages name the source: a file's path, or the layer's kind."""
    flat: Mapping[str, Any]


def default_variables(prefix: str) -> tuple[str, ...]:
    """The variables an endpoint reads its key from when none is named, in order."""
    own = "EVALDSL_JUDGE_API_KEY" if prefix == "judge_" else "EVALDSL_EMBED_API_KEY"
    return own, "OPENAI_API_KEY"


def resolve_key(prefix: str, layers: Sequence[Layer], env: Mapping[str, str]) -> str | None:
    """The key for the endpoint whose flat names start with `prefix`; see the module."""
    given = _last(layers, prefix + "api_key")
    if given is not None:
        return str(given[1].flat[prefix + "api_key"])
    host, home = _host(prefix, layers, env, home=False), _host(prefix, layers, env, home=True)
    named = _last(layers, prefix + "api_key_env")
    if named is None:
        if host != home:
            return PLACEHOLDER_KEY
        return _default_key(prefix, env) or (PLACEHOLDER_KEY if _pointed(prefix, layers, env)
                                             else None)
    name, layer = named
    if name in default_variables(prefix) and host != home and layer.kind != COMMAND_LINE:
        raise ConfigError(_redirected(prefix, name, layer, home, host))
    if layer.kind == PROJECT and host != home and not allowed(
            name, host, key_hosts(_user_table(layers), env)):
        raise ConfigError(_("{where}: `{name}` is named in the project's settings file and is "
                            "not sent to {host}: a key goes only to a host your own settings "
                            "or the command line allow; allow it with `--judge-key-env "
                            "{name}`, `EVALDSL_KEY_HOSTS={name}={shown}`, or `{name} = "
                            "[\"{shown}\"]` under [key_hosts] in your user-level config").format(
            where=origin(layer, prefix), name=name, host=host, shown=_shown(host)))
    return env.get(name) or PLACEHOLDER_KEY


PROJECT = "project"
KEY_HOSTS = "key_hosts"
"""The user-level config's table of hosts each key variable may go to."""
KEY_HOSTS_ENV = "EVALDSL_KEY_HOSTS"


def _user_table(layers: Sequence[Layer]) -> Any:
    return next((layer.flat.get(KEY_HOSTS) for layer in layers if layer.kind == "user"), None)


def key_hosts(user_table: Any, env: Mapping[str, str],
              command_line: Sequence[str] = ()) -> dict[str, set[str]]:
    """The hosts the user allows each key variable to go to: the user-level config's
    `[key_hosts]`, `EVALDSL_KEY_HOSTS` and `--key-host`, each `NAME=HOST` or
    `NAME=HOST:PORT`; a `ConfigError` for one that is not."""
    found: dict[str, set[str]] = {}
    if user_table is not None:
        if not isinstance(user_table, Mapping) or not all(
                isinstance(v, list) and all(isinstance(h, str) for h in v)
                for v in user_table.values()):
            raise ConfigError(_("[{table}] of the user-level config maps a key variable to a "
                                "list of hosts: `GITHUB_TOKEN = [\"api.github.com\"]`").format(
                table=KEY_HOSTS))
        for name, hosts in user_table.items():
            found.setdefault(str(name), set()).update(h.strip().lower() for h in hosts)
    given = [item for item in env.get(KEY_HOSTS_ENV, "").split(",") if item.strip()]
    for item in [*given, *command_line]:
        name, sep, host = item.strip().partition("=")
        if not sep or not name or not host.strip():
            raise ConfigError(_("`{item}`: a key's host is given as NAME=HOST or "
                                "NAME=HOST:PORT").format(item=item.strip()))
        found.setdefault(name.strip(), set()).add(host.strip().lower())
    return found


def allowed(name: str, host: str, hosts: Mapping[str, set[str]]) -> bool:
    """Whether the key in `name` may go to `host` (`host:port`): the user's own machine, or
    a host the user allows for that variable, with any port or the one given.

    >>> allowed("A_TOKEN", "api.example:443", {"A_TOKEN": {"api.example"}})
    True
    >>> allowed("A_TOKEN", "api.example:8443", {"A_TOKEN": {"api.example:443"}})
    False
    >>> allowed("B_TOKEN", "127.0.0.1:9000", {}), allowed("B_TOKEN", "::1:80", {})
    (True, True)
    """
    hostname = host.rpartition(":")[0]
    if hostname == "localhost" or hostname == "::1" or hostname.startswith("127."):
        return True
    mine = hosts.get(name, set())
    return host in mine or hostname in mine


def check_key_host(where: str, name: str, url: str, hosts: Mapping[str, set[str]]) -> None:
    """A `ConfigError` when a key a project's file names for `url` may not go there."""
    host = host_of(url)
    if not allowed(name, host, hosts):
        raise ConfigError(_("{where}: `{name}` is named in the project's settings file and is "
                            "not sent to {host}: a key goes only to a host your own settings "
                            "or the command line allow; allow it with `--key-host "
                            "{name}={shown}`, `EVALDSL_KEY_HOSTS={name}={shown}`, or `{name} = "
                            "[\"{shown}\"]` under [key_hosts] in your user-level config").format(
            where=where, name=name, host=host, shown=_shown(host)))


def refuse_key_hosts(path: str, table: Mapping[str, Any]) -> None:
    """A project's file that holds `[key_hosts]` is refused: it would allow itself."""
    if KEY_HOSTS in table:
        raise ConfigError(_("{path}: [{table}] belongs to your own settings (the user-level "
                            "config, EVALDSL_KEY_HOSTS or --key-host), not to a project's "
                            "file").format(path=path, table=KEY_HOSTS))


def check_names(layers: Sequence[Layer]) -> None:
    """A `ConfigError` for the first `api_key_env` whose name cannot hold a key."""
    for layer in layers:
        for prefix in ("judge_", "embed_"):
            name = layer.flat.get(prefix + "api_key_env")
            if name is not None and not str(name).endswith(KEY_SUFFIXES):
                raise ConfigError(
                    _("{origin}: api_key_env `{name}` is refused: a key variable's name must "
                      "end in `_API_KEY` or `_TOKEN`").format(
                        origin=origin(layer, prefix), name=name))


def origin(layer: Layer, prefix: str) -> str:
    """Where a key setting was given: `FILE [judge]`, the variable, or the flag."""
    if layer.kind == ENVIRONMENT:
        return "EVALDSL_JUDGE_API_KEY_ENV" if prefix == "judge_" else "EVALDSL_EMBED_API_KEY_ENV"
    if layer.kind == COMMAND_LINE:
        return "--judge-key-env" if prefix == "judge_" else "embed_api_key_env"
    return "{where} [{table}]".format(where=layer.where,
                                      table="judge" if prefix == "judge_" else "embedder")


def _last(layers: Sequence[Layer], key: str) -> tuple[str, Layer] | None:
    """The value of `key` in the last layer that sets it, with that layer."""
    for layer in reversed(layers):
        value = layer.flat.get(key)
        if value is not None and value != "":
            return str(value), layer
    return None


def _host(prefix: str, layers: Sequence[Layer], env: Mapping[str, str], home: bool) -> str:
    """`host:port` the endpoint is pointed at, or (`home`) the one the user's own settings
    point it at."""
    trusted = [layer for layer in layers if layer.kind in ("user", ENVIRONMENT)]
    found = _last(trusted if home else layers, prefix + "base_url")
    url = found[0] if found else env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    return host_of(url)


def _pointed(prefix: str, layers: Sequence[Layer], env: Mapping[str, str]) -> bool:
    """Whether a server was named for the endpoint (`base_url` in any layer, or
    `OPENAI_BASE_URL`): one without a key is a keyless local server, asked as `--judge URL`
    asks it, not a judge nobody configured."""
    return _last(layers, prefix + "base_url") is not None or bool(env.get("OPENAI_BASE_URL"))


def host_of(url: str) -> str:
    """A URL's host and port (the scheme's default when none is written), lower case.

    >>> host_of("https://API.openai.com/v1") == host_of("https://api.openai.com:443/x")
    True
    """
    try:
        parts = urlsplit(url)
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme, 0)
    except ValueError:
        return url
    return f"{(parts.hostname or '').lower()}:{port}"


def _default_key(prefix: str, env: Mapping[str, str]) -> str | None:
    return next((env[name] for name in default_variables(prefix) if env.get(name)), None)


def _shown(host: str) -> str:
    """A host as messages show it: without the scheme's default port."""
    name, _sep, port = host.rpartition(":")
    return name if port in ("80", "443", "0") else host


def _redirected(prefix: str, name: str, layer: Layer, home: str, host: str) -> str:
    return _(
        "{origin}: `{name}` holds the key for {home} and is not sent to {host}: name a "
        "variable of its own in `api_key_env`, or pass `--judge-key-env {name}` to send it "
        "anyway"
    ).format(origin=origin(layer, prefix), name=name, home=_shown(home), host=_shown(host))


def is_key_variable(name: str) -> bool:
    """Whether a variable's name says it holds a key (the rule `api_key_env` obeys).

    >>> is_key_variable("OPENAI_API_KEY"), is_key_variable("gh_token"), is_key_variable("HOME")
    (True, True, False)
    """
    return name.upper().endswith(KEY_SUFFIXES)


def without_keys(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` without its key variables: the environment of a child that needs none."""
    return {name: value for name, value in environ.items() if not is_key_variable(name)}


_WITHHOLDING = threading.Lock()


@contextmanager
def keys_withheld() -> Iterator[None]:
    """`os.environ` without its key variables for the duration, then as it was.

    `multiprocessing` starts a process with a copy of the parent's environment of the
    moment and takes no other, so the key variables are taken out while workers start.
    A thread of this process that read a key variable meanwhile would find none: settings
    are read, and keys resolved, before any worker starts.
    """
    with _WITHHOLDING:
        held = {name: value for name, value in os.environ.items() if is_key_variable(name)}
        for name in held:
            del os.environ[name]
        try:
            yield
        finally:
            os.environ.update(held)
