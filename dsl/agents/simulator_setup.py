"""Which model plays the simulated users: `--simulator MODEL`, else `simulator` in the
settings file.

    simulator = "local"            # the local model, started by evaldsl (no key)
    [simulator]                    # or: a model of the judge's endpoint
    model = "gpt-4o-mini"
    temperature = 0.7

A model name other than `local` is asked through the judge's endpoint (`[judge]`, the
`EVALDSL_JUDGE_*` variables): the same server, key rule, timeouts and retries, with this
model. So the simulator needs no secret of its own, and a project's file cannot send one
anywhere the judge's could not go. Answers are cached in the judges' answer cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaldsl.agents.simulator import DEFAULT_TEMPERATURE, Simulator
from evaldsl.errors import ConfigError
from evaldsl.i18n import _
from evaldsl.model.cache import AnswerCache
from evaldsl.model.limits import Limiter, RetryPolicy
from evaldsl.model.settings import CONFIG_FILE, Settings, _read_toml

LOCAL = "local"


def configured(config: Path | None) -> dict[str, Any]:
    """The settings file's `simulator`, as a table (`{}` when it has none)."""
    path = config if config is not None else Path.cwd() / CONFIG_FILE
    if not path.is_file():
        return {}
    value = _read_toml(path).get("simulator")
    table = {"model": value} if isinstance(value, str) else value or {}
    if not isinstance(table, dict) or set(table) - {"model", "temperature"} or not isinstance(
            table.get("model", ""), str) or not isinstance(
            table.get("temperature", 0.0), (int, float)):
        raise ConfigError(_("{path}: `simulator` is a model name, or a table with `model` "
                            "and `temperature`").format(path=path))
    return table


def make_simulator(model: str | None, config: Path | None, seed: int,
                   cache: dict[str, Any] | None = None) -> Simulator | None:
    """The simulator the flags and the settings ask for, or None when neither names one.

    `cache` holds the judges' cache overrides (`cache_enabled`, `cache_dir`)."""
    table = configured(config)
    model = model or table.get("model")
    if not model:
        return None
    from evaldsl.model.factory import configured_judge, redactor_of

    overrides: dict[str, Any] = dict(cache or {})
    overrides["judge_provider" if model == LOCAL else "judge_model"] = model
    settings = Settings.load(config, **overrides)
    if settings.judge.provider == LOCAL:
        from evaldsl.model.local.judge import require_local_extra

        require_local_extra()
    judge, server = configured_judge(settings.judge)
    endpoint = settings.judge
    simulator = Simulator(
        judge, getattr(judge, "cache_identity", None),
        AnswerCache(settings.cache_dir) if settings.cache_enabled else None, seed,
        float(table.get("temperature", DEFAULT_TEMPERATURE)),
        Limiter(endpoint.concurrency, endpoint.requests_per_minute),
        RetryPolicy(endpoint.max_retries, endpoint.backoff), redactor_of(settings))
    if server is not None:
        simulator.closers.append(server)
    return simulator
