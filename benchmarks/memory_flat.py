"""Peak memory of a deterministic run over 10,000 and 100,000 cases: it must stay flat.

Each size runs in a fresh subprocess that streams a generated JSONL file
through `evaldsl.cases.loading.read_cases` into `Spec.run` and reports its peak
resident set size (`ru_maxrss`). Cases are never all in memory, so the peak
of the 100,000-case run should match the 10,000-case one (the report holds
mergeable counters, not per-case results). The spec has no `percentile`
metric on purpose: an exact percentile keeps every value (about 32 bytes a
case), which is the aggregate's cost, not the stream's.

    python benchmarks/memory_flat.py                 # 10,000 and 100,000 cases
    python benchmarks/memory_flat.py --sizes 1000 20000
    python benchmarks/memory_flat.py --smoke         # 200 and 2,000 cases: it runs
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SPEC = """
spec "memory benchmark: deterministic checks"

case {
  expected_call: map
  required: list
}

table loose (nfkc, casefold, strip) { "华东", "east china" -> "east" }

check words    = keyword(scope: last_reply, all: case.required, table: loose)
check order_no = regex(scope: replies, pattern: "订单号[:：]?\\\\s*[A-Z]{2}\\\\d{6}")
check fast     = latency(scope: each_reply, max_ms: 3000)
check brief    = length(scope: each_reply, max_chars: 120)
check short    = turns(max: 4)
check mood     = signals()
check safe     = safety()
check call     = args_match(expected: case.expected_call, tables: {region: loose})

outcome {
  good if words and fast and call and safe
  fair if call
  bad otherwise
}

metric good_rate   = rate(good)
metric call_strict = rate(call.strict)
metric mean_words  = mean(words)
metric fast_rate   = rate(fast) where call
metric mean_mood   = mean(mood)
"""

REGIONS = ["east", "East China", "华东", "north", "south"]
CITIES = ["北京", "上海", "杭州", "深圳", "成都"]


def make_case(i: int, rnd: random.Random) -> dict[str, Any]:
    """One generated 3-turn dialog with a tool call, latencies and case fields."""
    city, region = rnd.choice(CITIES), rnd.choice(REGIONS)
    order = f"订单号 AB{rnd.randrange(10**6):06d}"
    args = {"city": city, "region": region, "qty": rnd.choice([1, 2, "2"])}
    return {
        "id": f"case-{i}",
        "messages": [
            {"role": "user", "content": f"帮我在{city}下单，发往{region}，两件，谢谢"},
            {"role": "assistant", "content": "", "latency_ms": rnd.randrange(200, 4000),
             "tool_calls": [{"id": "c0", "type": "function", "function": {
                 "name": "place_order", "arguments": json.dumps(args, ensure_ascii=False)}}]},
            {"role": "tool", "tool_call_id": "c0", "content": "ok"},
            {"role": "assistant", "content": f"已为您在{city}下单，{order}，预计两天送达。",
             "latency_ms": rnd.randrange(200, 4000)},
            {"role": "user", "content": rnd.choice(["好的，谢谢", "太慢了", "嗯"])},
        ],
        "expected_call": {"name": "place_order",
                          "args": {"city": city, "region": "east", "qty": 2}},
        "required": ["下单", city],
    }


def generate(path: Path, n: int) -> None:
    rnd = random.Random(n)
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            handle.write(json.dumps(make_case(i, rnd), ensure_ascii=False) + "\n")


def peak_mb() -> float:
    """Peak resident set size of this process in MiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def child(cases_file: Path) -> None:
    """Load the spec, stream the file through the loader, print figures as JSON."""
    import evaldsl
    from evaldsl.cases.case import Case
    from evaldsl.cases.loading import read_cases
    from evaldsl.cases.rows import CaseSchema

    spec = evaldsl.loads(SPEC)
    baseline = peak_mb()
    started = time.perf_counter()
    stream = (c for c in read_cases(cases_file, CaseSchema.of(spec), "skip")
              if isinstance(c, Case))
    report = spec.run(stream).to_dict()
    elapsed = time.perf_counter() - started
    print(json.dumps({"cases": report["cases"], "baseline_mb": baseline, "peak_mb": peak_mb(),
                      "seconds": elapsed, "outcomes": report["outcomes"]["outcome"]}))


def measure(n: int, folder: Path) -> dict[str, Any]:
    path = folder / f"cases_{n}.jsonl"
    generate(path, n)
    out = subprocess.run([sys.executable, __file__, "--child", str(path)], check=True,
                         capture_output=True, text=True)
    path.unlink()
    figures: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--smoke", action="store_true", help="a tiny size: 200 and 2,000 cases")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.smoke:
        args.sizes = [200, 2000]
    if args.child:
        child(args.child)
        return 0
    with tempfile.TemporaryDirectory() as folder:
        rows = [measure(n, Path(folder)) for n in args.sizes]
    print(f"{'cases':>9} {'after load':>11} {'peak RSS':>9} {'growth':>8} {'seconds':>8} "
          f"{'cases/s':>8}")
    for row in rows:
        growth = row["peak_mb"] - row["baseline_mb"]
        print(f"{row['cases']:>9,} {row['baseline_mb']:>9.1f}MB {row['peak_mb']:>7.1f}MB "
              f"{growth:>6.1f}MB {row['seconds']:>8.1f} {row['cases'] / row['seconds']:>8.0f}")
    small, large = rows[0], rows[-1]
    flat = large["peak_mb"] <= small["peak_mb"] * 1.10 + 5
    print(f"memory {'flat' if flat else 'NOT flat'}: {large['cases']:,} cases peak "
          f"{large['peak_mb']:.1f} MB vs {small['cases']:,} cases {small['peak_mb']:.1f} MB "
          f"({large['peak_mb'] / small['peak_mb']:.2f}x)")
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
