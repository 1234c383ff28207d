"""Tumbling windows of arrival time, each holding the mergeable state of its sessions.

A window of `seconds` starting at `start` (a multiple of `seconds` since the
epoch) holds a `ShardState`: the same state a run's shard has, so a window's
report is report.json of its sessions and a group's metric value and
denominator are read off it exactly as a run's are. Only the newest `keep`
windows of each length are kept in memory; older ones are already in the
journal.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaldsl.api import Spec
from evaldsl.record import CaseRecord
from evaldsl.results import CaseResult
from evaldsl.run.shards import ShardState
from evaldsl.runtime.grouping import GroupKey


def window_start(at: float, seconds: int) -> int:
    """The start of the window of `seconds` holding the time `at`.

    >>> window_start(7200.5, 3600)
    7200
    """
    return int(at // seconds) * seconds


class Windows:
    """The windows of every length the spec's alerts use, by (seconds, start)."""

    def __init__(self, spec: Spec, durations: tuple[int, ...], keep: int = 3) -> None:
        self._spec = spec
        self.durations = durations
        self._keep = keep
        self._states: dict[tuple[int, int], ShardState] = {}
        self._judging: dict[tuple[int, int], dict[str, int]] = {}
        """Per window, how many sessions each judging decision (`evaldsl.watch.judge_sample`)
        had, for a spec with model checks."""

    def add(self, result: CaseResult, record: CaseRecord, at: float,
            decision: str | None = None) -> None:
        """Fold one session into the window of each length that holds `at`; `decision` is
        whether its model checks ran (None for a spec without any)."""
        for seconds in self.durations:
            start = window_start(at, seconds)
            self.state(seconds, start).add(result, record)
            if decision is not None:
                counts = self._judging.setdefault((seconds, start), {})
                counts[decision] = counts.get(decision, 0) + 1

    def judging(self, seconds: int, start: int) -> dict[str, int]:
        """A window's sessions by judging decision (empty for a spec without model checks)."""
        return dict(self._judging.get((seconds, start), {}))

    def state(self, seconds: int, start: int) -> ShardState:
        key = (seconds, start)
        found = self._states.get(key)
        if found is None:
            found = self._states[key] = ShardState.empty(self._spec, self._spec.layout)
            self._evict(seconds)
        return found

    def _evict(self, seconds: int) -> None:
        starts = sorted(s for d, s in self._states if d == seconds)
        for start in starts[:-self._keep]:
            del self._states[(seconds, start)]
            self._judging.pop((seconds, start), None)

    def metric(self, seconds: int, start: int, name: str,
               group: GroupKey | None) -> tuple[float | None, int]:
        """A metric's value and denominator in one window, for one group when grouped."""
        report = self.state(seconds, start).report
        grouped = report.groups.get(name)
        state = grouped.state(group or (None,) * len(grouped.plan.by)) if grouped else \
            report.states[name]
        return state.plan.combine(state.aggregate_values()), state.denominator

    def current(self) -> Iterator[tuple[int, int, ShardState]]:
        """(seconds, start, state) of every window held, newest first per length."""
        for (seconds, start), state in sorted(self._states.items(),
                                              key=lambda kv: (kv[0][0], -kv[0][1])):
            yield seconds, start, state
