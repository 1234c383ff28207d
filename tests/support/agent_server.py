"""An agent under test as a real HTTP process on 127.0.0.1, with scripted faults.

Run as `python agent_server.py --port 0` (prints `READY <port>`). It serves:

- `POST /agent` with `{"message", "session", "history", "case"}` (the request template the
  tests configure): answers `{"reply": "<turn N> <message>", "tool_calls": [...]}` after
  `latency_ms`; a message containing `CALL` reports a tool call `lookup({"q": message})`.
  A request for a case with a fault scripted at that turn answers it instead: `500` or
  `401` (whose message echoes the request's Authorization header, as careless gateways do),
  `timeout`
  (no answer for 30 s), `drop` (the connection closed halfway through the response),
  `malformed` (JSON without the reply), `gbk` (the reply in GBK, `charset=gbk` declared),
  `gbk-undeclared` (the same bytes, no charset declared), `huge` (a reply of `size` bytes,
  its length declared), `endless` (a chunked reply that never ends while the client reads),
  `redirect` (a `status`, 307 by default, to `location`; a request whose path holds
  `redirected` is answered instead).
- `POST /control`: `{"latency_ms": 50}`, `{"faults": {"CASE": {"kind": K, "turn": N}}}`,
  `{"reset": true}`. A message containing `ECHO` gets a reply that repeats the request's
  Authorization header.
- `GET /stats`: `sessions` (case id -> sessions started, a first turn each), `requests`,
  `authorization` (the distinct Authorization headers seen), `api_keys` (the distinct
  X-Api-Key headers seen), `paths` (the paths asked, in order).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, NamedTuple

from tests.support.openai_server import RunningServer, spawn_ready

REPO = Path(__file__).resolve().parents[2]


class State:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.latency = 0.0
        self.faults: dict[str, dict[str, Any]] = {}
        self.sessions: dict[str, list[str]] = {}
        self.requests = 0
        self.authorization: list[str] = []
        self.api_keys: list[str] = []
        self.paths: list[str] = []

    def control(self, body: dict[str, Any]) -> None:
        if body.get("reset"):
            self.reset()
        if "latency_ms" in body:
            self.latency = float(body["latency_ms"]) / 1000
        self.faults.update(body.get("faults", {}))

    def stats(self) -> dict[str, Any]:
        return {"sessions": {case: len(s) for case, s in self.sessions.items()},
                "requests": self.requests, "authorization": self.authorization,
                "api_keys": self.api_keys, "paths": self.paths}

    def note(self, body: dict[str, Any], headers: dict[str, str], path: str) -> int:
        """Count the request; the 1-based turn it is."""
        self.requests += 1
        self.paths.append(path)
        for name, seen in (("authorization", self.authorization), ("x-api-key", self.api_keys)):
            value = headers.get(name)
            if value and value not in seen:
                seen.append(value)
        case, session = str(body.get("case")), str(body.get("session"))
        turn = sum(m.get("role") == "user" for m in body.get("history") or [])
        if turn == 1:
            self.sessions.setdefault(case, []).append(session)
        return turn


def reply(body: dict[str, Any], turn: int) -> dict[str, Any]:
    message = str(body.get("message"))
    calls = [{"name": "lookup", "arguments": {"q": message}}] if "CALL" in message else []
    return {"reply": f"<turn {turn}> {message}", "tool_calls": calls}


def echoing(body: dict[str, Any], headers: dict[str, str], turn: int) -> dict[str, Any]:
    """A reply that repeats the request's Authorization header, as a careless agent does."""
    answer = reply(body, turn)
    answer["reply"] += f" (you sent {headers.get('authorization', '')})"
    return answer


class Raw(NamedTuple):
    """An answer written as given: status, content type, body bytes, extra header lines."""

    status: int
    content_type: str
    body: bytes
    extra: str = ""


ENDLESS = "endless"
ENDLESS_LIMIT = 1 << 30
"""Bytes an endless answer sends at most, should its client never stop reading."""


async def answer(state: State, body: dict[str, Any], headers: dict[str, str], path: str = ""
                 ) -> tuple[int, Any] | Raw | str | None:
    """The status and payload, a raw answer, `ENDLESS`, or None to drop the connection."""
    turn = state.note(body, headers, path)
    await asyncio.sleep(state.latency)
    fault = state.faults.get(str(body.get("case")))
    kind = fault.get("kind") if fault and fault.get("turn", 1) == turn else None
    if kind == "redirect" and "redirected" not in path:
        assert fault is not None
        return Raw(int(fault.get("status", 307)), "text/plain", b"moved",
                   f"location: {fault['location']}\r\n")
    if kind in ("gbk", "gbk-undeclared"):
        data = json.dumps(reply(body, turn), ensure_ascii=False).encode("gbk")
        return Raw(200, "application/json" + ("; charset=gbk" if kind == "gbk" else ""), data)
    if kind == "huge":
        assert fault is not None
        filler = "x" * max(0, int(fault["size"]) - 40)
        return Raw(200, "application/json", json.dumps({"reply": filler}).encode())
    if kind == ENDLESS:
        return ENDLESS
    if kind in ("500", "401"):
        return int(kind), {"error": f"upstream refused {headers.get('authorization', '')}"}
    if kind == "timeout":
        await asyncio.sleep(30)
    if kind == "drop":
        return None
    if kind == "malformed":
        return 200, {"answer": "no reply field here"}
    if "ECHO" in str(body.get("message")):
        return 200, echoing(body, headers, turn)
    return 200, reply(body, turn)


async def handle(state: State, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
                 ) -> None:
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            request_line, *lines = head.decode("latin-1").split("\r\n")
            method, path, _rest = request_line.split(" ", 2)
            headers = {}
            for line in lines:
                name, _sep, value = line.partition(":")
                if name:
                    headers[name.strip().lower()] = value.strip()
            raw = await reader.readexactly(int(headers.get("content-length", 0)))
            body = json.loads(raw or b"{}")
            if method == "GET" and path == "/stats":
                result: tuple[int, Any] | None = (200, state.stats())
            elif path == "/control":
                state.control(body)
                result = (200, {"ok": True})
            else:
                result = await answer(state, body, headers, path)
            if result == ENDLESS:
                await endless(writer)
                break
            if isinstance(result, Raw):
                writer.write(f"HTTP/1.1 {result.status} X\r\ncontent-type: {result.content_type}"
                             f"\r\ncontent-length: {len(result.body)}\r\n{result.extra}\r\n"
                             .encode() + result.body)
                await writer.drain()
                continue
            if result is None:
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                             b"content-length: 500\r\n\r\n{\"reply\": \"cut")
                await writer.drain()
                break
            assert isinstance(result, tuple)
            data = json.dumps(result[1], ensure_ascii=False).encode()
            writer.write(f"HTTP/1.1 {result[0]} X\r\ncontent-type: application/json\r\n"
                         f"content-length: {len(data)}\r\n\r\n".encode() + data)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError, ValueError):
        pass
    finally:
        writer.close()


async def endless(writer: asyncio.StreamWriter) -> None:
    """A chunked JSON answer that goes on while the client reads (up to `ENDLESS_LIMIT`)."""
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                 b"transfer-encoding: chunked\r\n\r\n")
    chunk = b"x" * 65536
    framed = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
    writer.write(b"%x\r\n" % 11 + b'{"reply": "' + b"\r\n")
    for _sent in range(ENDLESS_LIMIT // len(chunk)):
        writer.write(framed)
        await writer.drain()


def start(timeout: float = 20.0) -> RunningServer:
    """Start the agent in a new process on a free port and wait until it is ready."""
    return RunningServer(*spawn_ready(
        [sys.executable, "-m", "tests.support.agent_server", "--port", "0"],
        "the agent server", timeout, cwd=str(REPO)))


async def main(port: int) -> None:
    state = State()
    server = await asyncio.start_server(lambda r, w: handle(state, r, w), "127.0.0.1", port,
                                        backlog=1024)
    print(f"READY {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    try:
        asyncio.run(main(parser.parse_args().port))
    except KeyboardInterrupt:
        sys.exit(0)
