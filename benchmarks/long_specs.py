"""Load, check and run time of two very long specs: 10,000 chained lets and 10,000 checks.

The lets form one chain (`let v1 = v0 + 1`, each reading the one before), the
longest dependency a spec can have; the checks are independent, each with a
metric. Every stage (parse, check, build the graph and compile, evaluate one
case) is timed on its own, so a stage that stops growing linearly shows by
name; `--size` runs another length to compare (twice the size should take
about twice the time). docs/language.md (Limits) states the sizes tested.

    python benchmarks/long_specs.py [--size 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from evaldsl.api import Spec
from evaldsl.checker import analyse_module
from evaldsl.primitives.registry import default_registry
from evaldsl.runtime.graph import build_graph
from evaldsl.syntax.parser import parse

CASE = {"id": "c1", "x": 1, "messages": [{"role": "user", "content": "hello"},
                                         {"role": "assistant", "content": "hi, word7 here"}]}


def let_chain(size: int) -> str:
    """`size` lets, each the one before plus one, read by a verdict and a metric."""
    lines = ["case { x: number }", 'check greets = keyword(any: ["hi"])', "let v0 = case.x"]
    lines += [f"let v{i} = v{i - 1} + 1" for i in range(1, size)]
    lines += ["outcome {", f"  big if greets and v{size - 1} > 0", "  small otherwise", "}",
              f"metric top = mean(v{size - 1})"]
    return "\n".join(lines) + "\n"


def many_checks(size: int) -> str:
    """`size` independent keyword checks, each with its own metric."""
    lines = [f'check c{i} = keyword(any: ["word{i}"])' for i in range(size)]
    lines += [f"metric m{i} = rate(c{i})" for i in range(size)]
    return "\n".join(lines) + "\n"


def stages(text: str) -> dict[str, float]:
    """Seconds per stage for one spec text."""
    registry = default_registry()
    times: dict[str, float] = {}
    parsed = _timed(times, "parse", lambda: parse(text, "long.eval"))
    assert parsed.module is not None, parsed.diagnostics[:1]
    checked = _timed(times, "check",
                     lambda: analyse_module(parsed.module, parsed.source, registry))
    assert checked.analysis is not None, checked.diagnostics[:1]
    spec = _timed(times, "compile", lambda: Spec(build_graph(checked.analysis)))
    _timed(times, "run", lambda: spec.evaluate(CASE))
    return times


def _timed(times: dict[str, float], stage: str, work: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    value = work()
    times[stage] = time.perf_counter() - start
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per spec; the best is shown")
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny size, a few seconds: see that the script still runs")
    args = parser.parse_args()
    if args.smoke:
        args.size, args.repeat = 200, 1
    stages(let_chain(100))  # warm the parser tables and the registry
    print(f"{'spec':<22}{'parse':>9}{'check':>9}{'compile':>9}{'run':>9}{'total':>9}  (s)")
    for name, text in ((f"{args.size:,} chained lets", let_chain(args.size)),
                       (f"{args.size:,} checks", many_checks(args.size))):
        runs = [stages(text) for _ in range(args.repeat)]
        best = {stage: min(r[stage] for r in runs) for stage in runs[0]}
        cells = "".join(f"{best[s]:>9.2f}" for s in best)
        print(f"{name:<22}{cells}{sum(best.values()):>9.2f}")


if __name__ == "__main__":
    main()
