"""The monitor: one session in, its verdict journaled, windows folded, alerts fired once.

`Monitor.ingest` is the whole life of a session: a row becomes a case (a
bad row is named by file and line and skipped), a case already in the
journal is counted as a duplicate and not judged again, the verdict is
journaled, then folded into its windows, then every alert that newly holds
is journaled and handed to the sinks. Building a monitor replays its
journal, so a restarted watch has the same sessions, windows and fired
alerts as the one that stopped.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evaldsl.api import Spec
from evaldsl.cases.case import Case
from evaldsl.cases.loading import BadRow, RawRow
from evaldsl.cases.rows import CaseSchema
from evaldsl.i18n import _
from evaldsl.results import CaseResult
from evaldsl.values import ErrorValue
from evaldsl.watch.alerts import AlertPlans, WindowAlert, alert_plans
from evaldsl.watch.journal import VERSION, ForeignJournalError, WatchJournal
from evaldsl.watch.review import Flagged, NoReview, ReviewFeed
from evaldsl.watch.sinks import Dispatcher, Sink
from evaldsl.watch.windows import Windows, window_start

DEFAULT_WINDOW_S = 3600
"""The window of the reports when no alert declares one."""


class Monitor:
    """A spec watching sessions; the journal in `state` makes it survive restarts."""

    def __init__(self, spec: Spec, state: Path, sinks: Sequence[Sink] = (),
                 review: ReviewFeed | None = None) -> None:
        self.spec = spec
        self.plans: AlertPlans = alert_plans(spec.graph)
        self.windows = Windows(spec, self.plans.durations or (DEFAULT_WINDOW_S,))
        self.review = review or NoReview()
        self._schema = CaseSchema.of(spec)
        self.journal = WatchJournal(state)
        self.dispatcher = Dispatcher(sinks, self.journal.sync)
        self.processed: set[str] = set()
        self._judging: set[str] = set()
        """Ids being judged now: a second copy posted meanwhile is a duplicate too."""
        self.fired: set[str] = set()
        self.duplicates = 0
        self.alert_errors: dict[str, int] = {}
        """Sessions whose per-case alert condition was an error, by alert: never fired,
        never silent. Counted since this process started."""
        self.bad_rows = 0
        self.bad_examples: deque[str] = deque(maxlen=20)
        self._replay()

    def _replay(self) -> None:
        entries = self.journal.replay()
        header = next(entries, None)
        if header is None:
            self.journal.append({"kind": "header", "version": VERSION,
                                 "spec_hash": self.spec.hash})
            return
        if header.get("kind") != "header" or header.get("spec_hash") != self.spec.hash:
            raise ForeignJournalError(self.journal.path)
        for entry in entries:
            if entry.get("kind") == "session":
                self.processed.add(entry["id"])
                self.windows.add(CaseResult.from_dict(entry["record"]), entry["record"],
                                 entry["at"])
            elif entry.get("kind") == "alert":
                self.fired.add(entry["key"])

    async def ingest(self, raw: RawRow, at: float) -> list[dict[str, Any]]:
        """Judge one row that arrived at `at` (epoch seconds); the alerts it fired."""
        item = raw.item(self._schema)
        if item is None:
            return []
        if isinstance(item, BadRow):
            self._bad(item)
            return []
        if item.id in self.processed or item.id in self._judging:
            self.duplicates += 1
            return []
        self._judging.add(item.id)
        try:
            result = await self.spec.evaluate_async(item)
        finally:
            self._judging.discard(item.id)
        record = result.to_dict(trace=False)
        self.journal.append({"kind": "session", "id": item.id, "at": at,
                             "origin": raw.origin, "record": record})
        self.processed.add(item.id)
        self.windows.add(result, record, at)
        fired = [*self._case_alerts(item, result, at), *self._window_alerts(result, at)]
        for alert in fired:
            self._fire(alert)
        self._flag(item, result, record, fired)
        return fired

    def _bad(self, bad: BadRow) -> None:
        self.bad_rows += 1
        self.bad_examples.append(str(bad))
        print(_("skipped a bad session: {row}").format(row=bad), file=sys.stderr)

    def _case_alerts(self, case: Case, result: CaseResult, at: float) -> list[dict[str, Any]]:
        out = []
        for alert in self.plans.per_case:
            key = f"{alert.name}\t{case.id}"
            held = result.alerts.get(alert.name)
            if isinstance(held, ErrorValue):
                self.alert_errors[alert.name] = self.alert_errors.get(alert.name, 0) + 1
            elif held is True and key not in self.fired:
                out.append({"key": key, "alert": alert.name, "message": alert.message,
                            "case_id": case.id, "at": at})
        return out

    def _window_alerts(self, result: CaseResult, at: float) -> list[dict[str, Any]]:
        out = []
        for alert in self.plans.windowed:
            if result.metrics.get(alert.metric) is None:
                continue  # outside the metric's `where`: the window did not change for it
            found = self._window_alert(alert, result, at)
            if found is not None:
                out.append(found)
        return out

    def _window_alert(self, alert: WindowAlert, result: CaseResult,
                      at: float) -> dict[str, Any] | None:
        start = window_start(at, alert.seconds)
        group = result.groups.get(alert.metric)
        key = f"{alert.name}\t{start}\t{list(group) if group is not None else ''}"
        if key in self.fired:
            return None
        value, denominator = self.windows.metric(alert.seconds, start, alert.metric, group)
        if not alert.holds(value, denominator):
            return None
        return {"key": key, "alert": alert.name, "message": alert.message,
                "metric": alert.metric, "value": value, "denominator": denominator,
                "condition": f"{alert.op} {alert.limit:g}", "min": alert.min_cases,
                "window": {"start": start, "end": start + alert.seconds},
                "group": list(group) if group is not None else None, "at": at}

    def _fire(self, alert: dict[str, Any]) -> None:
        """Journal the alert first: once written it never fires again, whatever happens; the
        dispatcher puts it on the disk before a sink sees it."""
        self.journal.append({"kind": "alert", **alert})
        self.fired.add(alert["key"])
        self.dispatcher.submit(alert)

    def _flag(self, case: Case, result: CaseResult, record: dict[str, Any],
              fired: list[dict[str, Any]]) -> None:
        reasons = tuple(f"alert:{a['alert']}" for a in fired if "case_id" in a)
        if result.review is not None and result.review.sampled:
            reasons = ("review", *reasons)
        if reasons:
            self.review.submit(Flagged(case.id, reasons, record, case))

    def report(self) -> dict[str, Any]:
        """The monitor's figures and report.json of every window held (`GET /report`)."""
        return {"sessions": len(self.processed), "duplicates": self.duplicates,
                "bad_rows": self.bad_rows, "bad_examples": list(self.bad_examples),
                "alerts_fired": len(self.fired), "alert_errors": dict(self.alert_errors),
                "windows": [{"seconds": seconds, "start": start, "end": start + seconds,
                             "report": state.report_dict()}
                            for seconds, start, state in self.windows.current()]}

    def close(self) -> None:
        """Deliver the alerts still queued, then let go of the journal."""
        self.dispatcher.close()
        self.journal.close()
