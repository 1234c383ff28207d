"""Faults planted in a run's worker processes, through a sink whose rendering runs there."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from typing import Any

from evaldsl.errors import CaseDataError
from evaldsl.record import CaseRecord


@dataclass(frozen=True)
class Fault:
    """Renders nothing, and at case `at` fails the way `how` says."""

    at: str
    how: str
    """`raise` (a ValueError), `unpicklable` (an exception that cannot be rebuilt
    elsewhere), `exit` (the process exits with code 7) or `kill` (SIGKILL)."""

    def render(self, record: CaseRecord) -> None:
        if record.id != self.at:
            return
        if self.how == "raise":
            raise ValueError(f"a planted fault at {self.at}")
        if self.how == "unpicklable":
            raise CaseDataError("planted.jsonl", 3, "a planted fault")
        if self.how == "exit":
            os._exit(7)
        os.kill(os.getpid(), signal.SIGKILL)

    @staticmethod
    def join(rendered: list[Any]) -> None:
        return None


class FaultySink:
    """A `PartSink` whose workers' rendering is a `Fault`."""

    def __init__(self, fault: Fault) -> None:
        self.fault = fault

    def add(self, record: CaseRecord) -> None:
        """Journaled cases (a resumed run) are not rendered: nothing to do."""

    def renderer(self) -> Fault:
        return self.fault

    def add_rendered(self, part: Any) -> None:
        """Nothing was rendered."""
