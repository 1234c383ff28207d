"""The report's `target` section: how the agent under test answered, folded per case.

Every case record of a driven run carries a `target` note (`evaldsl.target.driver`): the
latency of each reply, and why the agent failed if it did. Notes are journaled with the
case, so a resumed run folds the same ones and its section equals an uninterrupted run's
(the latencies themselves are measurements: two runs differ there, as in `run`). The
percentiles are nearest-rank over every reply, exact: the latencies are kept, one number
per reply.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

PERCENTILES = (50, 90, 99)


class TargetTally:
    """A `Sink` of the runner: folds each record's `target` note."""

    def __init__(self, name: str, kind: str) -> None:
        self.name = name
        self.kind = kind
        self.conversations = 0
        self.errors = 0
        self.latencies: list[float] = []

    def add(self, record: Mapping[str, Any]) -> None:
        note = record.get("target")
        if not isinstance(note, Mapping):
            return
        self.conversations += 1
        self.errors += note.get("error") is not None
        self.latencies.extend(float(v) for v in note.get("latency_ms") or ()
                              if isinstance(v, (int, float)))

    def to_dict(self) -> dict[str, Any]:
        ordered = sorted(self.latencies)
        return {"name": self.name, "kind": self.kind, "conversations": self.conversations,
                "errors": self.errors, "replies": len(ordered),
                "latency_ms": {f"p{p}": percentile(ordered, p) for p in PERCENTILES}}


def percentile(ordered: Sequence[float], p: float) -> float | None:
    """The nearest-rank `p`th percentile of sorted values; None of none.

    >>> percentile([10.0, 20.0, 30.0, 40.0], 50), percentile([10.0, 20.0, 30.0, 40.0], 99)
    (20.0, 40.0)
    """
    if not ordered:
        return None
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]
