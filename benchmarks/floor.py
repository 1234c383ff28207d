"""How far `evaldsl run` is from the floor: a plain Python script doing the same five checks.

The peer harness's deterministic workload (../shared/bench, or `EVALDSL_SHARED_BENCH`;
rows converted to evaldsl cases as `peer_bench.py` converts them) is judged two ways,
each a fresh process over the same cases file:

- the floor, `floor()` below: about fifty lines of hand-written Python that read each
  case, apply the contract's five checks (keywords, forbidden words, regex, latency,
  JSON; benchlib.py) and write one verdict line per case;
- `evaldsl run` of `peer_specs/bench_det.eval`, writing results.jsonl and report.json
  as the harness runs it.

CPU seconds (user + system of the child), one run each way interleaved, `--runs` times
per size; prints the median of each and the ratio evaldsl / floor (target at most 4x),
and the microseconds per case of both.

    python benchmarks/floor.py [--sizes 20000,200000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

TARGET = 4.0
"""evaldsl's CPU time over the floor's, at most."""


def floor(cases: Path, out: Path) -> None:
    """The five checks of benchlib.py over every case, one verdict line each: the floor."""
    passed = {"pass": 0, "keywords": 0, "forbidden": 0, "regex": 0, "latency": 0, "json": 0}
    patterns: dict[str, re.Pattern[str]] = {}
    with cases.open(encoding="utf-8") as rows, out.open("w", encoding="utf-8") as verdicts:
        for line in rows:
            if not line.strip():
                continue
            case = json.loads(line)
            expect = case["expect"]
            reply, latency = "", 0
            for message in case["messages"]:
                if message["role"] == "assistant":
                    reply = message["content"]
                    latency = max(latency, message.get("latency_ms", 0))
            low = reply.casefold()
            pattern = patterns.get(expect["regex"])
            if pattern is None:
                pattern = patterns[expect["regex"]] = re.compile(expect["regex"])
            checks = {
                "keywords": all(k.casefold() in low for k in expect["required_keywords"]),
                "forbidden": not any(w.casefold() in low for w in expect["forbidden_words"]),
                "regex": pattern.search(reply) is not None,
                "latency": latency <= expect["max_latency_ms"],
            }
            if expect.get("must_be_json"):
                try:
                    json.loads(reply)
                    checks["json"] = True
                except ValueError:
                    checks["json"] = False
            verdict = all(checks.values())
            for name, value in checks.items():
                passed[name] += value
            passed["pass"] += verdict
            verdicts.write(json.dumps({"id": case["id"], "pass": verdict, "checks": checks},
                                      ensure_ascii=False) + "\n")
    print(json.dumps(passed))


def workload(folder: Path, bench: Path, size: int) -> Path:
    """The harness's workload of `size` cases (seed 7), as evaldsl cases."""
    from peer_bench import to_cases

    raw = folder / f"workload-{size}.jsonl"
    subprocess.run([sys.executable, str(bench / "gen_workload.py"), "-n", str(size),
                    "--seed", "7", "-o", str(raw)], check=True, capture_output=True)
    cases = folder / f"cases-{size}.jsonl"
    to_cases(raw, cases)
    raw.unlink()
    return cases


def cpu_of(command: list[str], cwd: Path) -> tuple[float, str]:
    """CPU seconds of one child process, and what it printed; it must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, done.stdout


def same_verdicts(folder: Path) -> None:
    """evaldsl's verdicts are the floor's, case by case: the two did the same work."""
    floor_says = {}
    with (folder / "verdicts.jsonl").open(encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            floor_says[row["id"]] = row["pass"]
    with (folder / "results.jsonl").open(encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            if "id" in row and floor_says.pop(row["id"]) != (row["labels"]["outcome"] == "pass"):
                sys.exit(f"evaldsl and the floor disagree on case {row['id']}")
    if floor_says:
        sys.exit(f"evaldsl judged no result for {len(floor_says)} cases")


def measure(folder: Path, cases: Path, runs: int) -> tuple[list[float], list[float]]:
    from startup import evaldsl_command

    floor_cmd = [sys.executable, str(Path(__file__).resolve()), "--floor", str(cases),
                 str(folder / "verdicts.jsonl")]
    run_cmd = [*evaldsl_command(), "run", str(HERE / "peer_specs" / "bench_det.eval"),
               str(cases), "--results", "results.jsonl", "-o", "report.json",
               "--concurrency", "16", "--overwrite", "--no-progress", "--quiet"]
    floors, runs_cpu = [], []
    for _ in range(runs):
        floors.append(cpu_of(floor_cmd, folder)[0])
        runs_cpu.append(cpu_of(run_cmd, folder)[0])
    same_verdicts(folder)
    return floors, runs_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,200000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    parser.add_argument("--floor", nargs=2, type=Path, metavar=("CASES", "OUT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:  # the floor's own process: nothing imported beyond the standard library
        floor(*args.floor)
        return
    sys.path.insert(0, str(HERE))
    from startup import shared_bench

    if args.smoke:
        args.sizes, args.runs = "200", 1
    bench = shared_bench()
    if bench is None:
        print("skipped: the peer harness (../shared/bench or EVALDSL_SHARED_BENCH) is not "
              "present, so there is no det workload")
        return
    print(f"CPU seconds, median of {args.runs} (one run each way interleaved), whole process")
    with tempfile.TemporaryDirectory(prefix="evaldsl-floor-") as scratch:
        folder = Path(scratch)
        for size in (int(s) for s in args.sizes.split(",")):
            cases = workload(folder, bench, size)
            floors, runs = measure(folder, cases, args.runs)
            f, r = statistics.median(floors), statistics.median(runs)
            verdict = "ok" if r <= TARGET * f else "over"
            print(f"  {size:>8,} cases  floor {f:7.3f} s ({f / size * 1e6:5.1f} us/case)   "
                  f"evaldsl run {r:7.3f} s ({r / size * 1e6:6.1f} us/case)   "
                  f"ratio {r / f:5.2f}x  target <= {TARGET:.0f}x  {verdict}")
            cases.unlink()


if __name__ == "__main__":
    main()
