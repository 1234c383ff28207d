"""Wall time and peak memory per process of `evaldsl run` scaled out three ways.

    python benchmarks/scale_out.py [--cases 1000000]

Generates `--cases` 6-turn dialogs for the 8-check deterministic spec of
benchmarks/run_overhead.py and runs `evaldsl run SPEC CASES -o report.json
--results results.jsonl` with `--workers 1` (in process), `--workers 2` (a pool of
two processes) and `--engine ray --actors 2` (a local Ray started by the run).
While each runs, the resident set size of every process of its tree is sampled
(Linux `/proc`, every 0.2 s), so the figures are the wall time and the peak
resident and private (anonymous) memory of each process by its title: the driver,
the workers or actors, Ray's own daemons. Every way must write the same report (the
`run` section aside).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_overhead import SPEC, generate  # noqa: E402

WAYS = {"--workers 1": ["--workers", "1"], "--workers 2": ["--workers", "2"],
        "--engine ray, 2 actors": ["--engine", "ray", "--actors", "2"]}
RAY_TITLE = re.compile(r"ray::\w+(\([^ ]*?\)+)?")
"""A Ray worker's title up to its actor (`ray::MapWorker(MapBatches(BatchJudge))`)."""


def tree(root: int) -> list[int]:
    """`root` and every process it started that is still alive."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        for listing in Path(f"/proc/{pid}/task").glob("*/children"):
            try:
                todo.extend(map(int, listing.read_text().split()))
            except OSError:
                continue
    return found


def sample(pid: int) -> tuple[str, int, int] | None:
    """A process's title (its command line, cut short; a Ray worker's names its actor, not the
    method it runs), its resident KiB and its private (anonymous) resident KiB, or None if
    gone. The difference is mapped files and shared memory: for a Ray process, mostly the
    pages of the object store it touched, which the store holds once for every process."""
    try:
        title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        status = Path(f"/proc/{pid}/status").read_text()
        resident, private = (int(re.search(rf"^{field}:\s+(\d+)", status, re.M).group(1))
                             for field in ("VmRSS", "RssAnon"))  # type: ignore[union-attr]
    except (OSError, ValueError, AttributeError):
        return None
    actor = RAY_TITLE.match(title)
    if actor is not None:
        title = actor.group(0)
    return title[:60].strip(), resident, private


Peaks = dict[str, tuple[int, int]]


def run(spec: Path, cases: Path, out: Path, flags: list[str]) -> tuple[float, Peaks]:
    """One run's wall time and the peak resident and private KiB of each process of its tree."""
    args = [sys.executable, "-m", "evaldsl", "run", str(spec), str(cases), "-o",
            str(out / "report.json"), "--results", str(out / "results.jsonl"), "--no-progress",
            "--quiet", *flags]
    peaks: dict[int, tuple[int, int]] = {}
    titles: dict[int, str] = {}
    started = time.perf_counter()
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    while process.poll() is None:
        for pid in tree(process.pid):
            seen = sample(pid)
            if seen is not None and seen[0]:
                titles[pid] = seen[0]
                resident, private = peaks.get(pid, (0, 0))
                peaks[pid] = max(resident, seen[1]), max(private, seen[2])
        time.sleep(0.2)
    wall = time.perf_counter() - started
    stderr = process.stderr.read() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"evaldsl run {' '.join(flags)} failed ({process.returncode}):\n{stderr}")
    return wall, {f"{pid} {titles[pid]}": kib for pid, kib in peaks.items()}


def report_of(out: Path) -> dict[str, object]:
    report = json.loads((out / "report.json").read_text("utf-8"))
    return {k: v for k, v in report.items() if k != "run"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.cases = 2000
    with tempfile.TemporaryDirectory(prefix="evaldsl-scale-") as folder:
        root = Path(folder)
        spec, cases = root / "spec.eval", root / "cases.jsonl"
        spec.write_text(SPEC, encoding="utf-8")
        generate(cases, args.cases)
        reports = []
        for name, flags in WAYS.items():
            out = root / name.replace(" ", "_").replace(",", "")
            out.mkdir()
            wall, peaks = run(spec, cases, out, flags)
            reports.append(report_of(out))
            print(f"{name}: {wall:.1f} s wall, {args.cases / wall:,.0f} cases/s")
            print("    peak MiB: resident, private")
            for title, (resident, private) in sorted(peaks.items(), key=lambda item: -item[1][0]):
                print(f"    {resident / 1024:8.1f} {private / 1024:8.1f}  {title}")
        same = all(r == reports[0] for r in reports)
        print("every way wrote the same report" if same else "REPORTS DIFFER")
        if not same:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
