"""`evaldsl lsp` with a wrong `Content-Length`, over a real stdio session: the server recovers
and answers the next request, or exits saying why; it never hangs and never dies silently."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pygls) is not installed")

from tests.support.run_kit import REPO  # noqa: E402

WAIT_S = 30.0
"""No answer and no exit within this many seconds is a hang."""


def frame(message: dict[str, Any], length: int | str | None = None) -> bytes:
    body = json.dumps(message).encode()
    declared = len(body) if length is None else length
    return f"Content-Length: {declared}\r\n\r\n".encode() + body


def request(ident: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params or {}}


INITIALIZE = request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})


class Session:
    """`evaldsl lsp` as a subprocess, spoken to in raw bytes."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "evaldsl", "lsp"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
            env={**os.environ, "EVALDSL_LANG": "en"})
        self.buffer = b""

    def send(self, raw: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(raw)
        self.process.stdin.flush()

    def answer(self, ident: int) -> dict[str, Any] | None:
        """The response to request `ident`, or None once the server has exited; a hang
        fails the test."""
        assert self.process.stdout is not None
        deadline = time.monotonic() + WAIT_S
        while True:
            message = self._message()
            if message is not None:
                if message.get("id") == ident and "method" not in message:
                    return message
                continue
            left = deadline - time.monotonic()
            assert left > 0, "the language server hangs: no answer and no exit"
            ready, _w, _x = select.select([self.process.stdout], [], [], min(left, 0.5))
            if ready:
                chunk = os.read(self.process.stdout.fileno(), 1 << 16)
                if not chunk:
                    self.process.wait(10)
                    return None
                self.buffer += chunk

    def _message(self) -> dict[str, Any] | None:
        head, sep, rest = self.buffer.partition(b"\r\n\r\n")
        if not sep:
            return None
        length = int(head.split(b"Content-Length:")[1].split(b"\r\n")[0])
        if len(rest) < length:
            return None
        self.buffer = rest[length:]
        message: dict[str, Any] = json.loads(rest[:length])
        return message

    def stderr(self) -> str:
        assert self.process.stderr is not None
        return self.process.stderr.read().decode("utf-8", "replace")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def session() -> Iterator[Session]:
    started = Session()
    try:
        yield started
    finally:
        started.close()


def recovered_or_said(session: Session, ident: int) -> str:
    """`answered` when the request `ident` is answered; `exited` when the server ended
    saying why on stderr (a silent death fails)."""
    if session.answer(ident) is not None:
        return "answered"
    assert session.process.returncode not in (0, None)
    said = session.stderr()
    assert "evaldsl lsp: error:" in said and "Traceback" not in said, said
    return "exited"


def body_length(message: dict[str, Any]) -> int:
    return len(json.dumps(message).encode())


def test_a_length_too_long_then_silence_is_answered(session: Session) -> None:
    """The editor sends one message whose length says more than it sent, and waits."""
    session.send(frame(INITIALIZE, body_length(INITIALIZE) + 200))
    assert recovered_or_said(session, 1) == "answered"
    session.send(frame(request(2, "shutdown")))
    assert recovered_or_said(session, 2) == "answered"


def test_a_length_too_long_then_the_next_message(session: Session) -> None:
    session.send(frame(INITIALIZE, body_length(INITIALIZE) + 40) +
                 frame(request(2, "shutdown")))
    assert recovered_or_said(session, 2) == "answered"


def test_a_length_too_short(session: Session) -> None:
    session.send(frame(INITIALIZE, body_length(INITIALIZE) - 10))
    session.send(frame(request(2, "shutdown")))
    assert recovered_or_said(session, 2) in ("answered", "exited")


@pytest.mark.parametrize("length", ["abc", "-5", str(10**15)])
def test_a_length_that_cannot_be_is_said(session: Session, length: str) -> None:
    session.send(frame(INITIALIZE, length))
    session.send(frame(request(2, "shutdown")))
    assert recovered_or_said(session, 2) in ("answered", "exited")


def test_a_sound_session_is_unchanged(session: Session) -> None:
    session.send(frame(INITIALIZE))
    assert recovered_or_said(session, 1) == "answered"
    session.send(frame(request(2, "shutdown")))
    assert recovered_or_said(session, 2) == "answered"
    session.send(frame({"jsonrpc": "2.0", "method": "exit"}))
    assert session.process.wait(WAIT_S) == 0
