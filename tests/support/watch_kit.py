"""`evaldsl watch` in a subprocess on a free port, and the HTTP calls tests make to it."""

from __future__ import annotations

import json
import re
import select
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.run_kit import start_evaldsl

READY = re.compile(r"http://127\.0\.0\.1:(\d+)/report")


class Watch:
    """A running watch; `post` sessions, `get` its report, `kill` it (SIGKILL) or `stop` it."""

    def __init__(self, *args: str | Path, timeout: float = 60.0,
                 env: dict[str, str] | None = None) -> None:
        self.process = start_evaldsl("watch", *args, "--port", "0", "--quiet",
                                     env={"EVALDSL_LANG": "en", **(env or {})})
        assert self.process.stderr is not None
        deadline = time.monotonic() + timeout
        self.stderr_lines: list[str] = []
        while True:
            ready, _, _ = select.select([self.process.stderr], [], [], 1.0)
            line = self.process.stderr.readline() if ready else ""
            self.stderr_lines.append(line)
            found = READY.search(line)
            if found:
                break
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                raise RuntimeError("the watch did not start: " + "".join(self.stderr_lines))
        self.base = f"http://127.0.0.1:{found.group(1)}"

    def post(self, rows: list[dict[str, Any]]) -> Any:
        """Post the rows as JSON lines; the answer (status 200 required)."""
        body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
        status, answer = self.post_body(body)
        assert status == 200, answer
        return answer

    def post_body(self, body: bytes, headers: dict[str, str] | None = None,
                  ) -> tuple[int, Any]:
        """Post any body (as JSON unless `headers` say otherwise); the status and the JSON
        answer, a refusal included (its text when it is not JSON)."""
        sent = headers if headers is not None else {"Content-Type": "application/json"}
        request = urllib.request.Request(self.base + "/sessions", body, sent, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as refused:
            with refused:
                text = refused.read()
            try:
                return refused.code, json.loads(text)
            except ValueError:
                return refused.code, text.decode("utf-8", "replace")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base + path, timeout=30) as answer:
            data = answer.read()
        return json.loads(data) if path == "/report" else data.decode()

    def stderr_until(self, text: str, timeout: float = 30.0) -> str:
        """Read standard error until a line holds `text`; fail after `timeout` seconds."""
        assert self.process.stderr is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stderr], [], [], 0.5)
            if ready:
                line = self.process.stderr.readline()
                self.stderr_lines.append(line)
                if text in line:
                    return line
        raise AssertionError(f"no line with {text!r} on stderr: {''.join(self.stderr_lines)}")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self._close()

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)
        self._close()
        return self.process.returncode

    def _close(self) -> None:
        if self.process.stderr is not None:
            self.process.stderr.close()


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Poll `condition` until it holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
