"""Wall time and peak memory of `evaldsl compare` over two large runs (target: 1,000,000
cases each in at most 20 s and 300 MiB).

A real run of the runner kit's deterministic spec over 1,000 generated cases gives two
journals (base and new differ: the new cases are generated with another seed). Each is
then grown to `--cases` lines by repeating its lines under fresh ids and rows, so every
line is one the spec really wrote. The journals are made once and kept in a cache folder
(printed; `--cache`), so a second measurement costs the compare alone. `evaldsl compare`
runs on the pair in a fresh process, under a small parent process of its own, so the
figures are the compare's alone: its wall time and peak resident set size (`ru_maxrss` of
the parent's only child).

    python benchmarks/compare_speed.py                   # 1,000,000 cases each
    python benchmarks/compare_speed.py --cases 20000
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.run_kit import SPEC, write_cases  # noqa: E402

SEED_CASES = 1000
TARGET_S, TARGET_MIB = 20.0, 300.0
CACHE = Path(tempfile.gettempdir()) / "evaldsl-compare-speed"

MEASURE = """\
import resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - started
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(done.returncode, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
sys.stderr.write(done.stderr)
"""
"""Runs a command and prints its exit code, wall time, CPU time and peak RSS (KiB): the only
child of this process, so `RUSAGE_CHILDREN` is that command's alone. CPU time is printed too:
on a shared machine wall time carries the other processes' load."""


def journal(folder: Path, name: str, seed: int) -> Path:
    """A real journal of the kit's spec over SEED_CASES generated cases."""
    cases = folder / f"{name}-cases.jsonl"
    write_cases(cases, SEED_CASES, seed=seed)
    results = folder / f"{name}-seed.jsonl"
    subprocess.run([sys.executable, "-m", "evaldsl", "run", str(folder / "spec.eval"),
                    str(cases), "--results", str(results), "-q", "--overwrite"], check=True)
    return results


def grown(seed_journal: Path, size: int, out: Path) -> Path:
    """`seed_journal`'s case lines repeated under fresh ids and rows up to `size` lines;
    written beside and renamed, so an interrupted run leaves no half journal in the cache."""
    header, *lines = seed_journal.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    partial = out.with_suffix(".partial")
    with partial.open("w", encoding="utf-8") as f:
        f.write(header + "\n")
        for i in range(size):
            record = dict(records[i % len(records)])
            record["id"] = f"case-{i:07d}"
            record["row"] = f"cases.jsonl:{i + 1}"
            f.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    partial.replace(out)
    return out


def journals(folder: Path, size: int) -> tuple[Path, Path]:
    """The base and new journals of `size` cases, made unless the cache has them."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "spec.eval").write_text(SPEC, encoding="utf-8")
    out = []
    for name, seed in (("base", 11), ("new", 12)):
        path = folder / f"{name}-{size}.jsonl"
        if not path.exists():
            grown(journal(folder, name, seed), size, path)
        out.append(path)
    return out[0], out[1]


def measure(folder: Path, base: Path, new: Path) -> tuple[int, float, float, float]:
    """(exit code, wall seconds, CPU seconds, peak MiB) of `evaldsl compare` on the pair."""
    command = [sys.executable, "-m", "evaldsl", "compare", str(folder / "spec.eval"),
               str(base), str(new), "-o", str(folder / "compare.json"), "-q"]
    done = subprocess.run([sys.executable, "-c", MEASURE, *command], capture_output=True,
                          text=True, check=True)
    code, wall, cpu, peak = done.stdout.split()
    if int(code) not in (0, 1):
        sys.exit(f"evaldsl compare exited {code}: {done.stderr}")
    return int(code), float(wall), float(cpu), int(peak) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--cache", type=Path, default=CACHE,
                        help="where the grown journals are kept between measurements")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.cases, args.cache = 2000, Path(tempfile.mkdtemp(prefix="compare-smoke-"))
    base, new = journals(args.cache, args.cases)
    print(f"journals: {base} {new}")
    _code, wall, cpu, peak_mib = measure(args.cache, base, new)
    verdict = "ok" if wall <= TARGET_S and peak_mib <= TARGET_MIB else "over"
    if args.smoke:
        shutil.rmtree(args.cache)
    print(f"evaldsl compare, {args.cases:,} cases each: {wall:.1f} s (target <= {TARGET_S:g} s; "
          f"CPU {cpu:.1f} s), peak {peak_mib:.0f} MiB (target <= {TARGET_MIB:g} MiB)  {verdict}")


if __name__ == "__main__":
    main()
