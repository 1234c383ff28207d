"""What an editor waits for in `evaldsl lsp`: diagnostics after an edit, and completions.

The spec is about 300 lines built from shipped specs (`SOURCES`): each one's names get a
suffix so they can stand side by side, their `case` fields are merged into one block and
their verdicts become named outcome blocks. Each round edits one line (a threshold's
digit), then times, in milliseconds of wall time:

- in the service: `change` to `diagnostics` (parse and check of the new version), the
  same for an edit that leaves a primitive call open (text that does not parse, so the
  parser's slow path of worded errors), and a completion inside that call;
- over a real stdio session with `evaldsl lsp` (needs the `lsp` extra): `didChange` to the
  `publishDiagnostics` of that version, both kinds of edit, and a `completion` request to
  its response.

It prints the median and the 95th percentile of each (targets: 50 ms for diagnostics,
30 ms for completion).

    python benchmarks/lsp_latency.py [--rounds 200] [--no-stdio]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evaldsl.service import LanguageService, Position
from evaldsl.service.occurrences import DEFINED_KINDS
from evaldsl.syntax import nodes as n

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("complaint_handling", "quality_judge", "hospital_registration",
           "quality_monitoring", "travel_goals")
TARGETS = {"diagnostics": 50.0, "completion": 30.0}
URI = "file:///bench/combined.eval"
TYPING = "check 新检查 = judge(criteria: \"清楚\", "
"""Typed at the end of the spec for the completion timing: a call still open."""


def combined_spec() -> str:
    """The shipped specs of `SOURCES` as one spec that checks without errors."""
    service = LanguageService()
    fields: dict[str, str] = {}
    bodies: list[str] = []
    for k, name in enumerate(SOURCES):
        text = (REPO / "specs" / f"{name}.eval").read_text("utf-8")
        service.open(name, text, 1)
        snapshot = service.documents.get(name)
        text = _suffixed(text, snapshot, f"_{k}")
        service.change(name, text, 2)
        snapshot = service.documents.get(name)
        assert snapshot.module is not None
        bodies.append(_body(text, snapshot.module, fields, k))
        if not any(isinstance(s, n.CaseBlock) for s in snapshot.module.statements):
            for used in re.findall(r"\bcase\.(\w+)", text):  # undeclared without a block
                fields.setdefault(used, "text?")
    case = ["case {", *(f"  {f}: {t}" for f, t in fields.items()), "}"]
    return "\n".join(['spec "combined"', "", *case, "", *bodies])


def _suffixed(text: str, snapshot: Any, suffix: str) -> str:
    """Every name the spec defines (case fields aside) with `suffix` appended."""
    source = snapshot.parsed.source
    ends = sorted({source.offset(o.span.end_line, o.span.end_col) for o in snapshot.occurrences
                   if o.kind in DEFINED_KINDS - {"field"}}, reverse=True)
    for end in ends:
        text = text[:end] + suffix + text[end:]
    return text


def _body(text: str, module: n.Module, fields: dict[str, str], k: int) -> str:
    """The statements besides the header, the review and the case block; the verdict
    named."""
    lines = text.split("\n")
    kept: list[str] = []
    for statement in module.statements:
        part = lines[statement.span.line - 1 : statement.span.end_line]
        if isinstance(statement, n.CaseBlock):
            fields.update({f.name: f.type + ("?" if f.optional else "")
                           for f in statement.fields})
        elif isinstance(statement, n.Outcome) and statement.name is None:
            kept += [re.sub(r"^outcome\s*\{", f"outcome verdict_{k} {{", part[0]), *part[1:]]
        elif not isinstance(statement, (n.SpecHeader, n.Review)):
            kept += part
    return "\n".join(kept) + "\n"


def _edited(text: str, round_: int) -> str:
    """The spec with one digit of the last `min: N` changed, as a keystroke would."""
    at = text.rindex("min: ") + len("min: ")
    return text[:at] + str(round_ % 3 + 2) + text[at + 1:]


def timed(work: Callable[[int], object], rounds: int) -> list[float]:
    times = []
    for k in range(rounds):
        start = time.perf_counter()
        work(k)
        times.append((time.perf_counter() - start) * 1000)
    return times


def summary(name: str, times: list[float], target: float) -> str:
    p95 = statistics.quantiles(times, n=20)[-1]
    verdict = "ok" if p95 <= target else "over"
    return (f"  {name:34} median {statistics.median(times):6.2f} ms   p95 {p95:6.2f} ms"
            f"   (target {target:.0f} ms: {verdict})")


def in_service(text: str, rounds: int) -> list[str]:
    service = LanguageService()
    service.open(URI, text, 0)
    assert service.diagnostics(URI) == [], service.diagnostics(URI)[:3]
    broken = text + TYPING
    cursor = Position(broken.count("\n"), len(TYPING))

    def edit(k: int) -> None:
        service.change(URI, _edited(text, k), 3 * k + 1)
        service.diagnostics(URI)

    def break_it(k: int) -> None:
        service.change(URI, broken + " " * (k % 2), 3 * k + 3)
        service.diagnostics(URI)

    def complete(k: int) -> None:
        service.change(URI, broken + " " * (k % 2), 3 * k + 2)
        assert service.completion(URI, cursor)

    return [summary("service: edit -> diagnostics", timed(edit, rounds),
                    TARGETS["diagnostics"]),
            summary("service: edit mid-call -> diagnostics", timed(break_it, rounds),
                    TARGETS["diagnostics"]),
            summary("service: completion (text mid-edit)", timed(complete, rounds),
                    TARGETS["completion"])]


class Session:
    """A bare JSON-RPC client of `evaldsl lsp` over its stdin and stdout."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "evaldsl", "lsp"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.ids = 0

    def send(self, method: str, params: Any, request: bool = False) -> int:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.ids += 1
            message["id"] = self.ids
        body = json.dumps(message).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return self.ids

    def receive(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Read messages until one is `wanted`."""
        out = self.process.stdout
        assert out is not None
        while True:
            length = 0
            while (line := out.readline().strip()):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message: dict[str, Any] = json.loads(out.read(length))
            if wanted(message):
                return message

    def request(self, method: str, params: Any) -> dict[str, Any]:
        sent = self.send(method, params, request=True)
        return self.receive(lambda m: m.get("id") == sent)

    def close(self) -> None:
        self.request("shutdown", None)
        self.send("exit", None)
        self.process.wait(timeout=30)


def over_stdio(text: str, rounds: int) -> list[str]:
    session = Session()
    try:
        session.request("initialize", {"capabilities": {}, "processId": None})
        session.send("initialized", {})
        session.send("textDocument/didOpen", {"textDocument": {
            "uri": URI, "languageId": "evaldsl", "version": 0, "text": text}})
        _diagnostics(session, 0)
        broken = text + TYPING
        cursor = {"line": broken.count("\n"), "character": len(TYPING)}

        def edit(k: int) -> None:
            _change(session, _edited(text, k), 2 * k + 1)

        def complete(k: int) -> None:
            session.request("textDocument/completion", {
                "textDocument": {"uri": URI}, "position": cursor})

        diagnostics = timed(edit, rounds)
        mid_call = timed(lambda k: _change(session, broken + " " * (k % 2), 2 * rounds + k + 1),
                         rounds)
        completions = timed(complete, rounds)
    finally:
        session.close()
    return [summary("stdio: didChange -> diagnostics", diagnostics, TARGETS["diagnostics"]),
            summary("stdio: didChange mid-call -> diag.", mid_call, TARGETS["diagnostics"]),
            summary("stdio: completion request", completions, TARGETS["completion"])]


def _change(session: Session, text: str, version: int) -> None:
    session.send("textDocument/didChange", {
        "textDocument": {"uri": URI, "version": version}, "contentChanges": [{"text": text}]})
    _diagnostics(session, version)


def _diagnostics(session: Session, version: int) -> dict[str, Any]:
    return session.receive(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                           and m["params"].get("version") == version)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--no-stdio", action="store_true", help="time the service only")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.rounds = 5
    text = combined_spec()
    print(f"spec: {text.count(chr(10))} lines from {', '.join(SOURCES)}; "
          f"{args.rounds} rounds")
    lines = in_service(text, args.rounds)
    if not args.no_stdio:
        try:
            import pygls  # noqa: F401
        except ModuleNotFoundError:
            lines.append("  stdio: skipped, the lsp extra (pygls) is not installed")
        else:
            lines += over_stdio(text, args.rounds)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
