"""`evaldsl studio` as a real process on 127.0.0.1, for the studio's tests.

The server is started on port 0 and says its address on stdout; every wait is bounded
and leaving the context stops it (killing it if it does not stop).
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.run_kit import REPO

SPEC = """\
spec "报修 studio"
case { intent: text }
check 问候 = keyword(scope: first_user, any: ["你好", "hello"])
check asks_name = keyword(scope: replies, any: ["姓名", "name"])
outcome {
  success if 问候 and asks_name
  failure otherwise
}
metric success_rate = rate(success)

example "greets and asks" {
  case {intent: "booking"}
  user "你好，洗衣机坏了"
  assistant "请问您的姓名？"
  expect success
}

example "asks nothing" {
  case {intent: "booking"}
  user "hello"
  assistant "ok"
  expect failure
}
"""
START_S = 60.0


@contextmanager
def studio(spec: Path, folder: Path, env: dict[str, str] | None = None,
           review: Path | None = None) -> Iterator[str]:
    """The base address (`http://127.0.0.1:PORT`) of a studio serving `spec`, its
    environment (which its runs inherit) updated with `env`, the review store
    `review` mounted at `/review/` when given."""
    with studio_process(spec, folder, env, review) as (address, _process):
        yield address


@contextmanager
def studio_process(spec: Path, folder: Path, env: dict[str, str] | None = None,
                   review: Path | None = None,
                   ) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`studio`'s address and its process, for tests that kill it."""
    store = ["--review", str(review)] if review is not None else []
    process = subprocess.Popen(
        [sys.executable, "-m", "evaldsl", "studio", str(spec), "--port", "0",
         "--folder", str(folder), *store], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=REPO, env={**os.environ, **(env or {})})
    try:
        yield _address(process), process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _address(process: subprocess.Popen[bytes]) -> str:
    """The address from the server's first line, within `START_S`."""
    assert process.stdout is not None
    deadline, line = time.monotonic() + START_S, b""
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        ready, _w, _x = select.select([process.stdout], [], [], max(left, 0))
        assert ready and process.poll() is None, "the studio did not start in time"
        chunk = os.read(process.stdout.fileno(), 1)
        assert chunk, "the studio exited before saying its address"
        line += chunk
    words = line.decode("utf-8").split()
    address = next(w for w in words if w.startswith("http://"))
    return address.rstrip("/")
