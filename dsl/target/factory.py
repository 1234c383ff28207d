"""A target of the configured kind, importing only that kind's client."""

from __future__ import annotations

from evaldsl.target.base import Target
from evaldsl.target.config import TargetConfig


def make_target(config: TargetConfig) -> Target:
    """The target `config` describes (its kind was checked when it was read)."""
    if config.kind == "http":
        from evaldsl.target.http_target import HttpTarget

        return HttpTarget(config)
    if config.kind == "openai":
        from evaldsl.target.openai_target import OpenAITarget

        return OpenAITarget(config)
    from evaldsl.target.python_target import PythonTarget

    return PythonTarget(config)
