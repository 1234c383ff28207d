"""How fast `evaldsl check` is: parse + check of 1,000 generated ~100-line specs.

Each spec is realistic: a case block, lets, a dozen checks of the standard
library (deterministic and model-backed, with maps and lists over several
lines), a verdict and a named outcome, metrics with `where`, a review block
and an example. The parser and the registry are warmed up first, so the
figure is the steady-state cost per spec on one core, which is what an
editor integration or `evaldsl check specs/` in CI pays.

    python benchmarks/check_speed.py [--specs 1000] [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from evaldsl.checker import check_module
from evaldsl.primitives.registry import default_registry
from evaldsl.syntax.parser import parse

TARGET_MS = 5.0
WORDS = ("intent", "polite", "fast", "brief", "booked", "calm", "safe", "steps", "facts", "tone",
         "reply", "greeting", "closing", "empathy", "accuracy", "意图", "礼貌", "完整", "效率")


def spec_text(rng: random.Random, index: int) -> str:
    """One spec of about 100 lines."""
    names = rng.sample(WORDS, 14)
    lines = [f'# generated spec {index}', f'spec "benchmark {index} - 预约维修服务"', "",
             "case {", "  intent: text", "  lang: text", "  solvable: bool?", "}", "",
             f"let threshold = {rng.choice(('0.8', '75%', '0.6'))}",
             "let labels = {", '  booking: "预约服务",', '  inquiry: "咨询信息",',
             '  complaint: "投诉反馈",', '  other: "其他",', "}", ""]
    for name in names:
        lines += _check(rng, name)
    a, b, c, d = names[:4]
    lines += ["", "outcome {",
              f"  success if {a}.passed and {b} >= threshold and {c}",
              f"  partial if {a}.passed and {b} >= 0.5",
              "  failure otherwise", "}", "",
              f"let overall = 40 * {b} + 30 * {c}.score + 30 * {d}", "",
              "outcome level {", "  excellent if overall >= 80", "  acceptable if overall >= 60",
              "  poor otherwise", "}", ""]
    for k, name in enumerate(names):
        where = rng.choice(("", f" where {a}.passed", ' where case.lang == "zh"',
                            f" where {name} >= 0.5 and case.solvable"))
        value = rng.choice((f"rate({name})", f"mean({name})", f"rate({name}.passed) * 100",
                            f"percentile({name}, 90)"))
        lines.append(f"metric m{k}_{name} = {value}{where}")
    lines += ["metric success_rate = rate(success) + 0.5 * rate(partial)",
              "metric pass_rate = rate(success or partial)",
              'metric excellent_share = rate(level == "excellent")', "",
              "review (seed: 7) {", '  sample 30% where level == "poor" priority 100 - overall',
              "  sample 2% where partial priority 100 - overall", "}", "",
              f'example "happy path {index}" {{', '  case {intent: "booking", lang: "zh"}',
              '  user "你好，我想预约明天上午的空调维修"',
              '  assistant "好的，请问您的姓名和电话？" {latency_ms: 800}',
              f"  given {a} = true", f"  given {b}.score = 0.9", "  expect success", "}"]
    return "\n".join(lines) + "\n"


def _check(rng: random.Random, name: str) -> list[str]:
    kind = rng.choice(("keyword", "judge", "classify", "slots", "latency", "length", "regex",
                       "steps"))
    if kind == "keyword":
        return [f'check {name} = keyword(any: ["您好", "hello", "请问"], scope: each_reply)']
    if kind == "judge":
        return [f'check {name} = judge(criteria: "服务态度是否专业、礼貌", scale: 10, min: 7)']
    if kind == "classify":
        return [f"check {name} = classify(scope: first_user, labels: labels, "
                "expect: case.intent)"]
    if kind == "slots":
        return [f"check {name} = slots(scope: dialog, min: 0.6, slots: {{",
                '  user_name: "用户姓名",', '  phone: "联系电话",', '  address: "服务地址",',
                '  time: "预约时间",', "})"]
    if kind == "latency":
        return [f"check {name} = latency(scope: each_reply, max_ms: {rng.randint(1, 9)}000)"]
    if kind == "length":
        return [f"check {name} = length(scope: each_reply, max_chars: {rng.randint(100, 500)})"]
    if kind == "regex":
        return [f'check {name} = regex(pattern: "1[3-9][0-9]{{9}}", scope: replies)']
    return [f"check {name} = steps(ordered: true, steps: [", '  "问候客户",', '  "确认需求",',
            '  "登记信息",', '  "确认预约",', "])"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--specs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.specs = 30
    rng = random.Random(args.seed)
    texts = [spec_text(rng, i) for i in range(args.specs)]
    registry = default_registry()
    for text in texts[:20]:
        _parse_and_check(text, registry)
    times = []
    errors = 0
    cpu_start = time.process_time()
    for text in texts:
        start = time.perf_counter()
        found = _parse_and_check(text, registry)
        times.append((time.perf_counter() - start) * 1000)
        errors += sum(1 for d in found if d.is_error)
    cpu = (time.process_time() - cpu_start) * 1000 / len(texts)
    lines = statistics.mean(t.count("\n") for t in texts)
    median, mean = statistics.median(times), statistics.mean(times)
    fastest_tenth = statistics.quantiles(times, n=10)[0]
    print(f"specs: {len(texts)}, lines per spec: {lines:.0f}, errors found: {errors}, "
          f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"parse+check per spec: median {median:.2f} ms, mean {mean:.2f} ms, "
          f"CPU {cpu:.2f} ms (target < {TARGET_MS:g} ms): "
          f"{'ok' if median < TARGET_MS else 'ABOVE TARGET'}")
    print(f"fastest 10% at most {fastest_tenth:.2f} ms (the figure for a core nobody else uses "
          "when the machine is busy)")


def _parse_and_check(text: str, registry: object) -> list:  # type: ignore[type-arg]
    result = parse(text, "bench.eval")
    if result.module is None:
        return result.diagnostics
    return check_module(result.module, result.source, registry)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
