"""Size and speed of the HTML report's case explorer at 50,000 cases, in a real chromium.

A spec with two outcome blocks, a tool-call check, a let and a review block is
run over generated cases of six turns with a tool call, once without and once
with `--html`; the figures are each run's wall time and peak memory (the
explorer keeps every case's clipped record until the page is written), the
page's size, the time from navigation
until the first page of rows is shown (parse of the embedded JSON included),
and the time of each filter, measured inside the page with `performance.now()`
(the first text search also builds the search index, so it is timed twice).

    python benchmarks/html_explorer.py                 # 50,000 cases
    python benchmarks/html_explorer.py --cases 5000
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.chromium_page import Chromium  # noqa: E402

SPEC = """\
spec "explorer benchmark"
case { tenant: text, gold: map }
check greets = keyword(scope: first_user, any: ["hello", "你好"])
check calls = args_match(expected: case.gold, alternatives: true)
check short = length(scope: each_reply, max_chars: 120)
let score = 100 * calls
outcome intent {
  reached if greets
  missed otherwise
}
outcome success {
  done if calls and short
  partial if calls
  not_done otherwise
}
metric avg_score = mean(score)
review (seed: 1) {
  sample 5% where not_done priority 100 - score
}
"""
WORDS = ("refund order delivery account password invoice address phone change cancel "
         "您好 订单 退款 地址 电话 发票 修改 取消").split()
TENANTS = ("acme", "globex", "initech", "umbrella", "hooli")
FILTERS = {
    "label intent = missed": "choose('f-label', '0:missed')",
    "check calls failed": "choose('f-check', '1'); choose('f-status', 'failed')",
    "group tenant = acme": "choose('f-group', '0:acme')",
    "id search": "choose('f-id', 'case-0123')",
    "text search (builds the index)": "choose('f-text', 'invoice cancel')",
    "text search again": "choose('f-text', 'refund')",
}


def sentence(rnd: random.Random, words: int) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(words))


def case_row(i: int, rnd: random.Random) -> dict[str, object]:
    amount = rnd.choice([100, 250, 10000])
    given = rnd.choice([amount, str(amount), amount + 1])
    call = {"id": "c0", "type": "function",
            "function": {"name": "refund", "arguments": json.dumps({"amount": given})}}
    messages: list[dict[str, object]] = [
        {"role": "user", "content": rnd.choice(["hello ", "hi "]) + sentence(rnd, 20)}]
    for _ in range(2):
        messages.append({"role": "assistant", "content": sentence(rnd, rnd.randint(8, 30))})
        messages.append({"role": "user", "content": sentence(rnd, rnd.randint(5, 25))})
    messages.append({"role": "assistant", "content": sentence(rnd, 10), "tool_calls": [call]})
    return {"id": f"case-{i:05d}", "tenant": rnd.choice(TENANTS),
            "gold": {"calls": [{"name": "refund", "args": {"amount": [amount]}}]},
            "messages": messages}


def write_cases(folder: Path, count: int) -> Path:
    (folder / "spec.eval").write_text(SPEC, encoding="utf-8")
    cases = folder / "cases.jsonl"
    rnd = random.Random(7)
    with cases.open("w", encoding="utf-8") as out:
        for i in range(count):
            out.write(json.dumps(case_row(i, rnd), ensure_ascii=False) + "\n")
    return cases


def timed_run(folder: Path, cases: Path, *outputs: str) -> tuple[float, float]:
    """Wall seconds of `evaldsl run` with `outputs`, and the peak RSS in MiB of the largest
    child so far (the runs go smallest first, so it is this one's when it grew)."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "evaldsl", "run", str(folder / "spec.eval"),
                    str(cases), *outputs, "-q"], check=True, cwd=REPO)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return time.monotonic() - started, peak


CHOOSE = """
function choose(id, value) {
  var e = document.getElementById(id);
  e.value = value;
  e.dispatchEvent(new Event(e.tagName === 'INPUT' ? 'input' : 'change'));
}
function reset() {
  ['f-label', 'f-check', 'f-status', 'f-error', 'f-group', 'f-id', 'f-text'].forEach(
    function (id) { document.getElementById(id).value = ''; });
}
"""


def measure(page: Path, profile: Path) -> None:
    with Chromium(profile) as browser:
        started = time.monotonic()
        browser.open(page)
        shown = browser.run("document.querySelectorAll('#case-rows tr').length")
        opened = time.monotonic() - started
        print(f"open until the first {shown} rows show: {opened:.2f} s")
        browser.run(CHOOSE.replace("function choose", "window.choose = function choose")
                    .replace("function reset", "window.reset = function reset"))
        for name, action in FILTERS.items():
            browser.run("reset()")
            took = browser.run(f"(function () {{ var t = performance.now(); {action}; "
                               "return performance.now() - t; })()")
            matches = browser.run("document.getElementById('match-count').textContent")
            print(f"filter {name}: {took:.0f} ms ({matches})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=50_000)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.cases = 200
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases = write_cases(folder, args.cases)
        page = folder / "report.html"
        print(f"cases: {args.cases:,}")
        for label, outputs in (("-o report.json", ("-o", str(folder / "report.json"))),
                               ("-o report.json --html", ("-o", str(folder / "report.json"),
                                                          "--html", str(page)))):
            seconds, peak = timed_run(folder, cases, *outputs)
            print(f"run {label}: {seconds:.1f} s, peak RSS {peak:.0f} MiB")
        size = page.stat().st_size
        print(f"page size: {size / 2**20:.1f} MiB ({size / args.cases:.0f} bytes a case)")
        measure(page, folder / "profile")


if __name__ == "__main__":
    main()
