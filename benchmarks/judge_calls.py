"""Model calls per case and wall time against the ideal, on the OpenAI-compatible test server.

A spec with three model checks on the last reply and a cheap gate (latency
of every reply) is run over 1,000 generated cases against the test server
(tests/support/openai_server.py) answering after 50 ms:

1. every check computed, each in its own request (the peers' way): 3 calls per case;
2. evaldsl as shipped: the gate first, the model only where it can change the
   verdict, the three checks fused into one request; the verdicts must equal (1);
3. the same again over the warm cache: no calls at all.

Wall time of (2) is compared with the ideal `calls x latency / concurrency`.
What a run pays once whatever its size (importing the `openai` client and
aiohttp, the first connection) is paid by one warm-up case of its own through
each spec before the timers start; its seconds are printed on their own and
its calls are not counted.

    python benchmarks/judge_calls.py [--cases 1000] [--latency-ms 50] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import evaldsl
from evaldsl.model import ModelStats, Settings

ROOT = Path(__file__).resolve().parents[1]
CPU: list[float] = []
"""Client CPU seconds of each measured run (the test server is another process)."""
WARM_UP: list[float] = []
"""Seconds of each spec's warm-up case."""
CHECKS = """
check fast = latency(scope: each_reply, max_ms: 3000)
check polite = judge(criteria: "服务态度是否专业、礼貌、有同理心", scale: 10, min: 5{fuse})
check helpful = judge(criteria: "回复是否解决了用户的问题", scale: 10, min: 5{fuse})
check answered = refusal(expect: false{fuse})
"""
LAZY = """spec "judge calls"
{checks}
outcome {{
  success if fast and polite and helpful and answered
  failure otherwise
}}
metric success_rate = rate(success)
"""
EVERY = LAZY + """
metric polite_rate = rate(polite)
metric helpful_rate = rate(helpful)
metric answered_rate = rate(answered)
metric fast_rate = rate(fast)
"""


def server_module() -> Any:
    """The project's OpenAI-compatible test server module (tests/support/openai_server.py)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.support import openai_server

    return openai_server


def make_cases(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """Two-turn repair dialogs; about 40% have a reply slower than the gate allows."""
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        slow = rng.random() < 0.4
        messages = [
            {"role": "user", "content": f"空调不制冷了，工单{i}，能派人来看看吗"},
            {"role": "assistant", "content": "您好，请留下地址和电话", "latency_ms": 800},
            {"role": "user", "content": f"北京市海淀区{i}号，电话1380000{i:04d}"},
            {"role": "assistant", "latency_ms": 4200 if slow else rng.randint(300, 2500),
             "content": f"已为您预约工单{i}，师傅明天{rng.randint(8, 18)}点上门"},
        ]
        cases.append({"id": f"c{i}", "messages": messages})
    return cases


async def evaluate_all(spec: Any, cases: list[dict[str, Any]], width: int) -> dict[str, str]:
    """Each case's outcome label, through `Spec.evaluate_many` with `width` cases in flight."""
    results = spec.evaluate_many(cases, concurrency=width)
    return {result.id: result.labels["outcome"] async for result in results}


def measure(text: str, cases: list[dict[str, Any]], env: dict[str, str],
            width: int) -> tuple[dict[str, str], ModelStats, float]:
    """Labels, model cost and seconds of evaluating `cases` with a freshly loaded spec.

    One warm-up case of its own goes through the spec first, untimed and uncounted.
    """
    spec = evaldsl.loads(text, settings=Settings.load(env=env))
    started = time.perf_counter()
    asyncio.run(evaluate_all(spec, [warm_up_case(len(cases))], 1))
    WARM_UP.append(time.perf_counter() - started)
    before = spec.model_stats()
    started, cpu = time.perf_counter(), time.process_time()
    labels = asyncio.run(evaluate_all(spec, cases, width))
    elapsed = time.perf_counter() - started
    CPU.append(time.process_time() - cpu)
    stats = since(before, spec.model_stats())
    spec.close()
    return labels, stats, elapsed


def warm_up_case(n: int) -> dict[str, Any]:
    """A case that needs a model call and is none of the `n` measured ones."""
    case = next(c for c in make_cases(n + 50)[n:] if c["messages"][-1]["latency_ms"] <= 3000)
    return {**case, "id": "warm-up"}


def since(before: ModelStats, after: ModelStats) -> ModelStats:
    """What `after` counted that `before` had not."""
    return ModelStats(after.calls - before.calls, after.cached - before.cached,
                      after.retries - before.retries, after.errors - before.errors)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args(argv)
    if args.smoke:
        args.cases, args.latency_ms = 40, 5.0
    cases = make_cases(args.cases)
    server = server_module().start()
    try:
        server.control(latency_ms=args.latency_ms)
        with tempfile.TemporaryDirectory() as cache:
            base = {"EVALDSL_JUDGE_BASE_URL": server.base_url, "EVALDSL_JUDGE_API_KEY": "bench",
                    "EVALDSL_JUDGE_CONCURRENCY": str(args.concurrency),
                    "EVALDSL_CACHE_DIR": cache}
            every = EVERY.format(checks=CHECKS.format(fuse=", fuse: false"))
            lazy = LAZY.format(checks=CHECKS.format(fuse=""))
            width = 4 * args.concurrency
            truth, every_stats, every_time = measure(
                every, cases, {**base, "EVALDSL_NO_CACHE": "1"}, width)
            labels, stats, elapsed = measure(lazy, cases, base, width)
            again, cached_stats, cached_time = measure(lazy, cases, base, width)
    finally:
        server.stop()
    report(args, truth, labels, again, every_stats, stats, cached_stats,
           (every_time, elapsed, cached_time))
    print(f"untimed warm-up case per spec (imports, first connection): "
          f"{', '.join(f'{t:.2f} s' for t in WARM_UP)}")
    return 0


def report(args: Any, truth: dict[str, str], labels: dict[str, str], again: dict[str, str],
           every: Any, lazy: Any, cached: Any, times: tuple[float, float, float]) -> None:
    n = args.cases
    ideal = lazy.calls * args.latency_ms / 1000 / args.concurrency
    gated = sum(1 for c in make_cases(n) if c["messages"][-1]["latency_ms"] <= 3000)
    print(f"{n} cases, 3 model checks + latency gate, server latency {args.latency_ms:g} ms, "
          f"concurrency {args.concurrency}")
    print(f"cases the gate lets through (a model call can change the verdict): {gated}")
    print(f"every check, one request each : {every.calls / n:.3f} calls/case  "
          f"({every.calls} calls, {times[0]:.2f} s)")
    print(f"evaldsl (lazy + fused)        : {lazy.calls / n:.3f} calls/case  "
          f"({lazy.calls} calls, {times[1]:.2f} s)   target <= 0.75")
    print(f"evaldsl, cached re-run        : {cached.calls / n:.3f} calls/case  "
          f"({cached.cached} answers from cache, {times[2]:.2f} s)   target 0")
    print(f"same verdicts as every check  : {labels == truth and again == truth} "
          f"({sum(labels[k] == truth[k] for k in truth)}/{n})")
    print(f"wall time {times[1]:.2f} s vs ideal {ideal:.2f} s (calls x latency / concurrency): "
          f"{times[1] / ideal if ideal else float('nan'):.2f}x   target <= 1.25x")
    own = CPU[1]
    per_call = own / lazy.calls * 1000 if lazy.calls else float("nan")
    print(f"client CPU of the lazy run: {own:.2f} s ({per_call:.2f} ms per call; "
          f"{args.latency_ms / args.concurrency:.2f} ms per call is the ideal's pace on one "
          "core); "
          f"load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    sys.exit(main())
