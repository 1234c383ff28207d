"""Where fired alerts go: standard output, a JSONL file, a webhook.

Every sink takes an alert as a JSON object (`Monitor` builds it) and either
delivers it or raises `SinkError` naming why. The `Dispatcher` delivers from
its own thread, in the order alerts fired, and reports a failed delivery on
stderr and goes on: a slow or dead receiver delays no verdict and stops
neither the watch nor the other sinks. The webhook is a real HTTP POST with a bounded
number of attempts and a doubling pause between them.
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

from evaldsl.errors import ConfigError, EvaldslError
from evaldsl.i18n import _


class SinkError(EvaldslError):
    """An alert could not be delivered to one sink."""


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


class Dispatcher:
    """Alerts handed to every sink from one background thread, in firing order.

    `before_send` runs before each alert is delivered: the monitor's journal
    `sync`, so no sink sees an alert that is not on the disk.
    """

    def __init__(self, sinks: Sequence[Sink], before_send: Callable[[], None] = lambda: None,
                 ) -> None:
        self.sinks = tuple(sinks)
        self._before_send = before_send
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._deliver, name="alert-sinks", daemon=True)
        self._thread.start()

    def submit(self, alert: dict[str, Any]) -> None:
        self._queue.put(alert)

    def _deliver(self) -> None:
        while (alert := self._queue.get()) is not None:
            self._before_send()
            for sink in self.sinks:
                try:
                    sink.send(alert)
                except SinkError as exc:
                    print(_("an alert was not delivered: {reason}").format(reason=exc),
                          file=sys.stderr, flush=True)

    def close(self, timeout_s: float = 30.0) -> None:
        """Deliver what is queued (waiting at most `timeout_s`), then stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout_s)
