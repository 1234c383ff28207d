"""An OpenAI-compatible test server: deterministic answers and injected faults.

Run as a real process on 127.0.0.1 (`python openai_server.py --port 0` prints
`READY <port>`), it serves:

- `POST /v1/chat/completions`: for any `json_schema` response format (also
  `{"type": "json_object", "schema": ...}`) a conforming object. Each
  top-level property's value is derived from a hash of that property's
  schema (its description holds the check's question) and of the text
  between `<dialog>` tags, so a question gets the same answer whether it is
  asked alone or fused with others. Without a schema it answers `{}`.
- `POST /v1/embeddings`: unit vectors of character-bigram counts hashed into
  64 dimensions, so texts sharing wording are close.
- `POST /control`: `{"latency_ms": 50}`, `{"faults": [{"kind": "429"|"500"|"timeout"|
  "malformed"|"401"|"403"|"404", "count": N, "path": "chat"|"embeddings", "retry_after": S}]}`
  (taken in order, one per matching request; a 401 echoes the key it was sent),
  `{"script": [{"contains": TEXT, "key": K, "value": V}
  | {"contains": TEXT, "key": K, "values": [V, ...]} (the next value in turn per answer)
  | {"contains": TEXT, "raw": TEXT} | {"contains": TEXT, "cut": N}]}` (answers for
  dialogs containing TEXT; with `"model": M` only to requests for model M, with
  `"prompt_contains": P` only to prompts holding P, examples included; `cut`:
  the next N such answers are cut in half and end with `finish_reason: "length"` at
  the request's `max_tokens`, as a judge that ran out of tokens does), `{"context": N}`
  (a context window of N tokens, a prompt counted at four characters a token: a
  request whose prompt and `max_tokens` exceed it gets OpenAI's HTTP 400
  `context_length_exceeded`),
  `{"reject_json_schema": true}` (answer the standard form with HTTP 500, as
  llama.cpp's Python server does), `{"tool_calls": [{"contains": TEXT, "name": N,
  "arguments": {...}}]}` (play a tool-calling agent: see `tool_answer`), `{"reset": true}`.
- `GET /stats`: request counts, peak requests in flight, start times, formats seen,
  the `max_tokens` and `seed` of each chat request,
  whether an Authorization header came (and the distinct keys it carried), connections
  accepted.

A dialog that contains `FAULTECHO` gets a free-text answer that repeats the bare key the
request carried, one that contains `FAULTECHO500` an HTTP 500 whose message does, as
careless gateways do (`echoed`): what must never reach a report.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import select
import subprocess
import sys
import time
import urllib.request
from typing import Any

DIMENSIONS = 64
ECHO_MARKER = "FAULTECHO"
DIALOG = re.compile(r"<dialog>\n?(.*?)\n?</dialog>", re.S)


def digest(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


def conforming(schema: dict[str, Any], seed: int) -> Any:
    """A value that fits `schema`, chosen deterministically by `seed`."""
    if "enum" in schema:
        return schema["enum"][seed % len(schema["enum"])]
    kind = schema.get("type", "object")
    if kind == "object":
        props = schema.get("properties", {})
        return {k: conforming(v, digest(str(seed), k)) for k, v in props.items()}
    if kind == "boolean":
        return seed % 2 == 0
    if kind == "integer":
        low = int(schema.get("minimum", 0))
        high = int(schema.get("maximum", low + 10))
        return low + seed % (high - low + 1)
    if kind == "number":
        low, high = float(schema.get("minimum", 0)), float(schema.get("maximum", 1))
        return low + (seed % 1000) / 999 * (high - low)
    if kind == "array":
        return [conforming(schema.get("items", {}), digest(str(seed), "0"))]
    return f"auto-{seed % 100000:05d}"


class State:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.latency = 0.0
        self.faults: list[dict[str, Any]] = []
        self.script: list[dict[str, Any]] = []
        self.tool_script: list[dict[str, Any]] = []
        self.reject_json_schema = False
        self.counts = {"chat": 0, "embeddings": 0, "faults": 0}
        self.in_flight = 0
        self.peak = 0
        self.starts: list[float] = []
        self.formats: list[str] = []
        self.authorized = 0
        self.keys: list[str] = []
        self.models: list[str] = []
        self.connections = 0
        self.max_tokens: list[int | None] = []
        self.seeds: list[int | None] = []
        self.context: int | None = None

    def control(self, body: dict[str, Any]) -> None:
        if body.get("reset"):
            self.reset()
        if "latency_ms" in body:
            self.latency = float(body["latency_ms"]) / 1000
        self.faults.extend(dict(f) for f in body.get("faults", []))
        self.script.extend(body.get("script", []))
        self.tool_script.extend(body.get("tool_calls", []))
        if "context" in body:
            self.context = body["context"]
        if "reject_json_schema" in body:
            self.reject_json_schema = bool(body["reject_json_schema"])

    def take_fault(self, path: str) -> dict[str, Any] | None:
        for fault in self.faults:
            if fault.get("path", path) == path and fault.get("count", 1) > 0:
                fault["count"] = fault.get("count", 1) - 1
                self.counts["faults"] += 1
                return fault
        return None

    def stats(self) -> dict[str, Any]:
        return {**self.counts, "peak_in_flight": self.peak, "starts": self.starts,
                "formats": self.formats, "authorized": self.authorized, "keys": self.keys,
                "models": self.models, "max_tokens": self.max_tokens, "seeds": self.seeds,
                "connections": self.connections}


def tool_answer(state: State, body: dict[str, Any]) -> dict[str, Any]:
    """A request that offers `tools`, answered as a tool-calling agent: a user turn that
    contains a scripted text gets the scripted call, a tool result gets a reply that quotes
    it, and any other turn a reply that quotes the user."""
    messages = body.get("messages", [])
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        return completion(body, f"tool said: {last.get('content')}")
    text = str(last.get("content", ""))
    for n, rule in enumerate(state.tool_script):
        if rule.get("contains", "") in text:
            call = {"id": f"call_{n}", "type": "function",
                    "function": {"name": rule["name"],
                                 "arguments": json.dumps(rule.get("arguments", {}))}}
            answer = completion(body, "")
            answer["choices"][0]["message"] = {"role": "assistant", "content": None,
                                               "tool_calls": [call]}
            answer["choices"][0]["finish_reason"] = "tool_calls"
            return answer
    return completion(body, f"you said: {text}")


def chat_answer(state: State, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    if body.get("tools"):
        state.models.append(str(body.get("model")))
        return 200, tool_answer(state, body)
    fmt = body.get("response_format") or {}
    kind = fmt.get("type", "none")
    schema = fmt.get("json_schema", {}).get("schema") if kind == "json_schema" else fmt.get(
        "schema")
    state.formats.append(kind + ("+schema" if kind == "json_object" and schema else ""))
    state.models.append(str(body.get("model")))
    state.max_tokens.append(body.get("max_tokens"))
    state.seeds.append(body.get("seed"))
    if kind == "json_schema" and state.reject_json_schema:
        return 500, {"error": {"message": "unsupported response_format", "type": "server_error"}}
    prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    if state.context is not None:
        over = too_long(state.context, len(prompt) // 4, int(body.get("max_tokens") or 0))
        if over is not None:
            return over
    found = DIALOG.search(prompt)
    dialog = found.group(1) if found else prompt
    answer: Any = {}
    if schema is not None:
        props = schema.get("properties", {})
        answer = {k: conforming(v, digest(json.dumps(v, sort_keys=True), dialog))
                  for k, v in props.items()}
    for rule in state.script:
        if rule.get("model", body.get("model")) != body.get("model"):
            continue
        if rule.get("prompt_contains", "") not in prompt:
            continue
        if rule.get("contains", "") in dialog:
            if rule.get("cut", 0) > 0:
                rule["cut"] -= 1
                text = json.dumps(answer, ensure_ascii=False)
                return 200, completion(body, text[:len(text) // 2], "length")
            if "raw" in rule:
                return 200, completion(body, rule["raw"])
            if isinstance(answer, dict) and rule.get("key") in answer:
                answer[rule["key"]] = next_value(rule)
    return 200, completion(body, json.dumps(answer, ensure_ascii=False))


def next_value(rule: dict[str, Any]) -> Any:
    """A script rule's value: `value`, or the next of `values` in turn (a judge sampled
    several times that answers differently), cycling when they run out."""
    if "values" not in rule:
        return rule["value"]
    taken = rule.setdefault("taken", 0)
    rule["taken"] = taken + 1
    return rule["values"][taken % len(rule["values"])]


def too_long(context: int, prompt: int, answer: int) -> tuple[int, dict[str, Any]] | None:
    """OpenAI's refusal of a request beyond the context window, in its words; None if it fits."""
    if prompt + answer <= context:
        return None
    message = (f"This model's maximum context length is {context} tokens. However, you "
               f"requested {prompt + answer} tokens ({prompt} in the messages, {answer} in "
               "the completion). Please reduce the length of the messages or completion.")
    return 400, {"error": {"message": message, "type": "invalid_request_error",
                           "param": "messages", "code": "context_length_exceeded"}}


def bearer(headers: dict[str, str]) -> str:
    """The key of a request's `Authorization: Bearer KEY` header, or ""."""
    value = headers.get("authorization", "")
    return value[len("bearer "):] if value.lower().startswith("bearer ") else ""


def echoed(data: dict[str, Any], headers: dict[str, str]
           ) -> tuple[int, Any, dict[str, str]] | None:
    """For a dialog marked `FAULTECHO500`, an HTTP 500 whose message repeats the bare key;
    for one marked `FAULTECHO`, a free-text answer that does (it is no JSON, so it ends as a
    malformed answer whose raw text a report would show). None for any other dialog."""
    prompt = json.dumps(data.get("messages", []), ensure_ascii=False)
    text = f"upstream rejected key {bearer(headers)} (Authorization: Bearer {bearer(headers)})"
    if ECHO_MARKER + "500" in prompt:
        return 500, {"error": {"message": text, "type": "server_error"}}, {}
    if ECHO_MARKER in prompt:
        return 200, completion(data, text), {}
    return None


def _refusal(status: int, data: dict[str, Any], headers: dict[str, str]
             ) -> tuple[int, Any, dict[str, str]]:
    """A 401 that echoes the key it was sent (as careless servers do), a 403, or a 404 for
    an unknown model: what a misconfigured judge meets."""
    if status == 404:
        message = f"The model `{data.get('model')}` does not exist"
    else:
        message = f"Incorrect API key provided: {headers.get('authorization', '')}"
    return status, {"error": {"message": message, "type": "invalid_request_error"}}, {}


def completion(body: dict[str, Any], text: str, finish: str = "stop") -> dict[str, Any]:
    """A chat completion of `text`; one cut at `length` spent the request's `max_tokens`."""
    spent = int(body.get("max_tokens") or 0) if finish == "length" else len(text) // 4
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0,
            "model": body.get("model", "test"),
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": sum(len(str(m.get("content", "")))
                                           for m in body.get("messages", [])) // 4,
                      "completion_tokens": spent, "total_tokens": 0}}


def embedding(text: str) -> list[float]:
    vector = [0.0] * DIMENSIONS
    padded = f" {text} "
    for i in range(len(padded) - 1):
        vector[digest(padded[i:i + 2]) % DIMENSIONS] += 1.0
    norm = sum(v * v for v in vector) ** 0.5 or 1.0
    return [v / norm for v in vector]


def embeddings_answer(body: dict[str, Any]) -> dict[str, Any]:
    items = body.get("input", [])
    items = [items] if isinstance(items, str) else items
    data = [{"object": "embedding", "index": i, "embedding": embedding(str(t))}
            for i, t in enumerate(items)]
    return {"object": "list", "data": data, "model": body.get("model", "test"),
            "usage": {"prompt_tokens": 0, "total_tokens": 0}}


ROUTES = {"/v1/chat/completions": "chat", "/v1/embeddings": "embeddings"}


async def serve_request(state: State, method: str, path: str,
                        headers: dict[str, str], body: bytes) -> tuple[int, Any, dict[str, str]]:
    """The status, JSON payload (or raw text) and extra headers for one request."""
    if method == "GET" and path == "/stats":
        return 200, state.stats(), {}
    data = json.loads(body or b"{}")
    if path == "/control":
        state.control(data)
        return 200, {"ok": True}, {}
    route = ROUTES.get(path)
    if route is None:
        return 404, {"error": {"message": f"no route {path}"}}, {}
    state.counts[route] += 1
    state.starts.append(time.monotonic())
    state.authorized += "authorization" in headers
    key = bearer(headers)
    if key and key not in state.keys:
        state.keys.append(key)
    return await _answer(state, route, data, headers)


async def _answer(state: State, route: str, data: dict[str, Any], headers: dict[str, str]
                  ) -> tuple[int, Any, dict[str, str]]:
    fault = state.take_fault(route)
    kind = fault.get("kind") if fault else None
    if kind in ("401", "403", "404"):
        return _refusal(int(kind), data, headers)
    if kind == "429":
        extra = {"retry-after": str(fault.get("retry_after", 0))} if fault else {}
        return 429, {"error": {"message": "slow down", "type": "rate_limit"}}, extra
    if kind == "500":
        return 500, {"error": {"message": "injected failure", "type": "server_error"}}, {}
    if kind == "timeout":
        await asyncio.sleep(float(fault.get("seconds", 30)) if fault else 30)
    if kind == "malformed":
        return 200, completion(data, "I think the answer is {not json"), {}
    if route == "embeddings":
        return 200, embeddings_answer(data), {}
    echo = echoed(data, headers)
    if echo is not None:
        return echo
    status, payload = chat_answer(state, data)
    return status, payload, {}


async def respond(state: State, method: str, path: str, headers: dict[str, str],
                  body: bytes) -> bytes:
    """The whole HTTP response, sent `latency_ms` after the request arrived.

    The answer is made and encoded on arrival and the wait is what is left of the
    latency, so a burst of responses does not queue behind its own encoding: a
    request is answered after the latency asked for, like a model server whose
    latency that is, not after the latency plus this process's own work.
    """
    arrived = time.monotonic()
    model = path in ROUTES
    if model:
        state.in_flight += 1
        state.peak = max(state.peak, state.in_flight)
    try:
        try:
            status, payload, extra = await serve_request(state, method, path, headers, body)
        except Exception as exc:  # a bug here must show as a response, not a hang
            status, payload, extra = 599, {"error": {"message": repr(exc)}}, {}
        data = json.dumps(payload, ensure_ascii=False).encode()
        head = [f"HTTP/1.1 {status} X", "content-type: application/json",
                f"content-length: {len(data)}", *(f"{k}: {v}" for k, v in extra.items())]
        left = state.latency - (time.monotonic() - arrived) if model else 0.0
        if left > 0:
            await asyncio.sleep(left)
        return ("\r\n".join(head) + "\r\n\r\n").encode() + data
    finally:
        if model:
            state.in_flight -= 1


async def handle(state: State, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
                 ) -> None:
    state.connections += 1
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            request_line, *lines = head.decode("latin-1").split("\r\n")
            method, path, _ = request_line.split(" ", 2)
            headers: dict[str, str] = {}
            for line in lines:
                name, _, value = line.partition(":")
                if name:
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", 0)))
            writer.write(await respond(state, method, path.split("?")[0], headers, body))
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
            ValueError):
        pass
    finally:
        writer.close()


class RunningServer:
    """A started server process, as tests and benchmarks drive it."""

    def __init__(self, process: subprocess.Popen[str], port: int) -> None:
        self.process = process
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def _call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def control(self, **body: Any) -> None:
        self._call("/control", body)

    def stats(self) -> dict[str, Any]:
        result: dict[str, Any] = self._call("/stats")
        return result

    def reset(self) -> None:
        self.control(reset=True)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        if self.process.stdout is not None:
            self.process.stdout.close()


def start(timeout: float = 20.0) -> RunningServer:
    """Start the server in a new process on a free port and wait until it is ready."""
    return RunningServer(*spawn_ready([sys.executable, __file__, "--port", "0"],
                                      "the test server", timeout))


def spawn_ready(command: list[str], what: str, timeout: float = 20.0,
                cwd: str | None = None) -> tuple[subprocess.Popen[str], int]:
    """A server process started with `command` and its port, once it printed `READY PORT`;
    one that does not within `timeout` is killed and named."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=cwd)
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    line = process.stdout.readline() if ready else ""
    if not line.startswith("READY "):
        process.kill()
        process.wait(timeout=5)
        process.stdout.close()
        raise RuntimeError(f"{what} did not start")
    return process, int(line.split()[1])


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
