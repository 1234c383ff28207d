"""A small OpenAI-compatible chat server around llama-cpp-python: the local judge's process.

Why not `python -m llama_cpp.server`: it answers the standard
`response_format={"type": "json_schema", ...}` with HTTP 500 and only accepts
its own `{"type": "json_object", "schema": ...}`, so every structured judge
request would first fail (and be retried as a server error). This server
speaks the standard form and constrains decoding with a grammar built from
the schema (`LlamaGrammar.from_json_schema`), so answers always parse and
conform. It also accepts `json_object` (with or without a schema) and plain
text requests.

It binds 127.0.0.1 only, serves one completion at a time (a `Llama` object is
not thread-safe; requests queue on a lock), writes its port to `--port-file`
once the model is loaded (the readiness signal `LocalJudgeServer` waits for)
and exits by itself when the process that started it is gone.

    python -m evaldsl.model.local.server --model FILE --port-file PATH
        [--port N] [--n-ctx N] [--threads N] [--parent-pid PID]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast

from evaldsl.atomic import replace_file
from evaldsl.model.endpoint import LOCAL_CONTEXT
from evaldsl.model.errors import BadRequest

MODEL_ALIAS = "judge"
DEFAULT_MAX_TOKENS = 512
"""Cap on an answer when the request sets none: a runaway string cannot hold the queue."""
_MAX_BODY = 4 << 20
TEMPLATE_TOKENS = 5
"""Qwen's chat template around one message: `<|im_start|>`, the role, two newlines and
`<|im_end|>`."""


class JudgeEngine:
    """One `Llama` model behind a lock, answering OpenAI chat requests."""

    def __init__(self, model_path: str, n_ctx: int, threads: int | None) -> None:
        from llama_cpp import Llama

        self._llama = Llama(model_path=model_path, n_ctx=n_ctx, n_threads=threads,
                            seed=0, verbose=False)
        self._n_ctx = n_ctx
        self._lock = threading.Lock()

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise BadRequest("`messages` must be a non-empty list")
        options = _sampling_options(body)
        grammar = _grammar_for(body.get("response_format"))
        with self._lock:
            try:
                plain: list[Any] = [_plain_message(m) for m in messages]
                self._check_fits(plain, options["max_tokens"])
                answer = self._llama.create_chat_completion(
                    messages=plain, grammar=grammar, **options)
            except ValueError as exc:  # llama-cpp reports a prompt beyond n_ctx this way
                raise BadRequest(str(exc), "context_length_exceeded") from None
        # Typed as a union with the streaming iterator; without `stream` it is the response dict.
        result = dict(cast(Mapping[str, Any], answer))
        result["model"] = MODEL_ALIAS
        return result


    def _check_fits(self, messages: list[dict[str, str]], answer: int) -> None:
        """Refuse, in OpenAI's words, a prompt whose answer's budget does not fit the window.

        llama.cpp would shrink `max_tokens` to what is left of the window without a word,
        and the answer would come back cut off; the prompt is counted with the model's own
        tokenizer (each message's text, plus the chat template's few tokens around it).
        """
        prompt = sum(TEMPLATE_TOKENS + len(self._llama.tokenize(
            m["content"].encode("utf-8"), add_bos=False, special=False)) for m in messages)
        if prompt + answer > self._n_ctx:
            raise BadRequest(
                f"This model's maximum context length is {self._n_ctx} tokens. However, you "
                f"requested {prompt + answer} tokens ({prompt} in the messages, {answer} in "
                "the completion). Please reduce the length of the messages or completion.",
                "context_length_exceeded")


def _sampling_options(body: dict[str, Any]) -> dict[str, Any]:
    max_tokens = body.get("max_completion_tokens") or body.get("max_tokens") or DEFAULT_MAX_TOKENS
    return {
        "temperature": float(body.get("temperature") or 0.0),
        "top_p": float(body.get("top_p") or 1.0),
        "max_tokens": int(max_tokens),
        "seed": int(body.get("seed") or 0),
        "stop": body.get("stop") or [],
    }


def _plain_message(message: Any) -> dict[str, str]:
    """Role and text only: content parts are joined, other fields dropped."""
    if not isinstance(message, dict):
        raise BadRequest("every message must be an object")
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return {"role": str(message.get("role", "user")), "content": str(content or "")}


def _grammar_for(response_format: Any) -> Any:
    """The decoding grammar a `response_format` asks for, or None for free text."""
    if not isinstance(response_format, dict):
        return None
    kind = response_format.get("type")
    schema: Any = None
    if kind == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
    elif kind == "json_object":
        schema = response_format.get("schema")
    elif kind in (None, "text"):
        return None
    else:
        raise BadRequest(f"unsupported response_format type `{kind}`")
    return _compiled_grammar(json.dumps(schema or {"type": "object"}))


@lru_cache(maxsize=64)
def _compiled_grammar(schema_json: str) -> Any:
    """Grammars are compiled once per distinct schema (judges reuse a few schemas)."""
    from llama_cpp.llama_grammar import LlamaGrammar

    try:
        return LlamaGrammar.from_json_schema(schema_json, verbose=False)
    except Exception as exc:  # the converter raises assorted errors on schemas it cannot express
        raise BadRequest(f"cannot turn the JSON schema into a grammar: {exc}") from None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "evaldsl-local-judge/1"
    engine: JudgeEngine

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the judge layer records what matters."""

    def do_GET(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        if path in ("/health", ""):
            self._send(200, {"ok": True})
        elif path in ("/v1/models", "/models"):
            self._send(200, {"object": "list", "data": [
                {"id": MODEL_ALIAS, "object": "model", "owned_by": "evaldsl"}]})
        else:
            self._error(404, f"unknown path {path}")

    def do_POST(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self._error(404, f"unknown path {path}")
            return
        try:
            self._send(200, self.engine.complete(self._read_json()))
        except BadRequest as exc:
            self._error(400, str(exc), code=exc.code)
        except Exception as exc:  # a crash in one request must not take the server down
            self._error(500, f"{type(exc).__name__}: {exc}", "server_error")

    def _read_json(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        if length > _MAX_BODY:
            raise BadRequest("request body too large")
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            raise BadRequest("the request body is not JSON") from None
        if not isinstance(body, dict):
            raise BadRequest("the request body must be a JSON object")
        return body

    def _error(self, status: int, message: str, kind: str = "invalid_request_error",
               code: str | None = None) -> None:
        self._send(status, {"error": {"message": message, "type": kind, "code": code}})

    def _send(self, code: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True


def _watch_parent(parent_pid: int) -> None:
    """Exit when the starting process is gone (even after `kill -9`): no orphaned model."""
    while True:
        if os.getppid() != parent_pid:
            os._exit(0)
        time.sleep(0.5)


def _write_port(path: Path, port: int) -> None:
    """Whole or not at all (`evaldsl.atomic`): the parent polls the file for the port."""
    replace_file(path, str(port))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="evaldsl's local judge server (loopback only)")
    parser.add_argument("--model", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--n-ctx", type=int, default=LOCAL_CONTEXT)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--parent-pid", type=int, default=None)
    args = parser.parse_args(argv)
    if args.parent_pid:
        threading.Thread(target=_watch_parent, args=(args.parent_pid,), daemon=True).start()
    _Handler.engine = JudgeEngine(args.model, args.n_ctx, args.threads)
    server = _Server(("127.0.0.1", args.port), _Handler)
    port = server.server_address[1]
    _write_port(Path(args.port_file), port)
    print(f"local judge listening on http://127.0.0.1:{port}/v1", file=sys.stderr, flush=True)
    server.serve_forever(poll_interval=0.2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
