"""A target of the configured kind, importing only that kind's client."""

from __future__ import annotations

from evaldsl.agents.base import Target
from evaldsl.agents.config import TargetConfig


def make_target(config: TargetConfig) -> Target:
    """The target `config` describes (its kind was checked when it was read)."""
    if config.kind == "http":
        from evaldsl.agents.http_target import HttpTarget

        return HttpTarget(config)
    if config.kind == "openai":
        from evaldsl.agents.openai_target import OpenAITarget

        return OpenAITarget(config)
    from evaldsl.agents.python_target import PythonTarget

    return PythonTarget(config)
