"""How fast `evaldsl watch` judges conversations posted as OTLP spans to `POST /v1/traces`.

The real `evaldsl watch` process (`--session-idle 1s`) with a deterministic spec. Clients
post OTLP/HTTP JSON exports, each a batch of `--batch` conversations of three spans (a
model call asking for a tool, the tool run, the reply: benchmarks/trace_read.py's), as a
batching span exporter sends them. The watch journal is tailed: a conversation's verdict
is the moment its line appears, and its idle-close the moment it fell due (its POST
acknowledged, plus the idle time). Two runs:

* **saturated**: every batch posted back to back from `--clients` threads: the
  conversations/s taken in, and judged (from the first one due to the last verdict);
* **paced**: batches posted on a schedule of `--rate` conversations/s: p50/p99 from
  idle-close to verdict.

Each run also prints the watch process's own CPU seconds (from /proc), and so the
conversations it takes and judges per CPU second: on a machine shared with other work the
wall-clock figures measure the machine as much as the watch.

Targets (issue 33): at least 500 conversations/s, p99 from idle-close to verdict under 1 s.

    python benchmarks/watch_traces.py [--conversations 5000] [--rate 500] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from trace_read import conversation  # noqa: E402 - the benchmarks folder is no package

SPEC = """spec "trace watch benchmark"
check answered = length(min_chars: 10)
check looked_up = tool_called(name: "lookup_order")
check fast = latency(max_ms: 3000)
outcome {
  good if answered and looked_up and fast
  poor otherwise
}
metric poor_rate = rate(poor)
alert poor_case when poor "a poor conversation"
"""
IDLE_S = 1.0
TARGET_RATE = 500.0
TARGET_P99_S = 1.0
JSON = {"Content-Type": "application/json"}


def batches(first: int, count: int, size: int) -> list[tuple[list[str], bytes]]:
    """(conversation ids, export body) of each batch of `size` conversations."""
    out = []
    for start in range(first, first + count, size):
        exports = [conversation(i) for i in range(start, min(start + size, first + count))]
        body = {"resourceSpans": [e["resourceSpans"][0] for e in exports]}
        out.append(([f"conv-{i}" for i in range(start, start + len(exports))],
                     json.dumps(body).encode()))
    return out


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Tail(threading.Thread):
    """The journal read as it grows: when each session's line appeared."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path, self.seen, self.stop = path, {}, threading.Event()

    def run(self) -> None:
        while not self.path.exists() and not self.stop.is_set():
            time.sleep(0.005)
        with self.path.open("rb") as handle:
            rest = b""
            while not self.stop.is_set():
                data = handle.read()
                if not data:
                    time.sleep(0.002)
                    continue
                now = time.perf_counter()
                *lines, rest = (rest + data).split(b"\n")
                for line in lines:
                    entry = json.loads(line)
                    if entry.get("kind") == "session":
                        self.seen[entry["id"]] = now

    def wait_for(self, count: int, timeout: float) -> None:
        deadline = time.perf_counter() + timeout
        while len(self.seen) < count and time.perf_counter() < deadline:
            time.sleep(0.01)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(spec: Path, state: Path, work: list[tuple[list[str], bytes]], clients: int,
        rate: float | None) -> dict[str, Any]:
    process = subprocess.Popen([sys.executable, "-m", "evaldsl", "watch", str(spec), "--state",
                                str(state), "--port", "0", "--quiet", "--session-idle",
                                f"{IDLE_S:g}s"], stderr=subprocess.PIPE, text=True)
    tail = Tail(state / "watch.jsonl")
    tail.start()
    try:
        assert process.stderr is not None
        ready, _, _ = select.select([process.stderr], [], [], 60)
        found = re.search(r":(\d+)/report", process.stderr.readline() if ready else "")
        assert found, "the watch did not start"
        cpu_start = cpu_seconds(process.pid)
        url = f"http://127.0.0.1:{found.group(1)}/v1/traces"
        acked: dict[str, float] = {}
        per_batch = len(work[0][0])
        start = time.perf_counter()

        def post(index: int) -> None:
            ids, body = work[index]
            if rate is not None:
                wait = start + index * per_batch / rate - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
            request = urllib.request.Request(url, body, JSON, method="POST")
            with urllib.request.urlopen(request, timeout=60) as answer:
                answer.read()
            now = time.perf_counter()
            for i in ids:
                acked[i] = now

        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(post, range(len(work))))
        posted = time.perf_counter() - start
        total = sum(len(ids) for ids, _ in work)
        tail.wait_for(total, timeout=120 + total / 50)
        cpu = cpu_seconds(process.pid) - cpu_start
        missing = total - len(tail.seen)
        late = [tail.seen[i] - (acked[i] + IDLE_S) for i in acked if i in tail.seen]
        first_due = min(acked.values()) + IDLE_S
        judged_s = max(tail.seen.values()) - first_due if tail.seen else float("nan")
        return {"conversations": total, "missing": missing, "taken": total / posted,
                "per_cpu_s": len(tail.seen) / cpu if cpu > 0 else float("nan"),
                "judged": len(tail.seen) / judged_s if judged_s > 0 else float("nan"),
                "p50": p(late, 0.5), "p99": p(late, 0.99), "max": max(late)}
    finally:
        tail.stop.set()
        process.terminate()
        process.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conversations", type=int, default=5000)
    parser.add_argument("--rate", type=float, default=TARGET_RATE,
                        help="conversations per second in the paced run")
    parser.add_argument("--batch", type=int, default=16, help="conversations per POST")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--smoke", action="store_true", help="a tiny size, a few seconds")
    args = parser.parse_args()
    if args.smoke:
        args.conversations, args.rate, args.batch = 64, 100.0, 4
    n = args.conversations
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        spec = root / "bench.eval"
        spec.write_text(SPEC, encoding="utf-8")
        saturated = run(spec, root / "saturated", batches(0, n, args.batch), args.clients, None)
        paced = run(spec, root / "paced", batches(n, n, args.batch), args.clients, args.rate)
    for name, figures in (("saturated", saturated), (f"paced at {args.rate:g}/s", paced)):
        print(f"{name}: {figures['conversations']:,} conversations in batches of "
              f"{args.batch} from {args.clients} clients: taken {figures['taken']:,.0f}/s, "
              f"judged {figures['judged']:,.0f}/s (target >= {TARGET_RATE:.0f}/s); "
              f"idle-close to verdict p50 {figures['p50'] * 1000:.0f} ms, "
              f"p99 {figures['p99'] * 1000:.0f} ms, max {figures['max'] * 1000:.0f} ms "
              f"(target p99 < {TARGET_P99_S * 1000:.0f} ms); the watch's CPU: "
              f"{figures['per_cpu_s']:,.0f} conversations per CPU second")
        if figures["missing"]:
            print(f"error: {figures['missing']} conversations never judged")
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
