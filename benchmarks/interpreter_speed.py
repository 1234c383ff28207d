"""Interpreter speed, and model calls only where a cheap gate leaves the verdict open.

    python benchmarks/interpreter_speed.py [--cases 100000] [--model-cases 2000] [--counting]

1. A deterministic spec of 8 standard-library checks (keyword, regex, latency,
   length, turns) with two outcome blocks and six metrics is
   evaluated over generated 6-turn dialogs (3 user, 3 assistant), already in
   memory: evaluation alone, on one core. Prints dialogs per second by CPU time
   (the figure for one core, unaffected by other processes) and by wall time;
   the target is at least 20,000 per second.
2. A spec whose model check (`judge`) is needed only when a cheap `keyword`
   gate passes is run through the default model runtime against the project's
   OpenAI-compatible test server (tests/support/openai_server.py; `--counting`
   uses an in-process counting runtime instead). Prints the model calls made
   and the cases that needed one: they must be equal.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import evaldsl
from evaldsl.cases.case import Case
from evaldsl.model.requests import ModelRequest, ModelStats
from evaldsl.values import CheckResult

ROOT = Path(__file__).resolve().parents[1]

DETERMINISTIC = """\
spec "interpreter speed"
check greets = keyword(scope: first_user, any: ["hello", "hi", "你好"])
check asks_name = keyword(scope: replies, any: ["name", "姓名"], none: ["stupid", "笨"])
check ticket = regex(scope: replies, pattern: "T-[0-9]{4}")
check no_card = regex(scope: replies, pattern: "[0-9]{16}", must_match: false)
check fast = latency(scope: each_reply, max_ms: 3000)
check short = length(scope: each_reply, max_chars: 200)
check brief = turns(max: 8)
check closing = keyword(scope: last_reply, any: ["anything else", "订单"])
outcome {
  success if greets and asks_name and ticket and fast and no_card
  partial if asks_name or ticket
  failure otherwise
}
outcome pace {
  quick if fast and brief
  slow otherwise
}
metric success_rate = rate(success) + 0.5 * rate(partial)
metric pass_rate = rate(success or partial)
metric fast_rate = rate(fast) where greets
metric avg_short = mean(short)
metric closing_rate = rate(closing)
metric p90_latency = percentile(fast.value, 90)
"""

GATED = """\
spec "gated judge"
check polite = judge(criteria: "服务态度是否专业、礼貌", scale: 10, min: 6)
check on_topic = keyword(scope: replies, any: ["订单", "order"])
outcome {
  good if polite and on_topic
  bad otherwise
}
metric good_rate = rate(good)
"""

USER = ["hello, where is my order?", "hi, I need help", "你好，我的订单呢", "my name is Li",
        "thanks", "the parcel is late again", "谢谢", "can you check it?"]
REPLY = ["Sure, what is your name?", "Your ticket is T-%04d.", "请问您的姓名？",
         "We will look into the order.", "订单已发货。", "Anything else?", "Sorry, stupid me."]


def dialogs(count: int, seed: int = 7) -> list[Case]:
    """Deterministic 6-turn dialogs (user, assistant x 3) with latencies."""
    rnd = random.Random(seed)
    out = []
    for i in range(count):
        messages = []
        for _ in range(3):
            messages.append({"role": "user", "content": rnd.choice(USER)})
            reply = rnd.choice(REPLY).replace("%04d", f"{rnd.randint(0, 9999):04d}")
            messages.append({"role": "assistant", "content": reply,
                             "latency_ms": rnd.randint(200, 4000)})
        out.append(Case.from_dict({"id": f"d{i}", "messages": messages}))
    return out


def speed(count: int) -> None:
    spec = evaldsl.loads(DETERMINISTIC)
    cases = dialogs(count)
    for case in cases[:2000]:
        spec.evaluate(case)
    evaluate = spec.evaluate
    wall, cpu = time.perf_counter(), time.process_time()
    for case in cases:
        evaluate(case)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    report = spec.run(cases[:20000])
    print(f"deterministic spec, 8 checks, {count:,} six-turn dialogs, evaluation alone:")
    print(f"  {count / cpu:,.0f} dialogs/s by CPU time ({cpu:.2f} s), "
          f"{count / wall:,.0f} by wall time ({wall:.2f} s)   target >= 20,000")
    print(f"  e.g. {report.metric('success_rate').describe()}")
    print(f"  (the machine's load average was {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores)")


class CountingRuntime:
    """Answers every model check with a pass, counting requests (for `--counting`)."""

    def __init__(self) -> None:
        self.calls = 0

    async def resolve(self, case: Case, requests: Sequence[ModelRequest]) -> list[CheckResult]:
        self.calls += len(requests)
        return [CheckResult.of(True, 0.8, 8) for _ in requests]

    def stats(self) -> ModelStats:
        return ModelStats(calls=self.calls)


def gated(count: int, counting: bool) -> None:
    cases = [Case.from_dict({"id": c.id, "messages": [
        {"role": m.role, "content": m.content, "latency_ms": m.latency_ms}
        for m in c.messages]}) for c in dialogs(count, seed=11)]
    if counting:
        runtime = CountingRuntime()
        spec = evaldsl.loads(GATED, runtime=runtime)
        calls, served = _run(spec, cases), "in-process counting runtime"
        made = runtime.calls
    else:
        made, calls, served = _run_on_test_server(cases)
    needed = sum(1 for r in calls if r.checks["on_topic"].passed is not False)
    print(f"gated model check over {count:,} dialogs ({served}):")
    print(f"  model calls made: {made}; cases that needed one (gate passed): {needed}; "
          f"equal: {made == needed}")


def _run(spec: Any, cases: list[Case]) -> list[evaldsl.CaseResult]:
    async def all_cases() -> list[evaldsl.CaseResult]:
        return list(await asyncio.gather(*(spec.evaluate_async(c) for c in cases)))
    return asyncio.run(all_cases())


def _run_on_test_server(cases: list[Case]) -> tuple[int, list[evaldsl.CaseResult], str]:
    from evaldsl.model import Settings

    module = _server_module()
    server = module.start()
    try:
        env = {"EVALDSL_JUDGE_BASE_URL": server.base_url, "EVALDSL_JUDGE_API_KEY": "bench",
               "EVALDSL_NO_CACHE": "1", "EVALDSL_JUDGE_CONCURRENCY": "32"}
        spec = evaldsl.loads(GATED, settings=Settings.load(env=env))
        results = _run(spec, cases)
        stats = spec.model_stats()
        server_calls = server.stats()["chat"]
        spec.close()
    finally:
        server.stop()
    return stats.calls, results, f"OpenAI-compatible test server, {server_calls} requests seen"


def _server_module() -> Any:
    """The project's OpenAI-compatible test server module (tests/support/openai_server.py)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.support import openai_server

    return openai_server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--model-cases", type=int, default=2000)
    parser.add_argument("--counting", action="store_true",
                        help="count calls in-process instead of using the test server")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args(argv)
    if args.smoke:
        args.cases, args.model_cases = 500, 40
    speed(args.cases)
    gated(args.model_cases, args.counting)
    return 0


if __name__ == "__main__":
    sys.exit(main())
