"""A judged run on Ray under one global limit: its peak in flight, its wall time against the ideal.

    python benchmarks/ray_judged.py [--cases 2000] [--latency-ms 250] [--limit 16] [--actors 2]

Starts the project's OpenAI-compatible test server (tests/support/openai_server.py)
answering `--latency-ms` after each request, and runs `evaldsl run SPEC CASES
--engine ray --actors N --no-cache` with a judge concurrency of `--limit` (the
run's one `RateGate`) and `--in-flight` cases in flight in each actor, so that
the actors together would send far more than the limit if it did not hold.
The spec (the run tests' `MODEL_SPEC`) has one model check per case, so a case is
one request.

Prints the server's peak of requests in flight (it must not exceed the limit),
the ideal `requests x latency / limit`, and two wall times against it: the whole
command (Ray's start, the fold and the reports included), and the judging span
from the first request's arrival to the last answer.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import openai_server  # noqa: E402
from tests.support.run_kit import MODEL_SPEC, write_cases  # noqa: E402

TARGET = 1.25


def run(spec: Path, cases: Path, out: Path, server: openai_server.RunningServer,
        args: argparse.Namespace) -> tuple[float, float]:
    """When the command started and ended (`time.monotonic`, the server's clock); it must
    exit 0."""
    command = [sys.executable, "-m", "evaldsl", "run", str(spec), str(cases),
               "-o", str(out / "report.json"), "--judge", server.base_url, "--no-cache",
               "--engine", "ray", "--actors", str(args.actors),
               "--concurrency", str(args.in_flight), "--no-progress", "--quiet"]
    env = {**os.environ, "EVALDSL_JUDGE_API_KEY": "bench",
           "EVALDSL_JUDGE_CONCURRENCY": str(args.limit)}
    started = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    ended = time.monotonic()
    if done.returncode != 0:
        raise SystemExit(f"evaldsl run failed ({done.returncode}):\n{done.stderr}")
    return started, ended


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=250.0)
    parser.add_argument("--limit", type=int, default=16, help="the judge's global concurrency")
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--in-flight", type=int, default=32, help="cases in flight per actor")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.cases, args.latency_ms, args.actors = 60, 10.0, 1
    server = openai_server.start()
    try:
        server.control(latency_ms=args.latency_ms)
        with tempfile.TemporaryDirectory(prefix="evaldsl-ray-judged-") as folder:
            root = Path(folder)
            spec, cases = root / "spec.eval", root / "cases.jsonl"
            spec.write_text(MODEL_SPEC, encoding="utf-8")
            write_cases(cases, args.cases)
            started, ended = run(spec, cases, root, server, args)
            report = json.loads((root / "report.json").read_text("utf-8"))
        stats = server.stats()
    finally:
        server.stop()
    calls, peak, starts = stats["chat"], stats["peak_in_flight"], stats["starts"]
    latency = args.latency_ms / 1000
    ideal = calls * latency / args.limit
    first, last = min(starts), max(starts) + latency
    span, wall = last - first, ended - started
    errored, model_errors = report["cases"]["errored"], report["cost"]["model_errors"]
    print(f"{args.cases} cases on Ray, {args.actors} actors x {args.in_flight} in flight, "
          f"global limit {args.limit}, server latency {args.latency_ms:g} ms")
    print(f"requests: {calls}; cases errored: {errored}, model errors: {model_errors}")
    print(f"peak in flight at the server: {peak} (limit {args.limit}: "
          f"{'held' if peak <= args.limit else 'EXCEEDED'})")
    print(f"ideal (requests x latency / limit): {ideal:.2f} s")
    print(f"judging span, first request to last answer: {span:.2f} s = {span / ideal:.2f}x "
          f"the ideal (target <= {TARGET}x)")
    print(f"whole command, Ray's start and the reports included: {wall:.2f} s = "
          f"{wall / ideal:.2f}x the ideal: {first - started:.2f} s to the first request, "
          f"{ended - last:.2f} s after the last answer")
    if peak > args.limit or errored:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
