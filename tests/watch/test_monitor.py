"""The monitor in-process: alerts fire once per window and group, `min` holds, restarts
replay the journal, bad rows are named and skipped."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from evaldsl.api import loads
from evaldsl.cases.loading import RawRow
from evaldsl.errors import ForeignJournalError
from evaldsl.model.protocols import JudgeAnswer, JudgeRequest
from evaldsl.watch.monitor import Monitor
from evaldsl.watch.review_feed import Flagged
from evaldsl.watch.sinks import Dispatcher
from evaldsl.watch.time_windows import window_start

SPEC = """
spec "watch"
case { tenant: text }
check short = length(max_chars: 10)
outcome {
  good if short
  poor otherwise
}
metric poor_rate = rate(poor) by case.tenant
review { sample 100% where poor }
alert poor_case when poor "质量差的会话"
alert tenant_poor when poor_rate > 10% over 1h min 3 "租户差评率过高"
"""

HOUR = 3600.0
T0 = 1_000 * HOUR


def row(i: int, tenant: str = "a", poor: bool = False) -> RawRow:
    reply = "a reply far too long to pass" if poor else "ok"
    data = {"id": f"s{i}", "tenant": tenant, "messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": reply}]}
    return RawRow("sessions.jsonl", i, json.dumps(data).encode() + b"\n")


class Collect:
    def __init__(self) -> None:
        self.alerts: list[dict[str, Any]] = []
        self.flagged: list[Flagged] = []

    def send(self, alert: dict[str, Any]) -> None:
        self.alerts.append(alert)

    def submit(self, flagged: Flagged) -> None:
        self.flagged.append(flagged)


OPEN: list[Monitor] = []


@pytest.fixture(autouse=True)
def _close_monitors() -> Any:
    yield
    while OPEN:
        OPEN.pop().close()


def monitor(state: Path, sink: Collect, spec: str = SPEC) -> Monitor:
    m = Monitor(loads(spec), state, [sink], sink)
    OPEN.append(m)
    return m


def feed(m: Monitor, rows: list[tuple[RawRow, float]]) -> None:
    """Ingest the rows, then wait until the sinks got every alert they fired."""
    async def go() -> None:
        for r, at in rows:
            await m.ingest(r, at)
    asyncio.run(go())
    m.dispatcher.close()
    m.dispatcher = Dispatcher(m.dispatcher.sinks, m.journal.sync)


def windowed(sink: Collect) -> list[dict[str, Any]]:
    return [a for a in sink.alerts if a["alert"] == "tenant_poor"]


class TestWindowedAlerts:
    def test_below_the_minimum_denominator_nothing_fires(self, tmp_path: Path) -> None:
        """Two poor sessions of two are 100% poor, but `min 3` wants three cases."""
        sink = Collect()
        m = monitor(tmp_path, sink)
        feed(m, [(row(1, poor=True), T0), (row(2, poor=True), T0 + 1)])
        assert windowed(sink) == []
        feed(m, [(row(3), T0 + 2)])
        assert [(a["value"], a["denominator"]) for a in windowed(sink)] == [(2 / 3, 3)]

    def test_fires_once_per_window_and_group(self, tmp_path: Path) -> None:
        sink = Collect()
        m = monitor(tmp_path, sink)
        rows = [(row(i, tenant, poor=True), T0 + i) for i in range(6) for tenant in "ab"[:1]]
        rows += [(row(10 + i, "b", poor=True), T0 + 10 + i) for i in range(4)]
        rows += [(row(20 + i, "a", poor=True), T0 + HOUR + i) for i in range(3)]
        feed(m, rows)
        fired = [(a["group"], a["window"]["start"]) for a in windowed(sink)]
        start = window_start(T0, 3600)
        assert fired == [(["a"], start), (["b"], start), (["a"], start + 3600)]

    def test_below_the_line_nothing_fires(self, tmp_path: Path) -> None:
        sink = Collect()
        m = monitor(tmp_path, sink)
        feed(m, [(row(i), T0 + i) for i in range(20)])
        assert windowed(sink) == []
        assert m.report()["windows"][0]["report"]["cases"]["evaluated"] == 20


INLINE = SPEC.replace("alert tenant_poor when poor_rate > 10% over 1h min 3",
                      "alert tenant_poor when rate(poor) > 10% over 1h by case.tenant min 3")


class TestAggregateWrittenInTheAlert:
    """`rate(poor) > 10% over 1h by case.tenant` fires exactly as the declared metric does."""

    ROWS = [(row(i, "a", poor=i % 2 == 0), T0 + i) for i in range(6)] + [
        (row(10 + i, "b", poor=i < 2), T0 + 10 + i) for i in range(2)] + [
        (row(20 + i, "b"), T0 + HOUR + i) for i in range(5)]

    def test_fires_as_the_declared_metric_does(self, tmp_path: Path) -> None:
        declared, inline = Collect(), Collect()
        feed(monitor(tmp_path / "declared", declared), self.ROWS)
        feed(monitor(tmp_path / "inline", inline, INLINE), self.ROWS)
        assert INLINE != SPEC
        fired = [(a["group"], a["value"], a["denominator"]) for a in windowed(inline)]
        assert fired == [(["a"], 2 / 3, 3)]
        assert fired == [(a["group"], a["value"], a["denominator"])
                         for a in windowed(declared)]
        assert {a["metric"] for a in windowed(inline)} == {"tenant_poor"}


class TestPerCaseAlerts:
    def test_a_poor_session_fires_and_is_flagged_for_review(self, tmp_path: Path) -> None:
        sink = Collect()
        m = monitor(tmp_path, sink)
        feed(m, [(row(1), T0), (row(2, poor=True), T0)])
        assert [(a["alert"], a["case_id"]) for a in sink.alerts] == [("poor_case", "s2")]
        assert [(f.case_id, f.reasons) for f in sink.flagged] == [
            ("s2", ("review", "alert:poor_case"))]


class TestAlertErrors:
    def test_an_error_in_a_per_case_condition_fires_nothing_and_is_counted(
            self, tmp_path: Path) -> None:
        spec = loads('check fast = latency(max_ms: 1000)\n'
                     'alert slow when not fast "a slow reply"\n')
        sink = Collect()
        m = Monitor(spec, tmp_path, [sink])
        OPEN.append(m)
        no_reply = {"id": "s1", "messages": [{"role": "user", "content": "hi"}]}
        slow = {"id": "s2", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "ok", "latency_ms": 5000}]}
        feed(m, [(RawRow("f", i, json.dumps(r).encode()), T0)
                 for i, r in enumerate((no_reply, slow), 1)])
        assert [a["case_id"] for a in sink.alerts] == ["s2"]
        assert m.report()["alert_errors"] == {"slow": 1}


class TestRestart:
    def test_a_restart_replays_sessions_and_fired_alerts(self, tmp_path: Path) -> None:
        sink = Collect()
        m = monitor(tmp_path, sink)
        rows = [(row(i, poor=True), T0 + i) for i in range(4)]
        feed(m, rows)
        m.close()
        again = Collect()
        m = monitor(tmp_path, again)
        feed(m, [*rows, (row(9, poor=True), T0 + 9)])
        assert [a["case_id"] for a in again.alerts] == ["s9"]
        assert m.duplicates == 4 and len(m.processed) == 5
        assert m.report()["windows"][0]["report"]["cases"]["evaluated"] == 5

    def test_a_torn_last_line_is_cut_and_the_session_judged_again(self, tmp_path: Path) -> None:
        m = monitor(tmp_path, Collect())
        feed(m, [(row(1), T0)])
        m.close()
        with (tmp_path / "watch.jsonl").open("ab") as journal:  # after the header line
            journal.write(b'{"kind":"session","id":"s2","at":')
        m = monitor(tmp_path, Collect())
        assert m.processed == {"s1"}
        feed(m, [(row(2), T0)])
        assert m.processed == {"s1", "s2"}

    def test_a_second_watch_on_one_state_is_refused(self, tmp_path: Path) -> None:
        from evaldsl.errors import JournalBusyError

        monitor(tmp_path, Collect())
        with pytest.raises(JournalBusyError):
            monitor(tmp_path, Collect())


class SlowJudge:
    """A judge that answers after a pause, so two ingests of one session overlap."""

    async def complete(self, request: JudgeRequest) -> JudgeAnswer:
        await asyncio.sleep(0.05)
        return JudgeAnswer(text="{}", parsed={})


class TestDuplicates:
    def test_a_session_posted_twice_at_once_is_judged_once(self, tmp_path: Path) -> None:
        spec = loads('check polite = judge(criteria: "is the reply polite?")\n',
                     judge=SlowJudge())
        m = Monitor(spec, tmp_path)
        OPEN.append(m)

        async def both() -> None:
            await asyncio.gather(m.ingest(row(1), T0), m.ingest(row(1), T0))
        asyncio.run(both())
        sessions = [line for line in (tmp_path / "watch.jsonl").read_text().splitlines()
                    if '"kind":"session"' in line]
        assert (len(sessions), m.duplicates, m.processed) == (1, 1, {"s1"})

    def test_another_specs_journal_is_refused(self, tmp_path: Path) -> None:
        monitor(tmp_path, Collect()).close()
        OPEN.clear()
        with pytest.raises(ForeignJournalError, match="not the journal of this spec"):
            Monitor(loads('check short = length(max_chars: 5)\n'), tmp_path)


class TestBadRows:
    def test_a_bad_row_is_named_and_skipped(self, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
        m = monitor(tmp_path, Collect())
        bad = RawRow("sessions.jsonl", 7, b'{"id": "x", "messages": 3}\n')
        feed(m, [(bad, T0), (row(8), T0)])
        assert m.bad_rows == 1 and m.processed == {"s8"}
        assert "sessions.jsonl:7:" in capsys.readouterr().err
