"""Wall time and peak memory of `evaldsl compare` over two large runs (target: 1,000,000
cases each in at most 20 s and 300 MiB).

A real run of the runner kit's deterministic spec over 1,000 generated cases gives two
journals (base and new differ: the new cases are generated with another seed). Each is
then grown to `--cases` lines by repeating its lines under fresh ids and rows, so every
line is one the spec really wrote, and `evaldsl compare` runs on the pair in a fresh
process. The figures are its whole-process wall time and peak resident set size
(`ru_maxrss` of the child).

    python benchmarks/compare_speed.py                   # 1,000,000 cases each
    python benchmarks/compare_speed.py --cases 100000
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.run_kit import SPEC, write_cases  # noqa: E402

SEED_CASES = 1000
TARGET_S, TARGET_MIB = 20.0, 300.0


def journal(folder: Path, name: str, seed: int) -> Path:
    """A real journal of the kit's spec over SEED_CASES generated cases."""
    cases = folder / f"{name}-cases.jsonl"
    write_cases(cases, SEED_CASES, seed=seed)
    results = folder / f"{name}-seed.jsonl"
    subprocess.run([sys.executable, "-m", "evaldsl", "run", str(folder / "spec.eval"),
                    str(cases), "--results", str(results), "-q"], check=True)
    return results


def grown(seed_journal: Path, size: int, out: Path) -> Path:
    """`seed_journal`'s case lines repeated under fresh ids and rows up to `size` lines."""
    header, *lines = seed_journal.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    with out.open("w", encoding="utf-8") as f:
        f.write(header + "\n")
        for i in range(size):
            record = dict(records[i % len(records)])
            record["id"] = f"case-{i:07d}"
            record["row"] = f"cases.jsonl:{i + 1}"
            f.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "spec.eval").write_text(SPEC, encoding="utf-8")
        base = grown(journal(folder, "base", 11), args.cases, folder / "base.jsonl")
        new = grown(journal(folder, "new", 12), args.cases, folder / "new.jsonl")
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "evaldsl", "compare",
                               str(folder / "spec.eval"), str(base), str(new),
                               "-o", str(folder / "compare.json")],
                              capture_output=True, text=True)
        wall = time.perf_counter() - started
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if done.returncode not in (0, 1):
        sys.exit(f"evaldsl compare exited {done.returncode}: {done.stderr}")
    verdict = "ok" if wall <= TARGET_S and peak_mib <= TARGET_MIB else "over"
    print(f"evaldsl compare, {args.cases:,} cases each: {wall:.1f} s (target <= {TARGET_S:g} s), "
          f"peak {peak_mib:.0f} MiB (target <= {TARGET_MIB:g} MiB)  {verdict}")


if __name__ == "__main__":
    main()
