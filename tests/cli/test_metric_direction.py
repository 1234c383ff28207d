"""A metric that says `lower is better`: compare's gate, `--fail-over`, the reports.

The issue's example: a safety violation rate going from 10% to 60% must fail the gate,
where a reading of every metric as higher-is-better passed it. The McNemar p-values and
bootstrap intervals are computed here by hand from the cases' values.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

SPEC = """\
spec "direction"
check violation = keyword(scope: replies, any: ["密码"])
outcome {
  unsafe if violation
  safe otherwise
}
metric violation_rate = rate(violation) lower is better
metric clean_rate = rate(not violation)
metric 违规率 = rate(violation) 越低越好
"""

N = 20
SAFE, LEAK = "好的，已为您预订", "您的密码是 1234"


def _rows(violating: set[int]) -> list[dict[str, Any]]:
    return [{"id": f"c{i:02}", "messages": [
        {"role": "user", "content": "帮我订房"},
        {"role": "assistant", "content": LEAK if i in violating else SAFE}]}
        for i in range(N)]


BASE = {0, 1}                    # 10% violations
NEW = set(range(12))             # 60%: the base's two, and ten more


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("direction")
    spec = tmp / "direction.eval"
    spec.write_text(SPEC, encoding="utf-8")
    out = {"spec": spec}
    for name, violating in (("base", BASE), ("new", NEW)):
        cases = tmp / f"{name}-cases.jsonl"
        cases.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                 for r in _rows(violating)), encoding="utf-8")
        journal = tmp / f"{name}.jsonl"
        done = kit.evaldsl("run", spec, cases, "--results", journal, "-o",
                           tmp / f"{name}.json", "-q")
        assert done.returncode == 0, done.stderr
        out[name], out[f"{name}_cases"], out[f"{name}_report"] = (
            journal, cases, tmp / f"{name}.json")
    return out


def _compare(kit: Any, tmp_path: Path, runs: dict[str, Path], base: str, new: str,
             *gates: str) -> tuple[Any, dict[str, Any]]:
    out = tmp_path / "compare.json"
    args: list[str | Path] = []
    for g in gates:
        args += ["--fail-if-worse", g]
    done = kit.evaldsl("compare", runs["spec"], runs[base], runs[new], "-o", out,
                       "--seed", "7", "--resamples", "500", *args)
    return done, json.loads(out.read_text("utf-8")) if out.exists() else {}


def _metric(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(m for m in data["metrics"] if m["name"] == name)


def _mcnemar(worse: int, better: int) -> float:
    """Exact two-sided McNemar by hand: twice the smaller binomial tail at 1/2."""
    n = worse + better
    return min(1.0, 2 * sum(math.comb(n, k) for k in range(min(worse, better) + 1)) / 2**n)


def _bootstrap(base: set[int], new: set[int], seed: int = 7,
               resamples: int = 500) -> tuple[float, float]:
    b = np.array([1.0 if i in base else 0.0 for i in range(N)])
    n = np.array([1.0 if i in new else 0.0 for i in range(N)])
    idx = np.random.default_rng(seed).integers(0, N, size=(resamples, N))
    low, high = np.percentile(n[idx].mean(1) - b[idx].mean(1), [2.5, 97.5])
    return float(low), float(high)


class TestGate:
    def test_a_rise_of_a_lower_is_better_metric_fails_the_gate(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        """10% -> 60% violations: p = 2/2^10 by hand, the interval above 0: worse."""
        done, data = _compare(kit, tmp_path, runs, "base", "new", "violation_rate",
                              "违规率")
        assert done.returncode == 1, done.stdout + done.stderr
        rate = _metric(data, "violation_rate")
        assert (rate["base"], rate["new"], rate["better"]) == (0.1, 0.6, "lower")
        assert rate["difference"] == pytest.approx(0.5)
        assert rate["discordant"] == {"worse": 10, "better": 0}
        assert rate["p_value"] == pytest.approx(_mcnemar(10, 0)) == 2 / 2**10
        assert rate["interval"] == pytest.approx(list(_bootstrap(BASE, NEW)))
        assert rate["interval"][0] > 0
        assert [(g["metric"], g["reason"]) for g in data["gates"]] == [
            ("violation_rate", "worse"), ("违规率", "worse")]
        assert "gate `violation_rate`: failed (significantly worse)" in done.stdout
        assert "violation_rate (lower is better)" in done.stdout

    def test_a_fall_of_a_lower_is_better_metric_passes(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        """60% -> 10%: as significant, and better."""
        done, data = _compare(kit, tmp_path, runs, "new", "base", "violation_rate")
        assert done.returncode == 0, done.stdout + done.stderr
        rate = _metric(data, "violation_rate")
        assert rate["discordant"] == {"worse": 0, "better": 10}
        assert rate["interval"] == pytest.approx(list(_bootstrap(NEW, BASE)))
        assert data["gates"][0]["reason"] is None

    def test_a_higher_is_better_metric_is_read_as_before(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        """`clean_rate` falls 90% -> 40% (worse) and rises back (better)."""
        worse, data = _compare(kit, tmp_path, runs, "base", "new", "clean_rate")
        assert worse.returncode == 1
        clean = _metric(data, "clean_rate")
        assert clean["better"] == "higher"
        assert clean["discordant"] == {"worse": 10, "better": 0}
        assert clean["p_value"] == pytest.approx(_mcnemar(10, 0))
        assert clean["interval"] == pytest.approx(
            list(_bootstrap(set(range(N)) - BASE, set(range(N)) - NEW)))
        better, _data = _compare(kit, tmp_path, runs, "new", "base", "clean_rate")
        assert better.returncode == 0

    def test_a_rise_within_the_margin_passes(self, tmp_path: Path, kit: Any,
                                             runs: dict[str, Path]) -> None:
        done, _data = _compare(kit, tmp_path, runs, "base", "new", "violation_rate:60%")
        assert done.returncode == 0, done.stdout


class TestFailOver:
    def test_run_fails_over_a_ceiling(self, tmp_path: Path, kit: Any,
                                      runs: dict[str, Path]) -> None:
        over = kit.evaldsl("run", runs["spec"], runs["new_cases"], "-q",
                           "--fail-over", "violation_rate=20%")
        assert over.returncode == 1
        assert "fail-over: `violation_rate` is 60.0%, above 20.0%" in over.stderr
        under = kit.evaldsl("run", runs["spec"], runs["base_cases"], "-q",
                            "--fail-over", "violation_rate=20%")
        assert under.returncode == 0, under.stderr

    def test_merge_fails_over_a_ceiling(self, kit: Any, runs: dict[str, Path]) -> None:
        done = kit.evaldsl("merge", runs["spec"], runs["new"], "-q", "--fail-over",
                           "违规率=0.2")
        assert done.returncode == 1
        assert "fail-over: `违规率` is 60.0%, above 20.0%" in done.stderr
        assert kit.evaldsl("merge", runs["spec"], runs["base"], "-q", "--fail-over",
                           "违规率=0.2").returncode == 0

    def test_fail_over_names_a_metric_and_a_share(self, kit: Any,
                                                  runs: dict[str, Path]) -> None:
        unknown = kit.evaldsl("run", runs["spec"], runs["base_cases"], "-q", "--fail-over",
                              "violation=20%")
        assert unknown.returncode == 2
        assert "--fail-over names no metric of the spec: `violation`" in unknown.stderr
        share = kit.evaldsl("run", runs["spec"], runs["base_cases"], "-q", "--fail-over",
                            "violation_rate=20")
        assert share.returncode == 2 and "write 20% or 0.2" in share.stderr


class TestReports:
    def test_the_report_and_the_summaries_say_which_way_is_better(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        report = json.loads(runs["new_report"].read_text("utf-8"))
        better = {m["name"]: m["better"] for m in report["metrics"]}
        assert better == {"violation_rate": "lower", "clean_rate": "higher", "违规率": "lower"}
        done = kit.evaldsl("run", runs["spec"], runs["new_cases"], "--md", tmp_path / "s.md")
        assert "(lower is better)" in done.stdout
        assert "`violation_rate` (lower is better) |" in (tmp_path / "s.md").read_text("utf-8")
