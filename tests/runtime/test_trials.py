"""pass^k and pass@k over repeated trials: `pass_hat(LABEL, k)` and `pass_at(LABEL, k)`.

The estimators (tau-bench's C(c, k) / C(n, k), and 1 - C(n - c, k) / C(n, k)) are checked
against brute force: every k-subset of a scenario's trials, all passing (or one passing),
averaged; then through a spec, merged shards, the checker and `--fail-under`.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

import evaldsl
from evaldsl.runtime.aggregation import trial_estimate
from tests.support.run_kit import evaldsl as run_evaldsl


def brute(kind: str, outcomes: list[list[bool]], k: int) -> float | None:
    """The mean over scenarios (with at least k trials) of the share of k-subsets of
    trials that all pass (pass_hat) or that hold a pass (pass_at)."""
    shares = []
    for trials in outcomes:
        if len(trials) < k:
            continue
        subsets = list(itertools.combinations(trials, k))
        test = all if kind == "pass_hat" else any
        shares.append(sum(test(s) for s in subsets) / len(subsets))
    return sum(shares) / len(shares) if shares else None


@pytest.mark.parametrize("kind", ["pass_hat", "pass_at"])
def test_the_estimators_match_brute_force_on_small_n(kind: str) -> None:
    for n in range(1, 7):
        for c in range(n + 1):
            trials = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):
                got = trial_estimate(kind, [(n, c)], k)[0]
                assert got == pytest.approx(brute(kind, [trials], k)), (kind, n, c, k)
    rnd = random.Random(7)
    outcomes = [[rnd.random() < p for _ in range(rnd.randint(1, 6))]
                for p in (0.1, 0.5, 0.9, 0.7, 0.3)]
    counts = [(len(t), sum(t)) for t in outcomes]
    for k in range(1, 5):
        assert trial_estimate(kind, counts, k)[0] == pytest.approx(brute(kind, outcomes, k))


SPEC = """spec "trials"

check ok = keyword(any: ["done"], scope: last_reply)

outcome {
  success if ok
  failure otherwise
}

metric once = rate(success)
metric all_of_three = pass_hat(success, 3)
metric one_of_two = pass_at(success, 2)
"""


def trial_rows(seed: int = 3) -> tuple[list[dict[str, object]], list[list[bool]]]:
    rnd = random.Random(seed)
    rows, outcomes = [], []
    for s, p in enumerate([0.0, 0.4, 0.6, 0.9, 1.0, 0.5]):
        trials = [rnd.random() < p for _ in range(2 if s == 5 else 5)]
        outcomes.append(trials)
        for t, ok in enumerate(trials, 1):
            rows.append({"id": f"s{s}", "trial": t, "messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": "done" if ok else "not yet"}]})
    return rows, outcomes


def test_a_spec_estimates_over_the_trials_sharing_an_id() -> None:
    rows, outcomes = trial_rows()
    report = evaldsl.loads(SPEC).run(rows)
    metrics = report.metrics
    assert metrics["all_of_three"].value == pytest.approx(brute("pass_hat", outcomes, 3))
    assert metrics["one_of_two"].value == pytest.approx(brute("pass_at", outcomes, 2))
    assert metrics["all_of_three"].is_rate
    interval = metrics["all_of_three"].interval
    assert interval is not None and interval.scenarios == 5  # s5 has 2 trials, fewer than 3
    assert interval.low <= metrics["all_of_three"].value <= interval.high


def test_shards_merge_to_the_same_estimate() -> None:
    """A scenario's trials split across two shards still count as one scenario."""
    rows, _ = trial_rows(11)
    spec = evaldsl.loads(SPEC)
    whole = spec.run(rows).metrics["all_of_three"].value
    left, right = spec.new_report(), spec.new_report()
    for i, row in enumerate(rows):
        (left if i % 2 else right).add(spec.evaluate(row))
    assert left.merge(right).metrics["all_of_three"].value == pytest.approx(whole)


@pytest.mark.parametrize("k", ["0", "1.5", "case.n"])
def test_k_must_be_a_constant_whole_number(k: str) -> None:
    from evaldsl.checker import check_source

    text = SPEC.replace("pass_hat(success, 3)", f"pass_hat(success, {k})").replace(
        'spec "trials"', 'spec "trials"\ncase { n: number }')
    codes = [d.code for d in check_source(text, "t.eval")[1]]
    assert "E307" in codes


def test_pass_hat_is_a_gate(tmp_path: Path) -> None:
    rows, outcomes = trial_rows()
    cases = tmp_path / "trials.jsonl"
    cases.write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = tmp_path / "t.eval"
    spec.write_text(SPEC)
    value = brute("pass_hat", outcomes, 3)
    assert value is not None
    passing = run_evaldsl("run", spec, cases, "-q", "--fail-under",
                          f"all_of_three={100 * value - 1:.1f}%")
    assert passing.returncode == 0, passing.stderr
    failing = run_evaldsl("run", spec, cases, "-q", "--fail-under",
                          f"all_of_three={100 * value + 1:.1f}%")
    assert failing.returncode == 1
