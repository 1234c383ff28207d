"""A driven run's HTML page in a real headless chromium: the explorer shows each dialog as
it was driven (the message sent, the reply, its latency), read from the transcripts."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import env, http_target, write_rows
from tests.support.chromium_page import Chromium

ROWS = [{"id": "ok", "intent": "booking", "messages": ["空调坏了", "我叫张三"]},
        {"id": "cut", "intent": "booking", "messages": ["冰箱坏了", "电话 13800138000"]}]


def open_case(tab: Chromium, case_id: str) -> str:
    """Search the case by id, press Enter on its row; the drill-down's text."""
    tab.run("(function () { var e = document.getElementById('f-id');"
            f" e.value = {json.dumps(case_id)}; e.dispatchEvent(new Event('input')); }})()")
    tab.run("document.querySelector('#case-rows tr').dispatchEvent("
            "new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}))")
    text: str = tab.run("document.getElementById('drill').innerText")
    return text


@pytest.fixture
def page(agent: Any, kit: Any, tmp_path: Path, spec: Path) -> Path:
    agent.control(latency_ms=40, faults={"cut": {"kind": "500", "turn": 2}})
    scenarios = tmp_path / "scenarios.jsonl"
    write_rows(scenarios, ROWS)
    (tmp_path / "evaldsl.toml").write_text(http_target(agent.port), encoding="utf-8")
    done = kit.evaldsl("run", spec, scenarios, "--target", "agent", "--config",
                       tmp_path / "evaldsl.toml", "--transcripts", tmp_path / "t.jsonl",
                       "--html", tmp_path / "report.html", "-q", env=env())
    assert done.returncode in (0, 1), done.stderr
    return tmp_path / "report.html"


@pytest.fixture
def tab(page: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    with Chromium(tmp_path_factory.mktemp("profile")) as chromium:
        chromium.open(page)
        yield chromium


def test_a_driven_dialog_shows_each_sent_message_its_reply_and_latency(tab: Chromium) -> None:
    text = open_case(tab, "ok")
    assert "空调坏了" in text and "<turn 1> 空调坏了" in text and "<turn 2> 我叫张三" in text
    latencies = [float(ms) for ms in re.findall(r"assistant · ([\d.]+) ms", text)]
    assert len(latencies) == 2 and all(ms >= 40 for ms in latencies)


def test_a_conversation_the_agent_failed_shows_its_scenario_turns_and_the_reason(
        tab: Chromium) -> None:
    text = open_case(tab, "cut")
    assert "冰箱坏了" in text and "电话 13800138000" in text and "<turn" not in text
    assert "the agent failed at turn 2 of 2" in text


def test_the_page_has_the_agent_section(tab: Chromium) -> None:
    section = tab.run("document.getElementById('target').innerText")
    assert "agent errors\t1" in section and "conversations\t2" in section
