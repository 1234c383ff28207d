"""The `python` target: a callable, sync or async, and the exception it raises."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import read_jsonl, write_rows


@pytest.mark.parametrize("function", ["echo", "echo_async"])
def test_a_callable_answers_each_turn(function: str, kit: Any, tmp_path: Path,
                                      spec: Path) -> None:
    (tmp_path / "evaldsl.toml").write_text(
        f'[targets.engine]\nkind = "python"\ncallable = "tests.support.python_agent:{function}"\n',
        encoding="utf-8")
    scenarios = tmp_path / "scenarios.jsonl"
    write_rows(scenarios, [{"id": "a", "intent": "x", "messages": ["一", "二"]},
                           {"id": "b", "intent": "x", "messages": ["一", "BOOM"]}])
    done = kit.evaldsl("collect", spec, scenarios, "--target", "engine", "--config",
                       tmp_path / "evaldsl.toml", "--transcripts", tmp_path / "t.jsonl")
    assert done.returncode == 0, done.stderr
    (saved,) = read_jsonl(tmp_path / "t.jsonl")
    assert [m["content"] for m in saved["messages"]] == ["一", "<turn 1> 一", "二", "<turn 2> 二"]
    assert ("error: b: the agent failed at turn 2 of 2: the agent raised RuntimeError: the "
            "engine broke") in done.stderr
    assert "engine: 2 conversations · 1 errors · 3 replies" in done.stdout
    assert json.dumps(saved, ensure_ascii=False).count("latency_ms") == 2


def test_an_entry_point_of_the_evaldsl_targets_group_is_loaded(kit: Any, tmp_path: Path,
                                                               spec: Path) -> None:
    site = tmp_path / "site"
    info = site / "house_agent-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: house-agent\nVersion: 0.1\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[evaldsl.targets]\nhouse = tests.support.python_agent:echo\n", encoding="utf-8")
    (tmp_path / "evaldsl.toml").write_text(
        '[targets.engine]\nkind = "python"\nentry_point = "house"\n', encoding="utf-8")
    scenarios = tmp_path / "scenarios.jsonl"
    write_rows(scenarios, [{"id": "a", "intent": "x", "messages": ["一"]}])
    done = kit.evaldsl("collect", spec, scenarios, "--target", "engine", "--config",
                       tmp_path / "evaldsl.toml", "--transcripts", tmp_path / "t.jsonl",
                       env={"PYTHONPATH": str(site)})
    assert done.returncode == 0, done.stderr
    (saved,) = read_jsonl(tmp_path / "t.jsonl")
    assert saved["messages"][1]["content"] == "<turn 1> 一"


def test_a_callable_that_does_not_exist_stops_the_run(kit: Any, tmp_path: Path,
                                                      spec: Path) -> None:
    (tmp_path / "evaldsl.toml").write_text(
        '[targets.engine]\nkind = "python"\ncallable = "tests.support.python_agent:nope"\n',
        encoding="utf-8")
    scenarios = tmp_path / "scenarios.jsonl"
    write_rows(scenarios, [{"id": "a", "intent": "x", "messages": ["一"]}])
    done = kit.evaldsl("collect", spec, scenarios, "--target", "engine", "--config",
                       tmp_path / "evaldsl.toml", "--transcripts", tmp_path / "t.jsonl")
    assert done.returncode == 2
    assert "target `engine`: cannot load `tests.support.python_agent:nope`" in done.stderr


def test_a_scenario_the_agent_failed_keeps_its_group(kit: Any, tmp_path: Path) -> None:
    """A conversation the agent broke off is an error in its own group, `by case.intent`
    read from the scenario, not in a group of no value."""
    spec = tmp_path / "grouped.eval"
    spec.write_text(
        'case { intent: text }\n'
        'check second_turn = keyword(scope: replies, any: ["<turn 2>"])\n'
        'metric second_rate = rate(second_turn) by case.intent\n', encoding="utf-8")
    (tmp_path / "evaldsl.toml").write_text(
        '[targets.engine]\nkind = "python"\ncallable = "tests.support.python_agent:echo"\n',
        encoding="utf-8")
    scenarios = tmp_path / "scenarios.jsonl"
    write_rows(scenarios, [{"id": "a", "intent": "booking", "messages": ["一", "二"]},
                           {"id": "b", "intent": "refund", "messages": ["一", "BOOM"]}])
    done = kit.evaldsl("run", spec, scenarios, "--target", "engine", "--config",
                       tmp_path / "evaldsl.toml", "--transcripts", tmp_path / "t.jsonl",
                       "-o", tmp_path / "report.json", "--results", tmp_path / "r.jsonl")
    assert done.returncode == 0, done.stderr
    (metric,) = json.loads((tmp_path / "report.json").read_text("utf-8"))["metrics"]
    groups = {tuple(g["key"]): (g["denominator"], g["errors"]) for g in metric["groups"]}
    assert groups == {("booking",): (1, 0), ("refund",): (0, 1)}
    failed = next(r for r in read_jsonl(tmp_path / "r.jsonl") if r.get("id") == "b")
    assert failed["groups"] == {"second_rate": ["refund"]}
