"""A judge's `openai` client in a child process, so it does not compete with evaluation.

At high request rates the CPU of the evaluating process is the limit: each
request costs about a millisecond inside the `openai` client (building the
request, its headers and URL, reading the response), and at 32 requests in
flight against a server answering in 50 ms that alone is most of a core. A
`ClientProcess` moves that work to a second process and core: the judge hands
it a request body and gets the server's reply back, while retries, limits,
structured-output fallbacks and caching stay with the runtime in the parent.

The two talk over the child's stdin and stdout in frames: a JSON header
line, then as many raw bytes as its `size` says, so a request body or a
reply passes through as the bytes it is, never decoded and encoded again.
The first frame carries the client options (the API key travels this way,
never in argv or the environment) and the child answers `{"ready": true}`
once its client exists: the runtime awaits that (`ready`) before it takes a
request slot, so requests paced or bounded by the limiter reach the server
paced and bounded, not in a burst when the child has started. Then a request
is `{"id", "path", "size"}` and its JSON body; its answer `{"id", "size"}`
and the reply's text, or `{"id", "error": {"kind", "message", "status",
"retry_after"}}`.

The parent side is bound to one event loop at a time, and hands over to a new
loop once the old one is closed (a synchronous `evaluate` runs a loop per
call). Another live loop asking meanwhile is told to use an in-process client.
If the child dies, what is in flight fails as a transient error (the runtime
retries it) and the judge falls back to its in-process client for good. The
child exits when its stdin closes, so it never outlives its parent.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import weakref
from typing import Any

from evaldsl.model.errors import ModelError, PermanentError, RateLimited, TransientError
from evaldsl.model.local.processes import terminate

STARTUP_TIMEOUT = 60.0
"""Seconds a child may take to start (Python, then importing `openai`) before it is given up."""


class Refused(Exception):
    """A request that did not give a reply: the HTTP status (if any) and the model error."""

    def __init__(self, status: int | None, error: ModelError) -> None:
        super().__init__(str(error))
        self.status = status
        self.error = error


ERROR_KINDS: dict[str, type[ModelError]] = {
    "TransientError": TransientError, "RateLimited": RateLimited,
    "PermanentError": PermanentError}


def error_record(status: int | None, error: ModelError) -> dict[str, Any]:
    """A model error as the child sends it."""
    return {"kind": type(error).__name__, "message": str(error), "status": status,
            "retry_after": getattr(error, "retry_after", None)}


def refusal_of(record: dict[str, Any]) -> Refused:
    """The `Refused` a child's error record stands for."""
    message = str(record.get("message") or "the judge call failed")
    kind = ERROR_KINDS.get(str(record.get("kind")), PermanentError)
    error = (RateLimited(message, record.get("retry_after")) if kind is RateLimited
             else kind(message))
    status = record.get("status")
    return Refused(status if isinstance(status, int) else None, error)


class ClientProcess:
    """One endpoint's `openai` client in a child process; see the module docstring."""

    def __init__(self, options: dict[str, Any], what: str = "judge") -> None:
        """`options`: `base_url`, `api_key` and `timeout` for `openai.AsyncOpenAI`."""
        self._options = {**options, "what": what}
        self.what = what
        self._process: subprocess.Popen[bytes] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: dict[int, asyncio.Future[str]] = {}
        self._ids = itertools.count(1)
        self._inbox = bytearray()
        self._outbox = bytearray()
        self._waiting = False
        """Whether the bound loop watches stdin for room to write the outbox."""
        self._lock = threading.Lock()
        self._started = False
        self._starting: asyncio.Future[None] | None = None
        self.broken: str | None = None
        """Why the process cannot be used any more, once it cannot."""

    @property
    def pid(self) -> int | None:
        """The child's process id, once started."""
        return self._process.pid if self._process is not None else None

    def usable(self) -> bool:
        """Whether the running event loop may send through the process now."""
        if self.broken is not None:
            return False
        owner = self._loop
        return owner is None or owner.is_closed() or owner is asyncio.get_running_loop()

    async def ready(self, timeout: float = STARTUP_TIMEOUT) -> bool:
        """Start the child if needed and wait until it can send; False if it cannot."""
        loop = asyncio.get_running_loop()
        try:
            self._bind(loop)
        except Refused:
            return False
        if self._started:
            return True
        if self._starting is None or self._starting.get_loop() is not loop:
            self._starting = loop.create_future()
        try:
            await asyncio.wait_for(asyncio.shield(self._starting), timeout)
        except (Refused, TimeoutError):
            self._fail(f"the {self.what}'s client process did not start")
            return False
        return True

    async def post(self, path: str, body: bytes) -> str:
        """The server's reply (its text) to the JSON `body` at `path`; call when `usable()`.

        Raises `Refused` with the HTTP status and the model error when there is no reply.
        """
        loop = asyncio.get_running_loop()
        self._bind(loop)
        ident = next(self._ids)
        future: asyncio.Future[str] = loop.create_future()
        self._pending[ident] = future
        try:
            self._send(frame({"id": ident, "path": path}, body))
            result: str = await future
            return result
        finally:
            self._pending.pop(ident, None)

    def stop(self) -> None:
        """Stop the child (idempotent); what is in flight fails."""
        self._fail(f"the {self.what}'s client process was stopped")

    # ----------------------------------------------------------- plumbing

    def _bind(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            if self.broken is not None:
                raise Refused(None, TransientError(self.broken))
            if self._loop is loop:
                return
            if self._process is None:
                self._start()
            assert self._process is not None and self._process.stdout is not None
            self._pending.clear()  # futures of a closed loop: nobody awaits them any more
            loop.add_reader(self._process.stdout.fileno(), self._readable)
            self._loop = loop
            self._waiting = bool(self._outbox)
            if self._waiting:
                loop.add_writer(self._stdin_fd(), self._writable)

    def _start(self) -> None:
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "evaldsl.model.openai.client_process"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                bufsize=0)
        except OSError as exc:  # no process to spare: the judge stays in-process
            self.broken = f"the {self.what}'s client process could not start: {exc.strerror}"
            raise Refused(None, TransientError(self.broken)) from exc
        assert process.stdin is not None and process.stdout is not None
        os.set_blocking(process.stdin.fileno(), False)
        os.set_blocking(process.stdout.fileno(), False)
        self._process = process
        weakref.finalize(self, _terminate, process)
        self._outbox += frame(self._options)

    def _stdin_fd(self) -> int:
        assert self._process is not None and self._process.stdin is not None
        return self._process.stdin.fileno()

    def _send(self, data: bytes) -> None:
        queued = bool(self._outbox)
        self._outbox += data
        if not queued:
            self._writable()

    def _writable(self) -> None:
        try:
            written = os.write(self._stdin_fd(), self._outbox)
        except BlockingIOError:
            written = 0
        except (BrokenPipeError, OSError, AssertionError):
            self._fail(f"the {self.what}'s client process stopped")
            return
        del self._outbox[:written]
        loop = self._loop
        if loop is None or loop.is_closed() or bool(self._outbox) == self._waiting:
            return
        self._waiting = bool(self._outbox)
        if self._waiting:
            loop.add_writer(self._stdin_fd(), self._writable)
        else:
            loop.remove_writer(self._stdin_fd())

    def _readable(self) -> None:
        process = self._process
        if process is None or process.stdout is None:  # given up meanwhile
            return
        try:
            chunk = os.read(process.stdout.fileno(), 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._fail(f"the {self.what}'s client process stopped")
            return
        self._inbox += chunk
        while (taken := unframe(self._inbox)) is not None:
            header, payload, used = taken
            del self._inbox[:used]
            self._deliver(header, payload)

    def _deliver(self, header: dict[str, Any], payload: bytes) -> None:
        if header.get("ready"):
            self._on_ready()
            return
        future = self._pending.get(header.get("id", -1))
        if future is None or future.done():
            return
        if isinstance(header.get("error"), dict):
            future.set_exception(refusal_of(header["error"]))
        else:
            future.set_result(payload.decode("utf-8", errors="replace"))

    def _on_ready(self) -> None:
        self._started = True
        if self._starting is not None and not self._starting.done():
            self._starting.set_result(None)

    def _fail(self, reason: str) -> None:
        """Give the process up (once): fail what waits on it, stop it, unhook its pipes."""
        with self._lock:
            self.broken = self.broken or reason
            process, loop = self._process, self._loop
            self._process = None
            pending: list[asyncio.Future[Any]] = list(self._pending.values())
            self._pending.clear()
        if process is not None and loop is not None and not loop.is_closed():
            assert process.stdin is not None and process.stdout is not None
            loop.remove_reader(process.stdout.fileno())
            loop.remove_writer(process.stdin.fileno())
        starting = self._starting
        if starting is not None and not starting.done() and not starting.get_loop().is_closed():
            pending.append(starting)
        for future in pending:
            if not future.done():
                future.set_exception(Refused(None, TransientError(reason)))
        if process is not None:
            _terminate(process)


def frame(header: dict[str, Any], payload: bytes = b"") -> bytes:
    """A header line (with the payload's `size`) followed by the payload."""
    line = json.dumps({**header, "size": len(payload)}, ensure_ascii=False,
                      separators=(",", ":"))
    return line.encode() + b"\n" + payload


def unframe(buffer: bytes | bytearray) -> tuple[dict[str, Any], bytes, int] | None:
    """The first whole frame in `buffer` (header, payload, bytes used), or None yet.

    >>> unframe(frame({"id": 7}, b"{}") + b"next")
    ({'id': 7, 'size': 2}, b'{}', 20)
    """
    end = buffer.find(b"\n")
    if end < 0:
        return None
    header = json.loads(buffer[:end])
    size = int(header.get("size", 0))
    if len(buffer) < end + 1 + size:
        return None
    return header, bytes(buffer[end + 1:end + 1 + size]), end + 1 + size


def _terminate(process: subprocess.Popen[bytes]) -> None:
    """Close the pipes (the child exits on EOF), then make sure it is gone."""
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            stream.close()
    terminate(process)


# ------------------------------------------------------------------ the child


def main() -> None:
    """The child: answer requests from stdin until it closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt lines
    asyncio.run(_serve(protocol))


async def _serve(protocol: Any) -> None:
    import openai

    from evaldsl.model.openai.judge import async_http_client

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, stream = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                      protocol)
    writer = asyncio.StreamWriter(transport, stream, None, loop)
    options, _ = await _read_frame(reader)
    what = str(options.pop("what", "judge"))
    options.pop("size", None)
    client = openai.AsyncOpenAI(**options, max_retries=0, http_client=async_http_client())
    writer.write(frame({"ready": True}))
    timeout = float(options.get("timeout") or 60)
    running: set[asyncio.Task[None]] = set()
    try:
        while True:
            header, body = await _read_frame(reader)
            task = asyncio.create_task(_answer(client, header, body, writer, what, timeout))
            running.add(task)
            task.add_done_callback(running.discard)
    except asyncio.IncompleteReadError:  # stdin closed: the parent is done
        pass
    for task in running:
        task.cancel()
    await client.close()


async def _read_frame(reader: asyncio.StreamReader) -> tuple[dict[str, Any], bytes]:
    header = json.loads(await reader.readuntil(b"\n"))
    return header, await reader.readexactly(int(header.get("size", 0)))


async def _answer(client: Any, header: dict[str, Any], body: bytes,
                  writer: asyncio.StreamWriter, what: str, timeout: float) -> None:
    import openai

    from evaldsl.model.openai.judge import translate

    try:
        text = await client.post(header["path"], content=body, cast_to=str)
    except openai.OpenAIError as exc:
        error = error_record(getattr(exc, "status_code", None), translate(exc, what, timeout))
        writer.write(frame({"id": header["id"], "error": error}))
    except Exception as exc:  # anything else is this request's failure, not the child's
        error = error_record(None, PermanentError(f"the {what} call failed: "
                                                  f"{type(exc).__name__}"))
        writer.write(frame({"id": header["id"], "error": error}))
    else:
        writer.write(frame({"id": header["id"]}, str(text).encode("utf-8")))
    await writer.drain()


if __name__ == "__main__":
    main()
