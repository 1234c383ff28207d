"""A page in Debian's headless chromium, driven over the DevTools protocol on a pipe.

`--remote-debugging-pipe` speaks the protocol as NUL-terminated JSON on file
descriptors 3 (commands in) and 4 (events and answers out): no port is opened
and no client library is needed. Every wait is bounded, and leaving the
context closes the browser (killing it if it does not close).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TIMEOUT = 60.0


class Chromium:
    """One headless browser and one tab; `open` a file, `run` JavaScript in it."""

    def __init__(self, profile: Path) -> None:
        if CHROMIUM is None:
            pytest.skip("chromium is not installed (apt-get install chromium; .ci/run does it)")
        to_browser, self._in = os.pipe()
        self._out, from_browser = os.pipe()
        args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--remote-debugging-pipe",
                f"--user-data-dir={profile}", "about:blank"]

        def plumb() -> None:
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.process = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=plumb,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next = 0
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]

    def send(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None) -> dict[str, Any]:
        """One command's result; a protocol error fails the test with its message."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._in, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next:
                assert "error" not in answer, answer["error"]
                result: dict[str, Any] = answer["result"]
                return result

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _w, _x = select.select([self._out], [], [], max(left, 0))
            assert ready, "chromium did not answer in time"
            chunk = os.read(self._out, 1 << 20)
            assert chunk, "chromium closed the pipe"
            self._buffer += chunk
        raw, _sep, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def open(self, page: Path | str) -> None:
        """Navigate to `page` (a file, or a URL) and wait until it has loaded and its scripts
        ran."""
        url = page.as_uri() if isinstance(page, Path) else page
        self.send("Page.navigate", {"url": url}, self.session)
        deadline = time.monotonic() + TIMEOUT
        while self.run("document.readyState") != "complete" or self.run(
                "location.href") != url:
            assert time.monotonic() < deadline, f"{page} did not load in time"
            time.sleep(0.05)

    def run(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (an exception fails the test)."""
        result = self.send("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True}, self.session)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (AssertionError, OSError):
            pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        os.close(self._in)
        os.close(self._out)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
