"""The monitor: one session in, its verdict journaled, windows folded, alerts fired once.

`Monitor.ingest` is the whole life of a session: a row becomes a case (a
bad row is named by file and line and skipped), a case already in the
journal is counted as a duplicate and not judged again, the verdict is
journaled, then folded into its windows, then every alert that newly holds
is journaled and handed to the sinks. Building a monitor replays its
journal, so a restarted watch has the same sessions, windows and fired
alerts as the one that stopped.

`Monitor.ingest_chunks` takes a batch (one POST body, one read of a followed
file) chunk by chunk: each chunk is decoded and validated in a worker thread,
judged there too when the spec has no model checks (model checks are awaited
on the event loop), and only the bookkeeping runs on the loop, so a huge
batch never holds up another request. The batch's `Tally` counts its own rows
only, and names at most `MAX_BAD_NAMED` bad rows (on stderr and in the
answer): the rest are counted, so standard error stays bounded.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaldsl.api import Spec
from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.cases.loading import RawRow
from evaldsl.cases.rows import CaseSchema
from evaldsl.errors import ForeignJournalError
from evaldsl.i18n import _, ngettext
from evaldsl.record import CaseRecord
from evaldsl.results import CaseResult
from evaldsl.values import ErrorValue
from evaldsl.watch.alerts import AlertPlans, WindowAlert, alert_plans
from evaldsl.watch.judge_sample import JUDGED, NOT_SAMPLED, JudgeGate, JudgePolicy, ModelReach
from evaldsl.watch.review_feed import Flagged, NoReview, ReviewFeed
from evaldsl.watch.session_journal import VERSION, WatchJournal
from evaldsl.watch.sinks import Dispatcher, Sink
from evaldsl.watch.time_windows import Windows, window_start

DEFAULT_WINDOW_S = 3600
"""The window of the reports when no alert declares one."""

MAX_BAD_NAMED = 20
"""Bad rows one batch names on stderr and in its answer; the others are counted."""


@dataclass
class Tally:
    """What one batch of rows came to: its own rows only, whatever else arrives meanwhile."""

    judged: int = 0
    duplicates: int = 0
    bad: int = 0
    blank: int = 0
    bad_named: list[str] = field(default_factory=list)
    """The first `MAX_BAD_NAMED` bad rows, `file:line: reason`."""
    alerts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rows(self) -> int:
        return self.judged + self.duplicates + self.bad + self.blank


_BLANK = b" \t\r\n\x0b\x0c\x1c\x1d\x1e\x1f"
"""ASCII bytes that `str.strip` removes: a line of only these is blank."""
_SPACE = b" \t\r\n\x0b\x0c\xef\xbb\xbf"
"""Bytes a row may start with before its JSON text (a UTF-8 byte order mark included)."""

Prepared = tuple[Case | BadRow | None, CaseResult | None, str | None]
"""A row decoded (a case, a bad row, None for a blank line) and, when judged in the
worker thread, its result and the judging decision it was made under (None for a spec
without model checks)."""


class Monitor:
    """A spec watching sessions; the journal in `state` makes it survive restarts."""

    def __init__(self, spec: Spec, state: Path, sinks: Sequence[Sink] = (),
                 review: ReviewFeed | None = None, judging: JudgePolicy | None = None,
                 ) -> None:
        self.spec = spec
        self.gate = JudgeGate(judging or JudgePolicy())
        """Which sessions the model checks run on (`--judge-sample`, `--judge-budget`)."""
        self.reach = ModelReach.of(spec.graph)
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
        header = next(entries, (0, None))[1]
        if header is None:
            self.journal.append({"kind": "header", "version": VERSION,
                                 "spec_hash": self.spec.hash})
            return
        if header.get("kind") != "header" or header.get("spec_hash") != self.spec.hash:
            raise ForeignJournalError(self.journal.path)
        for number, entry in entries:
            try:
                self._replay_entry(entry)
            except KeyError as exc:
                raise self.journal.damaged(number, _("the field `{name}` is missing").format(
                    name=exc.args[0])) from None
            except (TypeError, ValueError, AttributeError, RecursionError) as exc:
                raise self.journal.damaged(number, str(exc) or type(exc).__name__) from None

    def _replay_entry(self, entry: dict[str, Any]) -> None:
        kind = entry.get("kind")
        if kind == "session":
            record, at, case_id = entry["record"], float(entry["at"]), entry["id"]
            if not isinstance(case_id, str) or not isinstance(record, dict):
                raise TypeError(_("a session line needs a text `id` and a `record` object"))
            line = CaseRecord.of(record)
            result = CaseResult.from_record(line)
            decision = entry.get("judging")
            if decision is not None and not isinstance(decision, str):
                raise TypeError(_("a session line's `judging` must be a text"))
            if self.spec.has_model_checks:
                decision = decision or JUDGED  # a line from before sampling existed
                self.gate.record(decision, at)
            self._fold(result, line, at, decision)
            self.processed.add(case_id)
        elif kind == "alert":
            key = entry["key"]
            if not isinstance(key, str):
                raise TypeError(_("an alert line needs a text `key`"))
            self.fired.add(key)

    async def ingest(self, raw: RawRow, at: float) -> list[dict[str, Any]]:
        """Judge one row that arrived at `at` (epoch seconds); the alerts it fired."""
        tally = Tally()
        await self._take(raw, self._decode(raw), None, at, tally)
        return tally.alerts

    async def ingest_chunks(self, chunks: Iterator[Sequence[RawRow]],
                            clock: Callable[[], float] = time.time) -> Tally:
        """Judge a batch given as chunks of rows, each decoded (and, for a spec without
        model checks, judged) in a worker thread; what this batch alone came to."""
        tally = Tally()
        while True:
            prepared = await asyncio.to_thread(self._prepare, chunks, tally.bad)
            if prepared is None:
                break
            rows, unnamed, blank = prepared
            self.bad_rows += unnamed
            tally.bad += unnamed
            tally.blank += blank
            for raw, (item, result, decision) in rows:
                await self._take(raw, item, result, clock(), tally, decision)
        unnamed = tally.bad - len(tally.bad_named)
        if unnamed:
            print(ngettext("... and {n} more bad session in this batch",
                           "... and {n} more bad sessions in this batch", unnamed)
                  .format(n=unnamed), file=sys.stderr, flush=True)
        return tally

    def _prepare(self, chunks: Iterator[Sequence[RawRow]], bad_before: int,
                 ) -> tuple[list[tuple[RawRow, Prepared]], int, int] | None:
        """The next chunk decoded, in a worker thread; None when there is none left.

        A case is judged here when no model check needs the event loop and its id is
        new. Once the batch has named `MAX_BAD_NAMED` bad rows, the rest are only
        counted (the second figure; the third counts blank lines): a line that cannot
        be a JSON object is not even parsed."""
        chunk = next(chunks, None)
        if chunk is None:
            return None
        here = not self.spec.has_model_checks
        sampling = not here and self.gate.policy.sample < 1.0
        out: list[tuple[RawRow, Prepared]] = []
        bad = unnamed = blank = 0
        for raw in chunk:
            full = bad_before + bad >= MAX_BAD_NAMED
            data = raw.data
            if isinstance(data, bytes):
                if not data.strip(_BLANK):
                    blank += 1
                    continue
                first = data.lstrip(_SPACE)[:1]
                if full and first != b"{" and first < b"\x80":  # no JSON object: bad
                    bad, unnamed = bad + 1, unnamed + 1
                    continue
            item = self._decode(raw)
            if isinstance(item, BadRow):
                bad += 1
                if full:
                    unnamed += 1
                    continue
            result, decision = None, None
            if isinstance(item, Case) and item.id not in self.processed:
                if here:
                    result = self.spec.evaluate(item)
                elif sampling and not self.gate.in_sample(item.id):
                    decision = NOT_SAMPLED  # no model call: judged here as well
                    result = self.spec.evaluate(item, pins=self.reach.pins(decision))
            out.append((raw, (item, result, decision)))
        return out, unnamed, blank

    def _decode(self, raw: RawRow) -> Case | BadRow | None:
        try:
            return raw.item(self._schema)
        except RecursionError:
            return BadRow(raw.file, raw.line, _("not valid JSON: nested too deeply"))

    async def _take(self, raw: RawRow, item: Case | BadRow | None, result: CaseResult | None,
                    at: float, tally: Tally, decision: str | None = None) -> None:
        """One decoded row: counted in `tally`, judged (unless `result` is given, made under
        `decision`), journaled, folded and its alerts fired."""
        if item is None:
            tally.blank += 1
            return
        if isinstance(item, BadRow):
            self._bad(item, tally)
            return
        if item.id in self.processed or item.id in self._judging:
            self.duplicates += 1
            tally.duplicates += 1
            return
        if self.spec.has_model_checks:
            if decision is None:
                decision = self.gate.decide(item.id, at)
            else:
                self.gate.record(decision, at)
        if result is None:
            self._judging.add(item.id)
            try:
                if decision is None or decision == JUDGED:
                    result = await self.spec.evaluate_async(item)
                else:  # no model call, so nothing to wait for
                    result = self.spec.evaluate(item, pins=self.reach.pins(decision))
            finally:
                self._judging.discard(item.id)
        entry: dict[str, Any] = {"kind": "session", "id": item.id, "at": at,
                                 "origin": raw.origin}
        if decision is not None:
            entry["judging"] = decision
        try:
            record = result.to_record()
            self.journal.append({**entry, "record": record.to_dict()})
        except RecursionError:
            self._bad(BadRow(raw.file, raw.line, _("nested too deeply to be written")), tally)
            return
        self.processed.add(item.id)
        result, _record = self._fold(result, record, at, decision)
        fired = [*self._case_alerts(item, result, at), *self._window_alerts(result, at)]
        for alert in fired:
            self._fire(alert)
        self._flag(item, result, record, fired)
        tally.judged += 1
        tally.alerts += fired

    def _fold(self, result: CaseResult, record: CaseRecord, at: float,
              decision: str | None) -> tuple[CaseResult, CaseRecord]:
        """Into the windows: a session left out by the judge sample or budget without what
        reads a model check (`ModelReach.unjudged`); the result and record as folded."""
        if decision is not None and decision != JUDGED:
            result, record = self.reach.unjudged(result, record)
        self.windows.add(result, record, at, decision)
        return result, record

    def _bad(self, bad: BadRow, tally: Tally) -> None:
        self.bad_rows += 1
        tally.bad += 1
        if len(tally.bad_named) < MAX_BAD_NAMED:
            named = str(bad)
            tally.bad_named.append(named)
            self.bad_examples.append(named)
            print(_("skipped a bad session: {row}").format(row=named), file=sys.stderr)

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

    def _flag(self, case: Case, result: CaseResult, record: CaseRecord,
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
                **({"judging": self.gate.report(self.reach)}
                   if self.spec.has_model_checks else {}),
                "windows": [{"seconds": seconds, "start": start, "end": start + seconds,
                             "report": state.report_doc().to_dict(),
                             **({"judging": self.windows.judging(seconds, start)}
                                if self.spec.has_model_checks else {})}
                            for seconds, start, state in self.windows.current()]}

    def close(self) -> None:
        """Deliver the alerts still queued, then let go of the journal."""
        self.dispatcher.close()
        self.journal.close()
