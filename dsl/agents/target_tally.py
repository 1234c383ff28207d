"""The report's `target` section: how the agent under test answered, folded per case.

A run with simulated users adds `simulator`: how many conversations a simulator played and
how many it failed, by kind (`evaldsl.report.simulator_failures.FAILURE_KINDS`). Those are error
cases of the run, never counted in the agent's `errors`.

Every case record of a driven run carries a `target` note (`evaldsl.agents.driver`): the
latency of each reply, and why the agent failed if it did. Notes are journaled with the
case, so a resumed run folds the same ones and its section equals an uninterrupted run's
(the latencies themselves are measurements: two runs differ there, as in `run`). The
percentiles are nearest-rank over every reply, exact: the latencies are kept, one number
per reply.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from evaldsl.record import CaseRecord
from evaldsl.report.document import FailureKinds, Latencies, Simulator, Target
from evaldsl.report.simulator_failures import FAILURE_KINDS

PERCENTILES = (50, 90, 99)


class TargetTally:
    """A `Sink` of the runner: folds each record's `target` note."""

    def __init__(self, name: str, kind: str) -> None:
        self.name = name
        self.kind = kind
        self.conversations = 0
        self.errors = 0
        self.latencies: list[float] = []
        self.simulated = 0
        """Conversations a simulated user played (their note has a `simulator` key)."""
        self.simulator_failures = dict.fromkeys(FAILURE_KINDS, 0)

    def add(self, record: CaseRecord) -> None:
        """A case's record: its driven note (`target`) counted when it has one."""
        self.add_note(record.target)

    def add_note(self, note: object) -> None:
        """A driven scenario's note (latencies, the agent's failure); anything else is no
        conversation."""
        if not isinstance(note, Mapping):
            return
        self.conversations += 1
        self.errors += note.get("error") is not None
        self.latencies.extend(float(v) for v in note.get("latency_ms") or ()
                              if isinstance(v, (int, float)))
        if "simulator" in note:
            self.simulated += 1
            failed = note["simulator"]
            if isinstance(failed, Mapping) and failed.get("failure") in self.simulator_failures:
                self.simulator_failures[failed["failure"]] += 1

    def summary(self) -> Target:
        """The report's `target` section."""
        ordered = sorted(self.latencies)
        p50, p90, p99 = (percentile(ordered, p) for p in PERCENTILES)
        out = Target(name=self.name, kind=self.kind,  # type: ignore[arg-type]
                     conversations=self.conversations, errors=self.errors,
                     replies=len(ordered), latency_ms=Latencies(p50=p50, p90=p90, p99=p99))
        if self.simulated:
            out.simulator = self.simulator_section()
        return out

    def simulator_section(self) -> Simulator:
        """The simulated user's own failures, apart from the agent's `errors`: over the
        conversations it played, by kind."""
        failures = sum(self.simulator_failures.values())
        return Simulator(conversations=self.simulated, failures=failures,
                         rate=failures / self.simulated,
                         by_kind=FailureKinds(**self.simulator_failures))


def percentile(ordered: Sequence[float], p: float) -> float | None:
    """The nearest-rank `p`th percentile of sorted values; None of none.

    >>> percentile([10.0, 20.0, 30.0, 40.0], 50), percentile([10.0, 20.0, 30.0, 40.0], 99)
    (20.0, 40.0)
    """
    if not ordered:
        return None
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]
