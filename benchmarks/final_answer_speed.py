"""Per-case cost of the final-answer primitives against `keyword`'s.

    python benchmarks/final_answer_speed.py [--cases 20000] [--smoke]

Each primitive is one check of a spec of its own, evaluated over the same
generated dialogs (a user question, an assistant answer of about 30 words in
English or Chinese with a number and a short JSON list), already in memory, on
one core. Prints microseconds per case by CPU time and the ratio to the
`keyword` spec; each round times every spec in turn, so load on a shared machine
touches them alike. The target for the deterministic primitives is at most 2x
(docs/benchmarks.md has the figures and says which primitives miss it).
"""

from __future__ import annotations

import argparse
import random
import time

import evaldsl
from evaldsl.cases.case import Case

HEAD = 'spec "final answer speed"\ncase {\n  answer: any\n}\n'
CHECKS = {
    "keyword": 'keyword(any: ["total", "合计"], none: ["sorry"])',
    "numeric": "numeric(expect: case.answer)",
    "regex expect": 'regex(pattern: "(?:total|合计)[^0-9]*([0-9,.]+)", expect: "1,250")',
    "exact": 'exact(expect: "the total is 1,250")',
    "f1": 'f1(expect: "the total comes to 1,250 dollars", min: 0.5)',
    "edit_distance": 'edit_distance(expect: "The total is 1,250 dollars for both items.")',
    "json_match": 'json_match(expected: [{"id": 1}, {"id": 2}], aggregate: average)',
    "contains_json": "contains_json()",
}
"""The last row is an existing CHEAP primitive, for scale."""
REPLIES = [
    "Thanks for waiting. I checked both items in your order and the total is 1,250 dollars, "
    'including tax. Items: [{"id": 1}, {"id": 2}]. Anything else I can help with?',
    '您好，已经为您核对了订单中的两件商品，合计 1,250 元，含税。明细：[{"id": 1}, {"id": 2}]。'
    "还有什么可以帮您？",
    "The total comes to 1,240 dollars after the discount; the first item is 400 and the "
    'second is 840. [{"id": 1}, {"id": 3}]',
]


def dialogs(n: int, seed: int = 7) -> list[Case]:
    rng = random.Random(seed)
    return [Case.from_dict({
        "id": f"c{i}", "answer": 1250,
        "messages": [{"role": "user", "content": "How much is my order?"},
                     {"role": "assistant", "content": rng.choice(REPLIES)}]})
        for i in range(n)]


def compiled(check: str) -> evaldsl.Spec:
    """The spec of one check, warmed up on a few cases."""
    return evaldsl.loads(f"{HEAD}check c = {check}\noutcome {{\n  ok if c\n  no otherwise\n}}\n")


def best_per_case_us(specs: dict[str, evaldsl.Spec], cases: list[Case],
                     rounds: int) -> dict[str, float]:
    """Each spec's best CPU time per case over `rounds`; every round times every spec in
    turn, so a spell of load on the shared machine touches them all alike."""
    for spec in specs.values():
        for case in cases[:50]:
            spec.evaluate(case)
    best = dict.fromkeys(specs, float("inf"))
    for _ in range(rounds):
        for name, spec in specs.items():
            start = time.process_time()
            for case in cases:
                spec.evaluate(case)
            best[name] = min(best[name], time.process_time() - start)
    return {name: seconds / len(cases) * 1e6 for name, seconds in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="200 cases, one round")
    args = parser.parse_args()
    n, rounds = (200, 1) if args.smoke else (args.cases, args.rounds)
    cases = dialogs(n)
    times = best_per_case_us({name: compiled(check) for name, check in CHECKS.items()},
                             cases, rounds)
    base = times["keyword"]
    print(f"{n} cases, best of {rounds} rounds, CPU time per case")
    for name, us in times.items():
        print(f"  {name:<14} {us:8.1f} us   {us / base:5.2f}x keyword")


if __name__ == "__main__":
    main()
