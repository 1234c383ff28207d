"""Fixtures of the driving tests: the agent server, a spec, scenario files, settings."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SPEC = """\
spec "driven"
case { intent: text }
check second_turn = keyword(scope: replies, any: ["<turn 2>"])
check quick = latency(scope: each_reply, max_ms: 5000)
outcome {
  good if second_turn and quick
  bad otherwise
}
metric good_rate = rate(good)
"""

SECRET = "s3cr3t-agent-value-91"
"""The value of AGENT_TOKEN: sent as a header, never to be found in any output."""


@pytest.fixture(scope="session")
def agent_process() -> Iterator[Any]:
    from tests.support import agent_server

    server = agent_server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def agent(agent_process: Any) -> Any:
    """The agent under test as a real process on 127.0.0.1, reset."""
    agent_process.reset()
    return agent_process


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "driven.eval"
    path.write_text(SPEC, encoding="utf-8")
    return path


def http_target(port: int, **extra: Any) -> str:
    """An `evaldsl.toml` with the `http` target `agent` pointed at the agent server."""
    lines = ["[targets.agent]", 'kind = "http"', f'url = "http://127.0.0.1:{port}/agent"',
             'request = { message = "{message}", session = "{session}", '
             'history = "{history}", case = "{case_id}" }',
             'reply_path = "reply"', 'tool_calls_path = "tool_calls"',
             'headers_env = { Authorization = "AGENT_TOKEN" }']
    lines += [f"{key} = {json.dumps(value)}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"


def write_scenarios(path: Path, count: int, turns: int = 2) -> list[dict[str, Any]]:
    rows = [{"id": f"s-{i:03d}", "intent": "booking",
             "messages": [f"我家空调坏了 {i}.{t}" for t in range(turns)]}
            for i in range(count)]
    write_rows(path, rows)
    return rows


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]


def env() -> dict[str, str]:
    return {"AGENT_TOKEN": f"Bearer {SECRET}"}
