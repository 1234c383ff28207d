"""`collect --trials K` against a real HTTP agent: each scenario played K times, each
transcript keeping its trial, then judged offline with `pass_hat`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.agents.conftest import env, http_target, read_jsonl, write_scenarios


def test_collect_plays_each_scenario_k_times(agent: Any, kit: Any, tmp_path: Path,
                                             spec: Path) -> None:
    (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
    scenarios = tmp_path / "scenarios.jsonl"
    write_scenarios(scenarios, 2)
    transcripts = tmp_path / "t.jsonl"
    collect = ["collect", spec, scenarios, "--target", "agent", "--config",
               tmp_path / "evaldsl.toml", "--transcripts", transcripts, "--trials", "3"]
    done = kit.evaldsl(*collect, env=env())
    assert done.returncode == 0, done.stderr
    assert agent.stats()["sessions"] == {"s-000": 3, "s-001": 3}
    saved = read_jsonl(transcripts)
    assert sorted((t["id"], t["trial"]) for t in saved) == [
        (s, t) for s in ("s-000", "s-001") for t in (1, 2, 3)]
    again = kit.evaldsl(*collect, "--resume", env=env())  # every trial is held: none sent
    assert again.returncode == 0, again.stderr
    assert agent.stats()["sessions"] == {"s-000": 3, "s-001": 3}
    judged = tmp_path / "k.eval"
    judged.write_text(spec.read_text().replace(
        "metric good_rate = rate(good)",
        "metric good_rate = rate(good)\nmetric all_three = pass_hat(good, 3)"), "utf-8")
    report = tmp_path / "report.json"
    journal = tmp_path / "results.jsonl"
    run = kit.evaldsl("run", judged, transcripts, "-o", report, "-q", "--results", journal)
    assert run.returncode == 0, run.stderr
    metrics = {m["name"]: m for m in json.loads(report.read_text())["metrics"]}
    goods: dict[str, list[bool]] = {}
    for line in read_jsonl(journal)[1:]:
        goods.setdefault(line["id"], []).append(line["labels"]["outcome"] == "good")
    expected = sum(all(g) for g in goods.values()) / len(goods)  # n = k = 3: all must pass
    assert metrics["all_three"]["denominator"] == 6
    assert metrics["all_three"]["value"] == expected
    assert metrics["all_three"]["interval"] is None or (
        metrics["all_three"]["interval"]["method"] == "normal over scenarios")


def test_trials_need_a_target(kit: Any, tmp_path: Path, spec: Path) -> None:
    cases = tmp_path / "c.jsonl"
    cases.write_text('{"id": "a", "intent": "x", "messages": []}\n')
    done = kit.evaldsl("run", spec, cases, "--trials", "2")
    assert done.returncode == 2 and "--trials is for a driven run" in done.stderr
