"""What `evaldsl run` costs on top of the API: the same spec, the same 100,000 cases.

    python benchmarks/run_overhead.py [--cases 100000] [--keep DIR]

Generates deterministic 6-turn dialogs into a JSONL file, then judges them
with an 8-check deterministic spec twice: through the API
(`spec.run(load_cases(path))`, cases streamed from the same file) and through
`evaldsl run` in a subprocess with every output enabled (report.json, HTML,
Markdown, JUnit and results.jsonl). Prints cases per second for both and
their ratio; the target is the CLI at no less than half the API's rate.
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
from typing import NamedTuple

SPEC = """\
spec "run overhead"
case { intent: text }
check greets = keyword(scope: first_user, any: ["hello", "hi", "你好"])
check asks_name = keyword(scope: replies, any: ["name", "姓名"])
check asks_phone = regex(scope: replies, pattern: "phone|电话")
check no_secret = safety(scope: replies)
check short = length(scope: each_reply, max_chars: 200)
check fast = latency(scope: each_reply, max_ms: 3000)
check brief = turns(max: 8)
check thanks = keyword(scope: last_user, any: ["thanks", "谢谢"])
outcome {
  success if greets and asks_name and asks_phone and no_secret and fast
  partial if asks_name or asks_phone
  failure otherwise
}
metric success_rate = rate(success) + 0.5 * rate(partial)
metric fast_rate = rate(fast) where greets
metric avg_short = mean(short)
metric thanked = count(thanks)
"""

USER = ["hello, I need a repair", "hi, my AC is broken", "你好，我想预约维修", "the fridge leaks",
        "my phone is 13800138000", "thanks a lot", "谢谢", "tomorrow morning please"]
REPLY = ["Sure, what is your name?", "May I have your phone number?", "请问您的姓名和电话？",
         "We will send a technician.", "Your booking is confirmed.", "Anything else?"]


def generate(path: Path, count: int, seed: int = 7) -> None:
    rnd = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            messages = []
            for _ in range(3):
                messages.append({"role": "user", "content": rnd.choice(USER)})
                messages.append({"role": "assistant", "content": rnd.choice(REPLY),
                                 "latency_ms": rnd.randint(200, 4000)})
            out.write(json.dumps({"id": f"case-{i:06d}", "messages": messages,
                                  "intent": rnd.choice(["booking", "inquiry"])},
                                 ensure_ascii=False) + "\n")


class Timing(NamedTuple):
    wall: float
    cpu: float
    """CPU seconds (user + system) of the work: robust when other processes share the cores."""


def through_api(spec_path: Path, cases: Path) -> tuple[Timing, int]:
    import evaldsl.api as api
    from evaldsl.cases.loading import load_cases
    from evaldsl.cases.rows import CaseSchema

    spec = api.load(spec_path)
    wall, cpu = time.perf_counter(), time.process_time()
    report = spec.run(load_cases(cases, CaseSchema.of(spec)))
    return Timing(time.perf_counter() - wall, time.process_time() - cpu), report.cases


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def through_cli(spec_path: Path, cases: Path, out: Path, *extra: str) -> Timing:
    args = [sys.executable, "-m", "evaldsl", "run", str(spec_path), str(cases), *extra,
            "-o", str(out / "report.json"), "--html", str(out / "report.html"),
            "--md", str(out / "summary.md"), "--junit", str(out / "junit.xml"),
            "--results", str(out / "results.jsonl"), "--overwrite", "--no-progress", "--quiet"]
    wall, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(args, capture_output=True, text=True)
    timing = Timing(time.perf_counter() - wall, _children_cpu() - cpu)
    if done.returncode != 0:
        raise SystemExit(f"evaldsl run failed ({done.returncode}):\n{done.stderr}")
    return timing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, default=None, help="keep the files in this folder")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.cases = 500
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        spec_path, cases = folder / "overhead.eval", folder / "cases.jsonl"
        spec_path.write_text(SPEC, encoding="utf-8")
        generate(cases, args.cases)
        api, judged = through_api(spec_path, cases)
        cli = through_cli(spec_path, cases, folder)
        report = json.loads((folder / "report.json").read_text("utf-8"))
        (folder / "start").mkdir(exist_ok=True)  # `run` refuses to overwrite a journal
        start = through_cli(spec_path, cases, folder / "start", "--limit", "1")
    assert report["cases"]["evaluated"] == judged == args.cases
    print(f"cases: {judged:,} (8 deterministic checks, 6-turn dialogs)")
    for name, t in (("API  spec.run(load_cases(...))       ", api),
                    ("CLI  evaldsl run, every output enabled", cli)):
        print(f"{name}  wall {t.wall:6.2f} s {judged / t.wall:8,.0f} cases/s   "
              f"cpu {t.cpu:6.2f} s {judged / t.cpu:8,.0f} cases/s")
    print(f"CLI / API rate: wall {api.wall / cli.wall:.2f}, cpu {api.cpu / cli.cpu:.2f} "
          "(target >= 0.50)")
    steady = cli.cpu - start.cpu
    print(f"CLI start-up (a 1-case run): cpu {start.cpu:.2f} s; without it the CLI runs at "
          f"{judged / steady:,.0f} cases/s, {api.cpu / steady:.2f} of the API's rate")


if __name__ == "__main__":
    main()
