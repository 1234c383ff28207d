"""`evaldsl watch` as a process: HTTP intake, followed folders, a kill -9 mid-stream, a
webhook sink against a local receiver, the report as JSON and in a browser."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import webhook_receiver
from tests.support.chromium_page import Chromium
from tests.support.run_kit import evaldsl
from tests.support.watch_kit import Watch, wait_for

SPEC = """spec "在线监控"
case { tenant: text }
check short = length(max_chars: 10)
outcome {
  good if short
  poor otherwise
}
metric poor_rate = rate(poor) by case.tenant
alert poor_case when poor "质量差的会话"
alert tenant_poor when poor_rate > 10% over 1h min 3 "租户差评率过高"
"""


def session(i: int, tenant: str = "a", poor: bool = False) -> dict[str, Any]:
    reply = "a reply far too long to pass" if poor else "ok"
    return {"id": f"s{i}", "tenant": tenant, "messages": [
        {"role": "user", "content": "你好"}, {"role": "assistant", "content": reply}]}


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "watch.eval"
    path.write_text(SPEC, encoding="utf-8")
    return path


@pytest.fixture
def started() -> Iterator[list[Watch]]:
    watches: list[Watch] = []
    yield watches
    for w in watches:
        w.stop()


def journal(state: Path) -> list[dict[str, Any]]:
    lines = (state / "watch.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def alert_keys(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [json.loads(line)["key"] for line in path.read_text(encoding="utf-8").splitlines()]


class TestIntake:
    def test_posted_sessions_are_judged_and_alerts_answered(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        w = Watch(spec, "--state", tmp_path / "state")
        started.append(w)
        answer = w.post([session(1), session(2, poor=True)])
        assert [a["alert"] for a in answer["alerts"]] == ["poor_case"]
        report = w.get("/report")
        assert (report["sessions"], report["alerts_fired"]) == (2, 1)
        window = report["windows"][0]
        assert window["seconds"] == 3600
        assert window["report"]["cases"]["evaluated"] == 2

    def test_flagged_sessions_are_queued_in_the_review_store(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        from evaldsl.review.store import open_store

        w = Watch(spec, "--state", tmp_path / "state", "--review", tmp_path / "review.db")
        started.append(w)
        w.post([session(1), session(2, poor=True)])
        with open_store(tmp_path / "review.db") as store:
            assert [(c.id, c.rule) for c in store.queue()] == [("s2", "alert:poor_case")]

    def test_a_list_a_pretty_printed_session_and_bad_rows_are_answered(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        w = Watch(spec, "--state", tmp_path / "state")
        started.append(w)
        status, answer = w.post_body(json.dumps([session(1), session(2)]).encode())
        assert (status, answer["judged"]) == (200, 2)
        status, answer = w.post_body(json.dumps(session(3), indent=2).encode())
        assert (status, answer["judged"]) == (200, 1)
        status, answer = w.post_body(b'{"id": "x", "messages": 3}\n' +
                                     json.dumps(session(1)).encode())
        assert (status, answer["judged"], answer["duplicates"]) == (200, 0, 1)
        assert answer["bad_rows"][0].startswith("POST /sessions:4:")
        status, answer = w.post_body(b"{not json")
        assert status == 400 and answer["bad_rows"][0].startswith("POST /sessions:6:")
        assert w.get("/report")["sessions"] == 3

    def test_a_followed_folder_skips_and_names_a_bad_row(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        inbox = tmp_path / "inbox"
        inbox.mkdir()
        w = Watch(spec, "--state", tmp_path / "state", "--follow", inbox)
        started.append(w)
        lines = [json.dumps(session(1)), '{"id": "x", "messages": 3}', json.dumps(session(2))]
        (inbox / "day1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        wait_for(lambda: w.get("/report")["sessions"] == 2)
        with (inbox / "day1.jsonl").open("a", encoding="utf-8") as more:
            more.write(json.dumps(session(3)) + "\n")
        wait_for(lambda: w.get("/report")["sessions"] == 3)
        report = w.get("/report")
        assert report["bad_rows"] == 1
        assert report["bad_examples"][0].startswith(f"{inbox / 'day1.jsonl'}:2:")
        (inbox / "day1.jsonl").write_text(json.dumps(session(4)) + "\n", encoding="utf-8")
        wait_for(lambda: w.get("/report")["sessions"] == 4)  # rotated: read anew

    def test_nothing_to_watch_is_a_usage_error(self, spec: Path, tmp_path: Path) -> None:
        done = evaldsl("watch", spec, "--state", tmp_path / "state")
        assert done.returncode == 2
        assert "--follow" in done.stderr

    def test_a_second_watch_on_the_same_state_is_refused(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        started.append(Watch(spec, "--state", tmp_path / "state"))
        done = evaldsl("watch", spec, "--state", tmp_path / "state", "--port", "0",
                       env={"EVALDSL_LANG": "en"})
        assert done.returncode == 2
        assert "another run is writing" in done.stderr

    def test_sigterm_stops_it_cleanly(self, spec: Path, tmp_path: Path) -> None:
        w = Watch(spec, "--state", tmp_path / "state")
        w.post([session(1)])
        assert w.stop() == 0


class TestKillMidStream:
    @pytest.mark.slow
    def test_a_kill_9_loses_nothing_and_fires_nothing_twice(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        state, alerts = tmp_path / "state", tmp_path / "alerts.jsonl"
        rows = [session(i, "ab"[i % 2], poor=i % 3 == 0) for i in range(120)]
        first = Watch(spec, "--state", state, "--alerts", alerts)
        accepted: list[int] = []

        def stream() -> None:
            for i, r in enumerate(rows):
                try:
                    first.post([r])
                except OSError:
                    return
                accepted.append(i)

        poster = threading.Thread(target=stream)
        poster.start()
        wait_for(lambda: len(accepted) >= 40)
        first.kill()
        poster.join(timeout=30)
        assert len(accepted) < len(rows), "the kill came after the stream ended"
        before = {e["id"] for e in journal(state) if e["kind"] == "session"}
        second = Watch(spec, "--state", state, "--alerts", alerts)
        started.append(second)
        for r in rows:
            second.post([r])
        report = second.get("/report")
        sessions = [e["id"] for e in journal(state) if e["kind"] == "session"]
        assert sorted(sessions) == sorted(r["id"] for r in rows)
        assert report["sessions"] == len(rows) and report["duplicates"] == len(before)
        assert report["windows"][0]["report"]["cases"]["evaluated"] == len(rows)
        fired = [e["key"] for e in journal(state) if e["kind"] == "alert"]
        assert len(fired) == len(set(fired))
        delivered = alert_keys(alerts)
        assert len(delivered) == len(set(delivered)) and set(delivered) <= set(fired)
        poor = {r["id"] for r in rows if "far" in r["messages"][1]["content"]}
        assert {k.split("\t")[1] for k in fired if k.startswith("poor_case")} == poor
        assert sum(k.startswith("tenant_poor") for k in fired) == 2


class TestWebhook:
    def test_a_refused_alert_is_tried_again_and_delivered_once(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        receiver = webhook_receiver.start(fail=2)
        try:
            w = Watch(spec, "--state", tmp_path / "state", "--webhook", receiver.url)
            started.append(w)
            w.post([session(1, poor=True)])
            wait_for(lambda: len(receiver.get("/received")) == 1)
            got = receiver.get("/received")[0]
            assert (got["alert"], got["case_id"], got["message"]) == (
                "poor_case", "s1", "质量差的会话")
            assert receiver.get("/attempts") == 3
        finally:
            receiver.stop()

    @pytest.mark.slow
    def test_a_receiver_that_never_takes_it_is_given_up_on(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        receiver = webhook_receiver.start(fail=1000)
        try:
            w = Watch(spec, "--state", tmp_path / "state", "--webhook", receiver.url)
            started.append(w)
            w.post([session(1, poor=True)])
            assert w.post([session(2)])["judged"] == 1, "the watch goes on judging"
            w.stderr_until("after 4 attempts: 503")
            assert receiver.get("/attempts") == 4
            assert w.get("/report")["alerts_fired"] == 1
        finally:
            receiver.stop()


class TestReportPage:
    def test_the_window_report_renders_in_a_browser(
            self, spec: Path, tmp_path: Path, started: list[Watch]) -> None:
        w = Watch(spec, "--state", tmp_path / "state")
        started.append(w)
        w.post([session(i, "ab"[i % 2], poor=i < 2) for i in range(6)])
        with Chromium(tmp_path / "profile") as browser:
            browser.open(w.base + "/report.html")
            text = browser.run("document.body.innerText")
        assert "在线监控" in browser_title(text)
        assert "poor_rate" in text and "33.3%" in text


def browser_title(text: str) -> str:
    return text.split("\n", 1)[0]
