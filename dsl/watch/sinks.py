"""Where fired alerts go: standard output, a JSONL file, a webhook.

Every sink takes an alert as a JSON object (`Monitor` builds it) and either
delivers it or raises `SinkError` naming why. The `Dispatcher` gives each
sink its own queue and thread, in the order alerts fired, and a deadline per
alert; it reports a failed or overdue delivery on stderr and goes on: a slow
or dead receiver delays no verdict and holds back neither the watch nor the
other sinks. The webhook is a real HTTP POST with a bounded number of attempts
and a doubling pause between them.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

from evaldsl.errors import ConfigError, SinkError
from evaldsl.i18n import _


class Sink(Protocol):
    def send(self, alert: dict[str, Any]) -> None: ...


def _line(alert: dict[str, Any]) -> str:
    return json.dumps(alert, ensure_ascii=False, separators=(",", ":"))


class StdoutSink:
    """One JSON line per alert on standard output (or the stream given)."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream

    def send(self, alert: dict[str, Any]) -> None:
        stream = self._stream or sys.stdout
        stream.write(_line(alert) + "\n")
        stream.flush()


class JsonlSink:
    """One line per alert appended to a file, on disk before `send` returns."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def send(self, alert: dict[str, Any]) -> None:
        try:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(_line(alert) + "\n")
                out.flush()
                os.fsync(out.fileno())
        except OSError as exc:
            raise SinkError(_("cannot write `{path}`: {reason}").format(
                path=self.path, reason=exc.strerror or exc)) from exc


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect answered to an alert is not followed: urllib would re-send a POST as a
    GET elsewhere and call whatever that answers a delivery."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_NOT_REDIRECTED = urllib.request.build_opener(_NoRedirect)


class WebhookSink:
    """A JSON POST per alert to an http(s) URL; a 5xx, a 429 or no answer is tried again, up
    to `attempts`; only a 2xx is a delivery (a redirect is neither followed nor retried)."""

    def __init__(self, url: str, attempts: int = 4, backoff_s: float = 0.25,
                 timeout_s: float = 5.0) -> None:
        if urllib.parse.urlsplit(url).scheme.lower() not in ("http", "https"):
            raise ConfigError(_("the webhook `{url}` is refused: alerts are posted over "
                                "http:// or https:// only").format(url=url))
        self.url = url
        self.attempts = max(1, attempts)
        self.backoff_s = backoff_s
        self.timeout_s = timeout_s

    def send(self, alert: dict[str, Any]) -> None:
        body = _line(alert).encode("utf-8")
        reason = ""
        for attempt in range(self.attempts):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            reason = self._post(body)
            if not reason:
                return
            if reason[:1] in ("3", "4") and not reason.startswith("429"):
                break
        raise SinkError(_("the webhook refused the alert after {n} attempts: {reason}").format(
            n=attempt + 1, reason=reason))

    def _post(self, body: bytes) -> str:
        """'' when delivered, else why not (an HTTP status first, so callers can tell)."""
        request = urllib.request.Request(self.url, body, method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with _NOT_REDIRECTED.open(request, timeout=self.timeout_s) as answer:
                answer.read()
            return ""
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                return f"{exc.code} {exc.reason}: " + _("a redirect is not a delivery; give "
                                                         "the final URL")
            return f"{exc.code} {exc.reason}"
        except (urllib.error.URLError, OSError) as exc:
            return str(getattr(exc, "reason", exc))


DEADLINE_S = 30.0
"""How long one sink may take over one alert (a webhook's 4 attempts of 5 s fit in it)."""
QUEUE_LIMIT = 10_000
"""Alerts waiting for one sink; past it the oldest waiting one is given up on, and said."""


class Dispatcher:
    """Alerts handed to every sink in firing order, each sink from its own thread and queue.

    `before_send` runs once per alert before any sink sees it: the monitor's
    journal `sync`, so no sink sees an alert that is not on the disk. A sink
    gets `deadline_s` for each alert (its own `deadline_s` attribute when it
    has one): past it the alert is reported as not delivered and the sink's
    next alert goes on, so a hanging or trickling webhook holds back only its
    own queue, never the file or standard output.
    """

    def __init__(self, sinks: Sequence[Sink], before_send: Callable[[], None] = lambda: None,
                 deadline_s: float = DEADLINE_S) -> None:
        self.sinks = tuple(sinks)
        self._before_send = before_send
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._lanes = [_Lane(sink, float(getattr(sink, "deadline_s", deadline_s)))
                       for sink in self.sinks]
        self._thread = threading.Thread(target=self._fan_out, name="alert-sinks", daemon=True)
        self._thread.start()

    def submit(self, alert: dict[str, Any]) -> None:
        self._queue.put(alert)

    def _fan_out(self) -> None:
        while (alert := self._queue.get()) is not None:
            try:
                self._before_send()
            except OSError as exc:  # not on the disk: no sink may see it
                _report(_("an alert was not delivered: {reason}").format(
                    reason=exc.strerror or exc))
                continue
            for lane in self._lanes:
                lane.put(alert)

    def close(self, timeout_s: float = 10.0) -> None:
        """Deliver what is queued (waiting at most `timeout_s` in all), then stop: a sink
        still busy then is left (its alerts are in the journal)."""
        end = time.monotonic() + timeout_s
        self._queue.put(None)
        self._thread.join(max(0.0, end - time.monotonic()))
        for lane in self._lanes:
            lane.put(None)
        for lane in self._lanes:
            lane.join(max(0.0, end - time.monotonic()))


class _Lane:
    """One sink's queue and thread; each delivery runs in a sender thread the lane waits
    on for at most the deadline, so the lane itself never hangs."""

    def __init__(self, sink: Sink, deadline_s: float) -> None:
        self.sink = sink
        self.deadline_s = deadline_s
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue(QUEUE_LIMIT)
        self._sender: threading.Thread | None = None
        self._thread = threading.Thread(target=self._deliver, name="alert-sink", daemon=True)
        self._thread.start()

    def put(self, alert: dict[str, Any] | None) -> None:
        while True:
            try:
                self._queue.put_nowait(alert)
                return
            except queue.Full:
                try:
                    dropped = self._queue.get_nowait()
                except queue.Empty:
                    continue
                if dropped is not None:
                    _report(_("an alert was not delivered: {n} alerts were waiting for one "
                              "sink").format(n=QUEUE_LIMIT))

    def join(self, timeout_s: float) -> None:
        self._thread.join(timeout_s)

    def _deliver(self) -> None:
        while (alert := self._queue.get()) is not None:
            busy = self._sender
            if busy is not None and busy.is_alive():  # an earlier alert overran its deadline
                busy.join(self.deadline_s)
                if busy.is_alive():
                    _report(_("an alert was not delivered: the sink is still busy with an "
                              "earlier alert after {s:g} s").format(s=self.deadline_s))
                    continue
            failure: list[str] = []
            sender = threading.Thread(target=self._send, args=(alert, failure),
                                      name="alert-send", daemon=True)
            sender.start()
            sender.join(self.deadline_s)
            if sender.is_alive():
                self._sender = sender
                _report(_("an alert was not delivered within {s:g} s").format(s=self.deadline_s))
            elif failure:
                _report(_("an alert was not delivered: {reason}").format(reason=failure[0]))

    def _send(self, alert: dict[str, Any], failure: list[str]) -> None:
        try:
            self.sink.send(alert)
        except SinkError as exc:
            failure.append(str(exc))
        except Exception as exc:  # noqa: BLE001 - a sink's own bug stops no other sink
            failure.append(f"{type(exc).__name__}: {exc}")


def _report(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
