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
KEY_CODES = {"Enter": 13, "Escape": 27}
"""Virtual key codes of the named keys tests press; a letter's or digit's is its upper case."""


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
        self._context: str | None = None
        self._target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self._attach()

    def _attach(self) -> str:
        answer = self.send("Target.attachToTarget", {"targetId": self._target, "flatten": True})
        session: str = answer["sessionId"]
        return session

    def new_tab(self) -> None:
        """Replace the tab by a blank one in a new browser context (its own cookies and
        storage, as a fresh profile has), so tests can share one browser's start-up."""
        old_target, old_context = self._target, self._context
        self._context = self.send("Target.createBrowserContext")["browserContextId"]
        self._target = self.send("Target.createTarget", {
            "url": "about:blank", "browserContextId": self._context})["targetId"]
        self.session = self._attach()
        self.send("Target.closeTarget", {"targetId": old_target})
        if old_context is not None:
            self.send("Target.disposeBrowserContext", {"browserContextId": old_context})

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
        """Navigate to `page` (a file, or an address on 127.0.0.1) and wait until it has
        loaded and its scripts ran."""
        url = page.as_uri() if isinstance(page, Path) else page
        self.send("Page.navigate", {"url": url}, self.session)
        self.wait_for(f"document.readyState === 'complete' && location.href === {json.dumps(url)}",
                      f"{page} did not load in time")

    def wait_for(self, expression: str, why: str = "") -> Any:
        """The first truthy value of `expression`, polled; fails the test with `why` after
        `TIMEOUT` seconds."""
        deadline = time.monotonic() + TIMEOUT
        while not (value := self.run(expression)):
            assert time.monotonic() < deadline, why or f"never true: {expression}"
            time.sleep(0.05)
        return value

    def press(self, key: str) -> None:
        """Press and release one key as a keyboard does (`j`, `3`, `Enter`), to the focus."""
        code = KEY_CODES.get(key, ord(key.upper()) if len(key) == 1 else 0)
        text = {"Enter": "\r"}.get(key, key if len(key) == 1 else "")
        down = {"type": "keyDown", "key": key, "text": text, "windowsVirtualKeyCode": code}
        self.send("Input.dispatchKeyEvent", down, self.session)
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key,
                                             "windowsVirtualKeyCode": code}, self.session)

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
