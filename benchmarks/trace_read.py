"""Spans per second read from OTLP/JSON into cases, on one core (target: >= 20,000).

Generates OTLP JSON lines, one export per line as a collector's file exporter writes
them: each conversation a trace of a model call with its messages (the history again in
each call, as instrumentations record it), a tool run and a second model call, with
conversation ids, tokens and resources. Times `read_cases` over the file: decoding,
conventions, grouping and merging, and the rows' validation into `Case`s.

    python benchmarks/trace_read.py                  # 20,000 conversations, 60,000 spans
    python benchmarks/trace_read.py --conversations 50000
    python benchmarks/trace_read.py --smoke          # a tiny file, to check the script runs

Each read runs in a fresh process, which prints its peak RSS: a file `--times` (4) times
larger is read too, and the two peaks say whether memory stays flat in the file size, and
by how many bytes a span it grows (the grouping index of a JSONL file's first pass).
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
from typing import Any


def _value(x: Any) -> dict[str, Any]:
    if isinstance(x, int):
        return {"intValue": str(x)}
    return {"stringValue": x}


def _span(trace: str, span: str, name: str, start: int, end: int,
          attrs: dict[str, Any]) -> dict[str, Any]:
    return {"traceId": trace, "spanId": span, "name": name, "kind": 3,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
            "attributes": [{"key": k, "value": _value(v)} for k, v in attrs.items()]}


def _parts(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def conversation(i: int) -> dict[str, Any]:
    """One export: a conversation of three spans."""
    trace, base = f"{i:032x}", 1_760_000_000_000_000_000 + i * 10**9
    call = {"type": "tool_call", "id": f"call_{i}", "name": "lookup_order",
            "arguments": {"order": f"A{i:06d}"}}
    user = _parts("user", f"Where is my order A{i:06d}? It was due yesterday.")
    asked = {"role": "assistant", "parts": [call]}
    answer = {"role": "tool", "parts": [{"type": "tool_call_response", "id": f"call_{i}",
                                         "response": {"status": "shipped", "eta": "Friday"}}]}
    reply = _parts("assistant", "Your order has shipped and should arrive on Friday.")
    common = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4.1-mini",
              "gen_ai.conversation.id": f"conv-{i}"}
    spans = [
        _span(trace, f"{3 * i:016x}", "chat gpt-4.1-mini", base, base + 700_000_000, {
            **common, "gen_ai.usage.input_tokens": 40, "gen_ai.usage.output_tokens": 9,
            "gen_ai.input.messages": json.dumps([user]),
            "gen_ai.output.messages": json.dumps([asked])}),
        _span(trace, f"{3 * i + 1:016x}", "execute_tool lookup_order", base + 710_000_000,
              base + 760_000_000, {"gen_ai.operation.name": "execute_tool",
                                   "gen_ai.tool.name": "lookup_order",
                                   "gen_ai.tool.call.id": f"call_{i}"}),
        _span(trace, f"{3 * i + 2:016x}", "chat gpt-4.1-mini", base + 770_000_000,
              base + 1_500_000_000, {
                  **common, "gen_ai.usage.input_tokens": 80, "gen_ai.usage.output_tokens": 12,
                  "gen_ai.input.messages": json.dumps([user, asked, answer]),
                  "gen_ai.output.messages": json.dumps([reply])}),
    ]
    return {"resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name", "value": _value("shop-agent")}]},
        "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}]}


def write(path: Path, conversations: int) -> int:
    with path.open("w") as out:
        for i in range(conversations):
            out.write(json.dumps(conversation(i)) + "\n")
    return conversations * 3


def measure(path: Path) -> tuple[int, float]:
    """The cases read and the CPU seconds it took (wall time counts the other processes of
    a shared machine; the reader runs on one core)."""
    from evaldsl.cases.case import Case
    from evaldsl.cases.loading import read_cases

    started = time.process_time()
    count = sum(1 for item in read_cases([path], on_bad_row="skip") if isinstance(item, Case))
    return count, time.process_time() - started


def child(path: Path) -> None:
    """Read `path` in this process and print the cases, the seconds and the peak RSS (KiB)."""
    count, elapsed = measure(path)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"cases": count, "seconds": elapsed, "peak_kib": peak}))


def in_child(path: Path) -> dict[str, Any]:
    """One read in a fresh process, so its peak RSS is the reader's alone."""
    done = subprocess.run([sys.executable, __file__, "--child", str(path)], check=True,
                          capture_output=True, text=True)
    figures: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=20_000)
    parser.add_argument("--times", type=int, default=4,
                        help="the second file for peak memory is this many times larger")
    parser.add_argument("--smoke", action="store_true", help="a tiny file")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child)
        return 0
    size = 50 if args.smoke else args.conversations
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for conversations in (size, size * args.times):
            path = Path(tmp) / f"traces-{conversations}.jsonl"
            spans = write(path, conversations)
            megabytes = path.stat().st_size / 1e6
            figures = in_child(path)
            path.unlink()
            if figures["cases"] != conversations:
                print(f"error: {figures['cases']} cases from {conversations} conversations")
                return 1
            runs.append((spans, megabytes, figures))
    for spans, megabytes, figures in runs:
        print(f"{spans} spans ({megabytes:.1f} MB) -> {figures['cases']} cases in "
              f"{figures['seconds']:.2f} CPU s: {spans / figures['seconds']:,.0f} spans/s "
              f"(target >= 20,000); peak RSS {figures['peak_kib'] / 1024:.0f} MiB")
    (small, _, one), (large, _, other) = runs
    grown = (other["peak_kib"] - one["peak_kib"]) * 1024 / (large - small)
    print(f"peak RSS {one['peak_kib'] / 1024:.0f} MiB at {small} spans, "
          f"{other['peak_kib'] / 1024:.0f} MiB at {large} spans "
          f"(x{other['peak_kib'] / one['peak_kib']:.2f} for x{large / small:.0f} the file; "
          f"flat is about x1): {grown:.0f} bytes more a span (the grouping index, "
          "docs/cases.md)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
