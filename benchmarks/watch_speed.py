"""How fast `evaldsl watch` judges sessions: sustained sessions/s and arrival-to-verdict p99.

A deterministic spec with a per-case alert and a windowed alert grouped by
tenant, the journal on disk (one fsynced line per session). Three figures:

* **saturated**: sessions handed to the monitor back to back, as fast as it
  takes them (the most it sustains on one core), one at a time and in batches
  (`Monitor.ingest_chunks`: chunks decoded and judged in a worker thread, as a
  followed file's reads and POST bodies are);
* **paced**: sessions arriving on a fixed schedule at `--rate` per second,
  each one's latency from its scheduled arrival to its verdict, so queueing
  behind a slow session counts;
* **over HTTP**: the real `evaldsl watch` process, one `POST /sessions` per
  session from 1 and from 8 concurrent clients, each latency a request's round
  trip (a request is answered once its session is on the disk, so concurrent
  clients share fsyncs).

Targets (issue 17): at least 500 sessions/s sustained, p99 under 1 s.

    python benchmarks/watch_speed.py [--sessions 5000] [--rate 500] [--http 1000] [--smoke]

`--smoke` runs every part at a tiny size (200 sessions, 50 over HTTP), to test the script.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import select
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from evaldsl.api import loads
from evaldsl.cases.loading import RawRow
from evaldsl.watch.monitor import Monitor

SPEC = """spec "watch benchmark"
case { tenant: text }
check short = length(max_chars: 60)
check polite = keyword(any: ["请", "谢谢", "please"], scope: replies)
check fast = latency(max_ms: 3000)
outcome {
  good if short and polite and fast
  poor otherwise
}
metric poor_rate = rate(poor) by case.tenant
alert poor_case when poor and not fast "slow and poor"
alert tenant_poor when poor_rate > 30% over 1h min 30 "tenant poor rate over 30%"
"""
TARGET_RATE = 500.0
JSON = {"Content-Type": "application/json"}
TARGET_P99_S = 1.0


def session(i: int) -> bytes:
    reply = "好的，请稍等，谢谢" if i % 4 else "this reply is long enough to fail the length check"
    row = {"id": f"s{i}", "tenant": f"t{i % 20}", "messages": [
        {"role": "user", "content": "帮我查一下订单"},
        {"role": "assistant", "content": reply, "latency_ms": 800 + (i % 7) * 500}]}
    return json.dumps(row, ensure_ascii=False).encode() + b"\n"


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


async def saturated(monitor: Monitor, rows: list[bytes]) -> float:
    start = time.perf_counter()
    for i, raw in enumerate(rows):
        await monitor.ingest(RawRow("bench", i + 1, raw), time.time())
    return len(rows) / (time.perf_counter() - start)


async def batched(monitor: Monitor, rows: list[bytes], size: int = 2000) -> float:
    """Rows taken as a followed file's read or a POST body is: chunks decoded and judged in a
    worker thread, the bookkeeping on the event loop."""
    chunks = iter([[RawRow("bench", i + k + 1, raw) for k, raw in enumerate(rows[i:i + size])]
                   for i in range(0, len(rows), size)])
    start = time.perf_counter()
    await monitor.ingest_chunks(chunks)
    return len(rows) / (time.perf_counter() - start)


async def paced(monitor: Monitor, rows: list[bytes], rate: float) -> list[float]:
    latencies = []
    start = time.perf_counter()
    for i, raw in enumerate(rows):
        due = start + i / rate
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        await monitor.ingest(RawRow("bench", i + 1, raw), time.time())
        latencies.append(time.perf_counter() - due)
    return latencies


def over_http(spec: Path, state: Path, rows: list[bytes],
              clients: int) -> tuple[float, list[float]]:
    process = subprocess.Popen([sys.executable, "-m", "evaldsl", "watch", str(spec), "--state",
                                str(state), "--port", "0", "--quiet"],
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        ready, _, _ = select.select([process.stderr], [], [], 60)
        found = re.search(r":(\d+)/report", process.stderr.readline() if ready else "")
        assert found, "the watch did not start"
        url = f"http://127.0.0.1:{found.group(1)}/sessions"

        def post(raw: bytes) -> float:
            sent = time.perf_counter()
            with urllib.request.urlopen(urllib.request.Request(url, raw, JSON, method="POST"),
                                        timeout=30) as answer:
                answer.read()
            return time.perf_counter() - sent

        start = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            latencies = list(pool.map(post, rows))
        return len(rows) / (time.perf_counter() - start), latencies
    finally:
        process.terminate()
        process.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=5000)
    parser.add_argument("--rate", type=float, default=TARGET_RATE)
    parser.add_argument("--http", type=int, default=1000, help="sessions posted over HTTP")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.sessions, args.http = 200, 50
    warm = min(200, args.sessions)
    rows = [session(i) for i in range(warm + 3 * args.sessions + 2 * args.http)]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        spec_path = root / "bench.eval"
        spec_path.write_text(SPEC, encoding="utf-8")
        monitor = Monitor(loads(SPEC), root / "state")
        try:
            asyncio.run(saturated(monitor, rows[:warm]))  # warm-up
            rate = asyncio.run(saturated(monitor, rows[warm:warm + args.sessions]))
            lat = asyncio.run(paced(monitor, rows[warm + args.sessions:
                                                  warm + 2 * args.sessions], args.rate))
            in_batches = asyncio.run(batched(monitor, rows[warm + 2 * args.sessions:
                                                           warm + 3 * args.sessions]))
        finally:
            monitor.close()
        http_rows = rows[warm + 3 * args.sessions:]
        http = [(clients, *over_http(spec_path, root / f"http-{clients}", part, clients))
                for clients, part in ((1, http_rows[:args.http]), (8, http_rows[args.http:]))]
    report(args, rate, in_batches, lat, http)


def report(args: Any, rate: float, in_batches: float, lat: list[float],
           http: list[tuple[int, float, list[float]]]) -> None:
    print(f"saturated: {rate:,.0f} sessions/s over {args.sessions:,} sessions "
          f"(target >= {TARGET_RATE:.0f}/s)")
    print(f"saturated in batches: {in_batches:,.0f} sessions/s over {args.sessions:,} "
          "sessions")
    print(f"paced at {args.rate:.0f}/s: p50 {sorted(lat)[len(lat) // 2] * 1000:.2f} ms, "
          f"p99 {p99(lat) * 1000:.2f} ms, max {max(lat) * 1000:.2f} ms over {len(lat):,} "
          f"sessions (target p99 < {TARGET_P99_S * 1000:.0f} ms)")
    for clients, http_rate, http_lat in http:
        print(f"over HTTP, {clients} client(s): {http_rate:,.0f} sessions/s, p99 round trip "
              f"{p99(http_lat) * 1000:.2f} ms over {len(http_lat):,} sessions")


if __name__ == "__main__":
    main()
