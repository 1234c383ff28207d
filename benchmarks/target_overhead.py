"""What driving an agent costs evaldsl: scripted conversations against a mock agent.

    python benchmarks/target_overhead.py [--conversations 2000] [--turns 4]
        [--latency-ms 50] [--in-flight 64]

The mock agent (tests/support/agent_server.py, a real process on 127.0.0.1) answers every
turn after `--latency-ms`. `evaldsl run --target` drives `--conversations` scenarios of
`--turns` user turns with `--in-flight` conversations at once, records the transcripts and
the journal, and judges each dialog with a small deterministic spec. Printed: the wall time
against the ideal (turns x latency / in flight: the agent's own time, perfectly
overlapped) and evaldsl's CPU per turn (the subprocess's user + system time, which other
processes on the machine do not inflate).
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

from tests.support import agent_server  # noqa: E402

SPEC = """\
spec "target overhead"
case { intent: text }
check answered = keyword(scope: replies, any: ["<turn 1>"])
check quick = latency(scope: each_reply, max_ms: 1000)
outcome {
  good if answered and quick
  bad otherwise
}
metric good_rate = rate(good)
"""


def settings(port: int, in_flight: int) -> str:
    return (f'[targets.mock]\nkind = "http"\nurl = "http://127.0.0.1:{port}/agent"\n'
            'request = { message = "{message}", session = "{session}", '
            'history = "{history}", case = "{case_id}" }\n'
            f'reply_path = "reply"\nconcurrency = {in_flight}\n')


def scenarios(path: Path, count: int, turns: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            messages = [f"我家空调坏了，第 {t} 句" for t in range(turns)]
            out.write(json.dumps({"id": f"c-{i:05d}", "intent": "booking",
                                  "messages": messages}, ensure_ascii=False) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--in-flight", type=int, default=64)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.conversations, args.turns, args.latency_ms = 20, 2, 5.0
    agent = agent_server.start()
    try:
        agent.control(latency_ms=args.latency_ms)
        with tempfile.TemporaryDirectory() as folder:
            report = drive(Path(folder), agent.port, args)
        requests = agent.stats()["requests"]
    finally:
        agent.stop()
    show(args, report, requests)


def drive(folder: Path, port: int, args: argparse.Namespace) -> dict[str, float]:
    (folder / "spec.eval").write_text(SPEC, encoding="utf-8")
    (folder / "evaldsl.toml").write_text(settings(port, args.in_flight), encoding="utf-8")
    scenarios(folder / "scenarios.jsonl", args.conversations, args.turns)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "evaldsl", "run", str(folder / "spec.eval"),
                    str(folder / "scenarios.jsonl"), "--target", "mock", "--config",
                    str(folder / "evaldsl.toml"), "--transcripts", str(folder / "t.jsonl"),
                    "--results", str(folder / "results.jsonl"), "-o",
                    str(folder / "report.json"), "-q"], check=True, cwd=REPO)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    target = json.loads((folder / "report.json").read_text("utf-8"))["target"]
    return {"wall": wall, "cpu": cpu, "errors": target["errors"],
            "p50": target["latency_ms"]["p50"], "p99": target["latency_ms"]["p99"]}


def show(args: argparse.Namespace, report: dict[str, float], requests: int) -> None:
    turns = args.conversations * args.turns
    ideal = turns * args.latency_ms / 1000 / args.in_flight
    print(f"{args.conversations} conversations x {args.turns} turns = {turns} turns, "
          f"agent {args.latency_ms:g} ms, {args.in_flight} in flight "
          f"({requests} requests seen, {report['errors']} errors)")
    print(f"wall {report['wall']:.2f} s, ideal {ideal:.2f} s "
          f"({report['wall'] / ideal:.2f}x the ideal; the command's start included)")
    print(f"evaldsl CPU {report['cpu']:.2f} s: {report['cpu'] / turns * 1000:.2f} ms per turn")
    print(f"reply latency seen by evaldsl: p50 {report['p50']:.1f} ms, "
          f"p99 {report['p99']:.1f} ms")


if __name__ == "__main__":
    main()
