"""The `python` target: a callable, sync or async, and the exception it raises."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.target.conftest import read_jsonl, write_rows


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
