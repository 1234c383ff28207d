"""Wall time of `evaldsl run --workers 1` and `--workers 2` on a deterministic spec.

    python benchmarks/workers_speed.py [--cases 200000] [--reps 3] [--workers 1,2]

Generates the 6-turn dialogs and the 8-check spec of benchmarks/run_overhead.py,
then runs `evaldsl run SPEC CASES -o report.json --results results.jsonl
--junit junit.xml` once per worker count per repetition (repetitions are the
outer loop, so machine noise spreads over every count). Each run is a
subprocess that reports its own CPU and its workers' apart. Prints the median
wall time (min-max) per count, the CPU split, the speed-up over one process
(the scale-out target is at least 1.7x with two workers) and the load average,
and checks that every count wrote the same report.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_overhead import SPEC, generate  # noqa: E402

RUN = """
import json, resource, sys
from evaldsl.cli.main import main
code = main(sys.argv[1:])
own = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"own": own.ru_utime + own.ru_stime, "workers": kids.ru_utime + kids.ru_stime}),
      file=sys.stderr)
sys.exit(code)
"""
"""`evaldsl run` in a process that reports its CPU and its workers' (as `-c`, so the workers
have no main module to import again)."""


class Timing(NamedTuple):
    wall: float
    own: float
    """CPU seconds of the parent process."""
    workers: float
    """CPU seconds of its worker processes."""


def run(spec: Path, cases: Path, out: Path, workers: int) -> Timing:
    args = [sys.executable, "-c", RUN, "run", str(spec), str(cases), "-o", str(out / "report.json"),
            "--results", str(out / "results.jsonl"), "--junit", str(out / "junit.xml"),
            "--workers", str(workers), "--no-progress", "--quiet"]
    started = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"evaldsl run --workers {workers} failed ({done.returncode}):\n"
                         f"{done.stderr}")
    cpu = json.loads(done.stderr.strip().splitlines()[-1])
    return Timing(wall, cpu["own"], cpu["workers"])


def report_of(out: Path) -> dict[str, object]:
    report = json.loads((out / "report.json").read_text("utf-8"))
    return {k: v for k, v in report.items() if k != "run"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=200_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.cases, args.reps = 1000, 2
    counts = [int(n) for n in args.workers.split(",")]
    timings: dict[int, list[Timing]] = {n: [] for n in counts}
    reports = {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        spec, cases = folder / "workers.eval", folder / "cases.jsonl"
        spec.write_text(SPEC, encoding="utf-8")
        generate(cases, args.cases)
        for rep in range(args.reps):
            for n in counts:
                out = folder / f"w{n}-{rep}"  # `run` refuses to overwrite a journal
                out.mkdir()
                timings[n].append(run(spec, cases, out, n))
                reports[n] = report_of(out)
    assert all(r == reports[counts[0]] for r in reports.values()), "reports differ"
    print(f"{args.cases:,} cases, 8 deterministic checks, report.json + results.jsonl + "
          f"junit.xml; median of {args.reps} (min-max)")
    base = statistics.median(t.wall for t in timings[counts[0]])
    for n in counts:
        walls = [t.wall for t in timings[n]]
        wall = statistics.median(walls)
        own = statistics.median(t.own for t in timings[n])
        workers = statistics.median(t.workers for t in timings[n])
        print(f"--workers {n}: wall {wall:6.2f} s ({min(walls):.2f}-{max(walls):.2f})  "
              f"{args.cases / wall:8,.0f} cases/s   cpu: parent {own:6.2f} s, "
              f"workers {workers:6.2f} s   x{base / wall:.2f} of --workers {counts[0]}")
    print(f"the same report from every count; load average now {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
