"""`compare` of runs with repeated trials: a scenario's id is on K lines, one per trial, so
cases pair by (id, trial), and `pass_hat` / `pass_at` are compared by scenario."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

from tests.runtime.test_trials import brute

SPEC = """\
spec "trials"
check polite = keyword(scope: replies, any: ["please"])
outcome {
  success if polite
  failure otherwise
}
metric success_rate = rate(success)
metric all_three = pass_hat(success, 3)
metric one_of_three = pass_at(success, 3)
metric rescaled = pass_hat(success, 3) * 4 - 0.75
"""

BASE = {"s0": [1, 1, 1], "s1": [1, 0, 1], "s2": [0, 0, 0], "s3": [1, 1, 0], "s4": [1, 1, 1],
        "s5": [0, 1, 0]}
NEW = {"s0": [1, 1, 1], "s1": [1, 1, 1], "s2": [0, 1, 0], "s3": [1, 1, 1], "s4": [1, 0, 1],
       "s5": [1, 1, 1]}


def _transcripts(path: Path, outcomes: dict[str, list[int]], order: int) -> Path:
    """Transcripts as `collect --trials 3` writes them (each keeps its `trial`), in an order
    of its own: a concurrent collect writes them as they finish."""
    rows = [{"id": sid, "trial": t, "messages": [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "please wait" if ok else "wait"}]}
        for sid, trials in outcomes.items() for t, ok in enumerate(trials, 1)]
    rows = rows[order:] + rows[:order]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("trials")
    spec = tmp / "trials.eval"
    spec.write_text(SPEC, encoding="utf-8")
    out = {"spec": spec}
    for name, outcomes, order in (("base", BASE, 0), ("new", NEW, 7)):
        journal = tmp / f"{name}.jsonl"
        done = kit.evaldsl("run", spec, _transcripts(tmp / f"{name}-t.jsonl", outcomes, order),
                           "--results", journal, "-q")
        assert done.returncode in (0, 1), done.stderr
        out[name] = journal
    return out


def _compare(kit: Any, tmp_path: Path, runs: dict[str, Path]) -> tuple[Any, dict[str, Any]]:
    out = tmp_path / "compare.json"
    done = kit.evaldsl("compare", runs["spec"], runs["base"], runs["new"], "-o", out,
                       "--seed", "3", "--resamples", "500", env={"EVALDSL_LANG": "en"})
    assert done.returncode == 0, done.stderr
    return done, json.loads(out.read_text("utf-8"))


def _metric(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(m for m in data["metrics"] if m["name"] == name)


def test_each_trial_pairs_with_the_same_trial(tmp_path: Path, kit: Any,
                                              runs: dict[str, Path]) -> None:
    done, data = _compare(kit, tmp_path, runs)
    assert data["cases"] == {"paired": 18, "only_base": 0, "only_new": 0,
                             "duplicated_base": 0, "duplicated_new": 0}
    assert data["trials"] == {"base": 3, "new": 3, "scenarios": 6}
    rate = _metric(data, "success_rate")
    worse = sum(b > n for s in BASE for b, n in zip(BASE[s], NEW[s], strict=True))
    better = sum(b < n for s in BASE for b, n in zip(BASE[s], NEW[s], strict=True))
    assert rate["discordant"] == {"worse": worse, "better": better} == {"worse": 1,
                                                                       "better": 5}
    changed = {c["id"]: (c["base"], c["new"]) for c in data["changed_cases"]}
    assert changed["s4 #2"] == ("success", "failure")
    assert changed["s2 #2"] == ("failure", "success")
    assert len(changed) == 6
    assert "18 cases paired" in done.stdout
    assert "paired by scenario and trial: up to 3 trials in base, 3 in new, 6 scenarios" \
        in done.stdout
    schema = json.loads((Path(__file__).resolve().parents[2] / "docs" / "compare.schema.json")
                        .read_text("utf-8"))
    jsonschema.validate(data, schema)


def test_pass_hat_and_pass_at_are_compared_by_scenario(tmp_path: Path, kit: Any,
                                                       runs: dict[str, Path]) -> None:
    _done, data = _compare(kit, tmp_path, runs)
    base = [[bool(x) for x in t] for t in BASE.values()]
    new = [[bool(x) for x in t] for t in NEW.values()]
    for name, kind in (("all_three", "pass_hat"), ("one_of_three", "pass_at")):
        metric = _metric(data, name)
        assert metric["base"] == pytest.approx(brute(kind, base, 3))
        assert metric["new"] == pytest.approx(brute(kind, new, 3))
        assert metric["difference"] == pytest.approx(metric["new"] - metric["base"])
        assert (metric["test"], metric["resampling"], metric["paired"]) == (
            "permutation", "scenarios", 6)
    hat = _metric(data, "all_three")
    per = np.array([float(all(n)) - float(all(b)) for b, n in zip(base, new, strict=True)])
    draws = np.random.default_rng(3).integers(0, 6, size=(500, 6))
    expected = np.percentile(per[draws].mean(1), [2.5, 97.5])
    assert tuple(hat["interval"]) == pytest.approx(tuple(expected))
    assert 0 < hat["p_value"] <= 1


def test_a_formula_over_a_trial_aggregate_gets_its_values_only(tmp_path: Path, kit: Any,
                                                                 runs: dict[str, Path]) -> None:
    """`x * 4 - 0.75` gives 0.25 at 0.25 but is no identity: no interval over scenarios."""
    _done, data = _compare(kit, tmp_path, runs)
    hat, rescaled = _metric(data, "all_three"), _metric(data, "rescaled")
    assert rescaled["base"] == pytest.approx(hat["base"] * 4 - 0.75)
    assert (rescaled.get("interval"), rescaled.get("p_value")) == (None, None)
