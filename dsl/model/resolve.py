"""The model settings a run asks for: a caller's choices over the settings files.

    settings = resolve_settings(config, judge="http://127.0.0.1:8000/v1", no_cache=True)
    settings = resolve_settings(judge="local", judge_model="/models/vetted.gguf",
                                judge_sha256="ab12...", announce=print)

What `evaldsl run --judge ... --judge-model ... --no-cache` does, for every engine: the
choices win over `evaldsl.toml` and the environment (`Settings.load`); a judge named by a URL
is an OpenAI-compatible server and gets the placeholder key when no key is set (a local
server wants none, the `openai` client refuses to start without one); the local judge needs
the `local` extra, and its model file is checked against its pin before any case, a vetted
file announced with its sha256 (docs/local_models.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from evaldsl.i18n import _
from evaldsl.model.settings import Endpoint, Settings


def resolve_settings(config: Path | None = None, *, judge: str | None = None,
                     judge_model: str | None = None, judge_sha256: str | None = None,
                     judge_key_env: str | None = None, no_cache: bool = False,
                     cache_dir: str | Path | None = None, deadline: float | None = None,
                     announce: Callable[[str], None] | None = None) -> Settings:
    """The settings of a run: `judge` is `local` or a URL, `deadline` a `time.time()`
    value after which nothing is asked; `announce` receives the vetted model file's line."""
    overrides: dict[str, Any] = {"judge_model": judge_model,
                                 "judge_api_key_env": judge_key_env,
                                 "judge_sha256": judge_sha256}
    if judge == "local":
        overrides["judge_provider"] = "local"
    elif judge:
        overrides.update(judge_provider="openai", judge_base_url=judge)
    if no_cache:
        overrides["cache_enabled"] = False
    if cache_dir is not None:
        overrides["cache_dir"] = str(cache_dir)
    settings = replace(Settings.load(config, **overrides), deadline=deadline)
    if judge not in (None, "local"):
        settings = keyless(settings)
    if settings.judge.provider == "local":
        from evaldsl.model.local.judge import LocalJudgeServer, require_local_extra

        require_local_extra(weights=settings.judge.model == LocalJudgeServer.model)
        vet_local_model(settings.judge, announce)
    return settings


def vet_local_model(judge: Endpoint, announce: Callable[[str], None] | None = None) -> None:
    """The local judge's model file checked against its pin, and a file of the user's own
    announced with its sha256 (docs/local_models.md)."""
    from evaldsl.model.local.judge import LocalJudgeServer
    from evaldsl.model.local.weights import check_bundled_pin, vetted_weights

    if judge.model == LocalJudgeServer.model:
        check_bundled_pin(judge.sha256)
        return
    path, digest = vetted_weights(judge.model, judge.sha256)
    if announce is not None:
        announce(_("local judge: `{path}`, sha256 {digest}").format(path=path, digest=digest))


def keyless(settings: Settings) -> Settings:
    """`settings` with the placeholder judge key when no key is set: a local
    OpenAI-compatible server wants none, but the `openai` client refuses to start without
    one (a server that does want one answers 401, which stops the run with the reason)."""
    from evaldsl.model.keys import PLACEHOLDER_KEY

    if settings.judge.api_key:
        return settings
    return replace(settings, judge=replace(settings.judge, api_key=PLACEHOLDER_KEY))
