"""Whole-process wall times of what a user types: `import evaldsl`, `check`, a small `run`.

Three figures, each the median of `--runs` runs after one warm-up, every run a
fresh Python process (so imports, registry set-up and the grammar are paid
each time, as a user pays them):

- `import evaldsl` (target at most 0.15 s);
- `evaldsl check` on one generated ~100-line spec (target at most 0.25 s);
- `evaldsl run` of the peer harness's deterministic spec over its 2,000-case
  workload, writing results.jsonl and report.json as the harness does (target
  at most 0.45 s). The workload comes from ../shared/bench (or
  `EVALDSL_SHARED_BENCH`); without it that row is skipped with the reason.

The children run without `PYTHONDONTWRITEBYTECODE`, whatever this process has:
an installed package has its bytecode, so the warm-up run writes it and the
counted runs read it, as a user's commands do. Without that an editable
install recompiles evaldsl's source in every process (about 90 ms more).

    python benchmarks/startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from check_speed import spec_text  # noqa: E402
from peer_bench import to_cases  # noqa: E402

TARGETS = {"import evaldsl": 0.15, "evaldsl check (100 lines)": 0.25,
           "evaldsl run det (2,000 cases)": 0.45}
"""Seconds, whole-process wall time, median."""


def evaldsl_command() -> list[str]:
    """The installed console script beside this interpreter, else `python -m evaldsl`."""
    script = Path(sys.executable).with_name("evaldsl")
    return [str(script)] if script.exists() else [sys.executable, "-m", "evaldsl"]


def median_wall(command: list[str], runs: int, cwd: Path, env: dict[str, str]
                ) -> tuple[float, float]:
    """Median wall and CPU seconds of `command` over `runs` runs after one warm-up.

    The command must exit 0. What an earlier run wrote in `cwd` (results.jsonl,
    report.json) is removed first, so every run starts as the first did. CPU
    time (user + system of the child) moves less than wall time when other
    processes share the cores.
    """
    times, cpus = [], []
    for i in range(runs + 1):
        for output in ("results.jsonl", "report.json"):
            (cwd / output).unlink(missing_ok=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
        if i:
            times.append(elapsed)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times), statistics.median(cpus)


def shared_bench() -> Path | None:
    configured = os.environ.get("EVALDSL_SHARED_BENCH")
    folder = Path(configured) if configured else REPO.parent / "shared" / "bench"
    return folder if (folder / "gen_workload.py").is_file() else None


def det_workload(folder: Path, bench: Path) -> Path:
    """The harness's 2,000-case workload (seed 7), as evaldsl cases."""
    raw = folder / "workload.jsonl"
    subprocess.run([sys.executable, str(bench / "gen_workload.py"), "-n", "2000", "--seed", "7",
                    "-o", str(raw)], check=True, capture_output=True)
    cases = folder / "cases.jsonl"
    to_cases(raw, cases)
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.runs = 1
    env = {name: value for name, value in os.environ.items()
           if name != "PYTHONDONTWRITEBYTECODE"}
    env["EVALDSL_NO_CACHE"] = "1"
    work = Path(tempfile.mkdtemp(prefix="evaldsl-startup-"))
    try:
        spec = work / "spec.eval"
        spec.write_text(spec_text(random.Random(7), 0), encoding="utf-8")
        lines = spec.read_text(encoding="utf-8").count("\n")
        cli = evaldsl_command()
        rows = {
            "import evaldsl": median_wall([sys.executable, "-c", "import evaldsl"], args.runs,
                                          work, env),
            "evaldsl check (100 lines)": median_wall([*cli, "check", str(spec)], args.runs,
                                                     work, env),
        }
        bench = shared_bench()
        if bench is None:
            print("skipped `evaldsl run`: the peer harness (../shared/bench) is not present")
        else:
            cases = det_workload(work, bench)
            run = [*cli, "run", str(HERE / "peer_specs" / "bench_det.eval"), str(cases),
                   "--results", "results.jsonl", "-o", "report.json", "--concurrency", "16"]
            rows["evaldsl run det (2,000 cases)"] = median_wall(run, args.runs, work, env)
        print(f"whole-process wall time, median of {args.runs} (spec of {lines} lines), "
              f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores, "
              "with bytecode (children run without PYTHONDONTWRITEBYTECODE)")
        for name, (seconds, cpu) in rows.items():
            target = TARGETS[name]
            verdict = "ok" if seconds <= target else "over"
            print(f"  {name:32} {seconds:6.3f} s   target <= {target:.2f} s   {verdict}"
                  f"   (CPU {cpu:.3f} s)")
        print(json.dumps({name: round(s, 4) for name, (s, _) in rows.items()}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
