"""The runner tests' kit: a deterministic spec, a judged spec, generated case files, the CLI."""

from __future__ import annotations

import json
import os
import random
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

SPEC = """\
spec "维修预约 runner"
case { intent: text }
check greets = keyword(scope: first_user, any: ["hello", "你好"])
check asks_name = keyword(scope: replies, any: ["name", "姓名"])
check fast = latency(scope: each_reply, max_ms: 3000)
check short = length(scope: each_reply, max_chars: 60)
outcome {
  success if greets and asks_name and fast
  partial if asks_name
  failure otherwise
}
metric success_rate = rate(success) + 0.5 * rate(partial)
metric fast_rate = rate(fast) where greets
metric avg_short = mean(short)
review (seed: 3) {
  sample 50% where failure priority 100 - 100 * short
  sample 10%
}
"""

MODEL_SPEC = """\
spec "judged runner"
check greets = keyword(scope: first_user, any: ["hello", "你好"])
check polite = judge(criteria: "polite and helpful", scale: 10, min: 5)
outcome {
  good if greets and polite
  fair if polite
  poor otherwise
}
metric good_rate = rate(good)
metric polite_rate = rate(polite)
"""

USERS = ["hello, my AC is broken", "你好，我想预约维修", "the fridge leaks", "thanks"]
REPLIES = ["What is your name?", "请问您的姓名？", "A technician comes tomorrow.",
           "Sure thing, anything else I can help you with today? " * 2]


def case_row(i: int, rnd: random.Random) -> dict[str, Any]:
    messages = []
    for _ in range(2):
        messages.append({"role": "user", "content": rnd.choice(USERS)})
        messages.append({"role": "assistant", "content": rnd.choice(REPLIES),
                         "latency_ms": rnd.randint(100, 4000)})
    return {"id": f"case-{i:05d}", "messages": messages, "intent": "booking"}


def write_cases(path: Path, count: int, seed: int = 11, bad: dict[int, str] | None = None,
                ) -> list[dict[str, Any]]:
    """`count` good rows; `bad` maps a 0-based good-row index to a raw line written before it."""
    rnd = random.Random(seed)
    rows = [case_row(i, rnd) for i in range(count)]
    with path.open("w", encoding="utf-8") as out:
        for i, row in enumerate(rows):
            if bad and i in bad:
                out.write(bad[i] + "\n")
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return rows


def evaldsl(*args: str | Path, env: dict[str, str] | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m evaldsl ARGS` in a subprocess."""
    return subprocess.run([sys.executable, "-m", "evaldsl", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, cwd=REPO)


def start_evaldsl(*args: str | Path, env: dict[str, str] | None = None,
                  ) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "evaldsl", *map(str, args)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})}, cwd=REPO)


def without_run(report: Any) -> dict[str, Any]:
    """A report (report.json's dict, or the typed report a run returns) minus its `run`
    section (about the process, not the cases)."""
    plain = report if isinstance(report, dict) else report.to_dict()
    return {k: v for k, v in plain.items() if k != "run"}


STARTUP_S = 60.0


def printed_address(process: subprocess.Popen[str], timeout: float = STARTUP_S) -> str:
    """A local server's address, from the line it prints once it listens (bounded wait).

    The pipe is read unbuffered, so lines printed together are never left waiting in a
    buffer `select` cannot see."""
    assert process.stdout is not None
    fd, seen = process.stdout.fileno(), b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _w, _x = select.select([fd], [], [], 1.0)
        if ready:
            chunk = os.read(fd, 1 << 16)
            assert chunk, f"the server ended: {process.stderr.read() if process.stderr else ''}"
            seen += chunk
            for line in seen.decode("utf-8", "replace").splitlines(keepends=True):
                if "http://127.0.0.1:" in line and line.endswith("\n"):
                    return line[line.index("http://"):].split()[0]
    raise AssertionError("the server did not start in time")
