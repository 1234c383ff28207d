"""Alert sinks that do not hold each other back: a hanging or trickling webhook (a real slow
server on 127.0.0.1) delays neither the --alerts file nor standard output, each delivery
has a deadline, and a malformed webhook URL is a usage error at start."""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaldsl.watch.sinks import Dispatcher, JsonlSink, StdoutSink, WebhookSink
from tests.support import slow_receiver
from tests.support.run_kit import evaldsl
from tests.support.watch_kit import Watch, wait_for
from tests.watch.test_watch_cli import SPEC, session


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "watch.eval"
    path.write_text(SPEC, encoding="utf-8")
    return path


@pytest.fixture(params=["hang", "trickle"])
def slow(request: pytest.FixtureRequest) -> Iterator[slow_receiver.SlowReceiver]:
    receiver = slow_receiver.start(request.param)
    yield receiver
    receiver.stop()


def delivered(path: Path) -> list[str]:
    if not path.exists():
        return []
    alerts = [json.loads(line) for line in path.read_text().splitlines()]
    return [a["case_id"] for a in alerts if "case_id" in a]


class TestSlowWebhook:
    @pytest.mark.slow
    def test_a_slow_webhook_holds_back_neither_the_file_nor_stdout(
            self, spec: Path, tmp_path: Path, slow: slow_receiver.SlowReceiver) -> None:
        alerts = tmp_path / "alerts.jsonl"
        w = Watch(spec, "--state", tmp_path / "state", "--alerts", alerts,
                  "--webhook", slow.url)
        try:
            for i in range(1, 4):
                w.post([session(i, poor=True)])
            wait_for(lambda: delivered(alerts) == ["s1", "s2", "s3"], timeout=10)
        finally:
            w.stop()

    def test_each_sink_has_its_own_queue_and_deadline(
            self, tmp_path: Path, slow: slow_receiver.SlowReceiver,
            capfd: pytest.CaptureFixture[str]) -> None:
        out = io.StringIO()
        alerts = tmp_path / "alerts.jsonl"
        hook = WebhookSink(slow.url, attempts=1, timeout_s=5.0)  # the deadline comes first
        dispatcher = Dispatcher([hook, JsonlSink(alerts), StdoutSink(out)], deadline_s=1.5)
        started = time.monotonic()
        for i in range(1, 4):
            dispatcher.submit({"alert": "a", "case_id": f"s{i}"})
        wait_for(lambda: delivered(alerts) == ["s1", "s2", "s3"], timeout=5)
        wait_for(lambda: len(out.getvalue().splitlines()) == 3, timeout=5)
        dispatcher.close(timeout_s=10)
        assert time.monotonic() - started < 12, "close waits at most its timeout"
        err = capfd.readouterr().err
        assert "within 1.5 s" in err


class Recording:
    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []

    def send(self, alert: dict[str, Any]) -> None:
        self.got.append(alert)


class TestDispatcher:
    def test_a_sink_that_raises_anything_stops_no_other_sink(self) -> None:
        class Broken:
            def send(self, alert: dict[str, Any]) -> None:
                raise ValueError("unknown url type")

        good = Recording()
        dispatcher = Dispatcher([Broken(), good])
        for i in range(3):
            dispatcher.submit({"n": i})
        dispatcher.close()
        assert [a["n"] for a in good.got] == [0, 1, 2]

    def test_the_journal_is_synced_before_any_sink_sees_an_alert(self) -> None:
        synced: list[int] = []
        seen: list[int] = []
        lock = threading.Lock()

        class Checking:
            def send(self, alert: dict[str, Any]) -> None:
                with lock:
                    seen.append(alert["n"])
                    assert alert["n"] in synced

        n = iter(range(100))
        dispatcher = Dispatcher([Checking(), Checking()], lambda: synced.append(next(n)))
        for i in range(20):
            dispatcher.submit({"n": i})
        dispatcher.close()
        assert sorted(seen) == sorted(list(range(20)) * 2)


class TestWebhookUrl:
    @pytest.mark.parametrize("url", ["example.com/hook", "http://", "http//127.0.0.1/hook",
                                     "http://127.0.0.1:99999/hook", "http://[::1/hook"])
    def test_a_malformed_webhook_url_is_a_usage_error_at_start(
            self, spec: Path, tmp_path: Path, url: str) -> None:
        done = evaldsl("watch", spec, "--state", tmp_path / "state", "--port", "0",
                       "--webhook", url, env={"EVALDSL_LANG": "en"}, timeout=20)
        assert done.returncode == 2, done.stderr
        assert url in done.stderr and "Traceback" not in done.stderr
