"""Peak memory of `evaldsl watch --follow` reading a backlog: flat in the file's size.

A JSONL file of padded sessions (about 20 KB each, so the number of sessions,
which the monitor keeps the ids of, stays small next to the bytes) is
followed by a real `evaldsl watch` process; once `GET /report` counts every
session, the process's peak resident set (VmHWM) is read and it is stopped.
Two sizes, a tenth and the whole, show whether memory grows with the file.

Target (issue 30): the peak for a 200 MB backlog within 1.2x of the peak for
20 MB (the watch read the whole file into memory before: 445 MB at 200 MB).

    python benchmarks/watch_backlog.py [--mb 200] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import re
import select
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

SPEC = """spec "watch backlog"
case { tenant: text }
check short = length(max_chars: 60)
outcome {
  good if short
  poor otherwise
}
metric poor_rate = rate(poor) by case.tenant
alert tenant_poor when poor_rate > 30% over 1h min 30 "tenant poor rate over 30%"
"""
SESSION_BYTES = 20_000
TARGET_RATIO = 1.2


def write_backlog(path: Path, megabytes: float) -> int:
    """Padded sessions until the file holds `megabytes`; how many sessions."""
    pad = "x" * SESSION_BYTES
    count, size = 0, 0
    with path.open("w", encoding="utf-8") as out:
        while size < megabytes * 1_000_000:
            row = {"id": f"s{count}", "tenant": f"t{count % 20}", "note": pad, "messages": [
                {"role": "user", "content": "帮我查一下订单"},
                {"role": "assistant", "content": "好的，请稍等"}]}
            line = json.dumps(row, ensure_ascii=False) + "\n"
            out.write(line)
            size += len(line.encode())
            count += 1
    return count


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def follow(spec: Path, backlog: Path, state: Path, sessions: int) -> tuple[float, float]:
    """(peak resident MB, seconds from the start until every session was judged) of one
    watch."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "evaldsl", "watch", str(spec),
                                "--state", str(state), "--follow", str(backlog),
                                "--port", "0", "--quiet"],
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        ready, _, _ = select.select([process.stderr], [], [], 60)
        found = re.search(r":(\d+)/report", process.stderr.readline() if ready else "")
        assert found, "the watch did not start"
        url = f"http://127.0.0.1:{found.group(1)}/report"
        deadline = time.monotonic() + 1800
        while time.monotonic() < deadline:
            with urllib.request.urlopen(url, timeout=60) as answer:
                if json.loads(answer.read())["sessions"] >= sessions:
                    break
            time.sleep(0.2)
        else:
            raise RuntimeError("the watch did not judge the backlog in time")
        return peak_rss_mb(process.pid), time.perf_counter() - start
    finally:
        process.terminate()
        process.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=200.0, help="the larger backlog, in MB")
    parser.add_argument("--smoke", action="store_true", help="a tiny backlog (2 MB), to test "
                        "the script")
    args = parser.parse_args()
    largest = 2.0 if args.smoke else args.mb
    figures = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        spec = root / "backlog.eval"
        spec.write_text(SPEC, encoding="utf-8")
        for megabytes in (largest / 10, largest):
            backlog = root / f"backlog-{megabytes:g}.jsonl"
            sessions = write_backlog(backlog, megabytes)
            peak, seconds = follow(spec, backlog, root / f"state-{megabytes:g}", sessions)
            backlog.unlink()
            figures.append((megabytes, sessions, peak, seconds))
    for megabytes, sessions, peak, seconds in figures:
        print(f"backlog {megabytes:g} MB ({sessions:,} sessions): peak RSS {peak:.1f} MB, "
              f"judged in {seconds:.1f} s")
    ratio = figures[1][2] / figures[0][2]
    print(f"peak at {largest:g} MB / peak at {largest / 10:g} MB: {ratio:.2f}x "
          f"(target <= {TARGET_RATIO}x)")


if __name__ == "__main__":
    main()
