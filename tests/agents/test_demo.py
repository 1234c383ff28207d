"""The shipped end-to-end example: the repair-booking scenarios and the built-in `demo` target."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from evaldsl.agents.config import load_target
from evaldsl.agents.scenarios import read_scenarios
from evaldsl.agents.user_brief import USER
from evaldsl.api import load
from evaldsl.cases.case import Case
from evaldsl.cases.rows import CaseSchema
from tests.agents.conftest import read_jsonl, write_rows

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios" / "repair_booking.jsonl"


class TestTheShippedScenarios:
    def test_every_row_is_a_scenario_of_the_repair_booking_spec(self) -> None:
        spec = load(REPO / "specs" / "repair_booking.eval")
        items = list(read_scenarios([SCENARIOS], CaseSchema.of(spec)))
        assert items and all(isinstance(i, Case) for i in items)
        simulated = [i for i in items if isinstance(i, Case) and USER in i.fields]
        assert 0 < len(simulated) < len(items)


class TestTheBuiltInDemo:
    def test_without_a_table_demo_is_the_local_model_behind_a_booking_prompt(
            self, tmp_path: Path) -> None:
        config = load_target("demo", _empty(tmp_path))
        assert (config.kind, config.get("base_url"), config.concurrency) == ("openai", "local", 1)
        assert "预约" in config.get("system")

    def test_a_demo_table_of_the_users_replaces_it(self, tmp_path: Path) -> None:
        path = tmp_path / "evaldsl.toml"
        path.write_text('[targets.demo]\nkind = "http"\nurl = "http://127.0.0.1:1/x"\n'
                        'reply_path = "reply"\n', encoding="utf-8")
        assert load_target("demo", path).kind == "http"


def _empty(tmp_path: Path) -> Path:
    path = tmp_path / "evaldsl.toml"
    path.write_text("", encoding="utf-8")
    return path


@pytest.mark.local_judge
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                    reason="the demo agent needs the `local` extra: pip install 'evaldsl[local]'")
def test_the_demo_agent_answers_a_scripted_scenario_on_the_local_model(
        kit: Any, tmp_path: Path) -> None:
    """One scripted scenario, judged by rules only, so only the agent's model starts."""
    (row,) = [r for r in read_jsonl(SCENARIOS) if r["id"] == "rb-s03"]
    scenarios = tmp_path / "one.jsonl"
    write_rows(scenarios, [row])
    done = kit.evaldsl("run", REPO / "specs" / "repair_booking_offline.eval", scenarios,
                       "--target", "demo", "--config", _empty(tmp_path), "--transcripts",
                       tmp_path / "t.jsonl", "-o", tmp_path / "report.json", timeout=600)
    assert done.returncode in (0, 1), done.stderr
    (saved,) = read_jsonl(tmp_path / "t.jsonl")
    replies = [m for m in saved["messages"] if m["role"] == "assistant"]
    assert len(replies) == 2 and all(m["content"].strip() and m["latency_ms"] > 0
                                     for m in replies)
    target = json.loads((tmp_path / "report.json").read_text("utf-8"))["target"]
    assert (target["name"], target["errors"], target["replies"]) == ("demo", 0, 2)
