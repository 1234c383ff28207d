"""What a run's worker processes find in their environment, through a sink rendered there."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from evaldsl.record import CaseRecord


@dataclass(frozen=True)
class EnvProbe:
    """Renders, for each case, the names of the variables in `names` the worker holds."""

    names: tuple[str, ...]

    def render(self, record: CaseRecord) -> list[str]:
        return sorted(name for name in self.names if name in os.environ)

    @staticmethod
    def join(rendered: list[Any]) -> list[Any]:
        return rendered


class EnvSink:
    """A `PartSink` that collects what its `EnvProbe` saw in every worker."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.probe = EnvProbe(names)
        self.seen: set[str] = set()
        self.rendered = 0

    def add(self, record: CaseRecord) -> None:
        """Journaled cases (a resumed run) are not rendered: nothing to do."""

    def renderer(self) -> EnvProbe:
        return self.probe

    def add_rendered(self, part: Any) -> None:
        for names in part:
            self.rendered += 1
            self.seen.update(names)
