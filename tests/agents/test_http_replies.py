"""What an HTTP agent answers, taken as hostile: bytes in another charset, a redirect to
another host, a reply without end. Each is that scenario's error with the reason; the other
scenarios go on, and no header of the target reaches a host other than its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agents.conftest import SECRET, read_jsonl, write_scenarios

API_KEY = "k3y-agent-api-value-77"
"""The value of AGENT_API_KEY, sent as `X-Api-Key`."""


def config(port: int, **extra: Any) -> str:
    """An `http` target `agent` with two secret headers, pointed at the agent server."""
    lines = ["[targets.agent]", 'kind = "http"', f'url = "http://127.0.0.1:{port}/agent"',
             'request = { message = "{message}", session = "{session}", '
             'history = "{history}", case = "{case_id}" }',
             'reply_path = "reply"',
             'headers_env = { Authorization = "AGENT_TOKEN", X-Api-Key = "AGENT_API_KEY" }']
    lines += [f"{key} = {json.dumps(value)}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"


def secrets() -> dict[str, str]:
    return {"AGENT_TOKEN": f"Bearer {SECRET}", "AGENT_API_KEY": API_KEY}


def drive(kit: Any, tmp_path: Path, spec: Path, count: int, *extra: str) -> Any:
    scenarios = tmp_path / "scenarios.jsonl"
    if not scenarios.exists():
        write_scenarios(scenarios, count)
    out = tmp_path / "out"
    return kit.evaldsl("run", spec, scenarios, "--target", "agent", "--config",
                       tmp_path / "evaldsl.toml", "--transcripts", out / "transcripts.jsonl",
                       "--results", out / "results.jsonl", "-o", out / "report.json",
                       *extra, env=secrets())


def reasons(tmp_path: Path) -> dict[str, str | None]:
    journal = read_jsonl(tmp_path / "out" / "results.jsonl")[1:]
    return {r["id"]: r["errors"].get("outcome") for r in journal}


def saved(tmp_path: Path) -> dict[str, list[dict[str, Any]]]:
    return {t["id"]: t["messages"] for t in read_jsonl(tmp_path / "out" / "transcripts.jsonl")}


@pytest.fixture(scope="module")
def other_process() -> Iterator[Any]:
    """A second agent server: another host, as host and port tell hosts apart."""
    from tests.support import agent_server

    server = agent_server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def other(other_process: Any) -> Any:
    other_process.reset()
    return other_process


class TestCharsets:
    def test_a_declared_charset_is_read_and_bytes_that_do_not_decode_are_that_scenarios_error(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        agent.control(faults={"s-001": {"kind": "gbk", "turn": 1},
                              "s-002": {"kind": "gbk-undeclared", "turn": 2}})
        (tmp_path / "evaldsl.toml").write_text(config(agent.port), encoding="utf-8")
        done = drive(kit, tmp_path, spec, 4)
        assert done.returncode == 0, done.stderr
        why = reasons(tmp_path)
        assert why["s-000"] is None and why["s-001"] is None and why["s-003"] is None
        assert why["s-002"] == (
            "the agent failed at turn 2 of 2: the agent's answer does not decode as UTF-8 "
            "(byte 0xce at offset 20) and declares no other charset")
        dialogs = saved(tmp_path)
        assert sorted(dialogs) == ["s-000", "s-001", "s-003"]
        assert dialogs["s-001"][1]["content"] == "<turn 1> 我家空调坏了 1.0"

    def test_resume_after_an_undecodable_answer_sends_nothing_again(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        agent.control(faults={"s-000": {"kind": "gbk-undeclared", "turn": 1}})
        (tmp_path / "evaldsl.toml").write_text(config(agent.port), encoding="utf-8")
        first = drive(kit, tmp_path, spec, 3)
        assert first.returncode == 0, first.stderr
        sent = agent.stats()["requests"]
        again = drive(kit, tmp_path, spec, 3, "--resume")
        assert again.returncode == 0, again.stderr
        assert agent.stats()["requests"] == sent
        assert reasons(tmp_path)["s-000"].startswith(
            "the agent failed at turn 1 of 2: the agent's answer does not decode as UTF-8")

    def test_a_wrong_declared_charset_falls_back_to_utf8(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        from evaldsl.agents.http_target import decoded

        text = json.dumps({"reply": "空调"}, ensure_ascii=False)
        assert decoded(text.encode("utf-8"), "ascii") == text
        assert decoded(text.encode("gbk"), "gb18030") == text
        assert decoded("\ufeff{}".encode(), None) == "{}"


class TestRedirects:
    def test_a_redirect_to_another_host_is_refused_and_nothing_reaches_it(
            self, agent: Any, other: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        agent.control(faults={"s-000": {"kind": "redirect", "turn": 1,
                                        "location": f"http://127.0.0.1:{other.port}/agent"}})
        (tmp_path / "evaldsl.toml").write_text(config(agent.port), encoding="utf-8")
        done = drive(kit, tmp_path, spec, 2)
        assert done.returncode == 0, done.stderr
        assert other.stats()["requests"] == 0
        assert reasons(tmp_path) == {"s-000": (
            f"the agent failed at turn 1 of 2: the agent redirected to 127.0.0.1:{other.port}, "
            f"another host than 127.0.0.1:{agent.port}: not followed (allow the host in "
            "`redirect_hosts`)"), "s-001": None}

    def test_an_allowed_redirect_is_followed_without_the_targets_headers(
            self, agent: Any, other: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        agent.control(faults={"s-000": {"kind": "redirect", "turn": 1, "status": 308,
                                        "location": f"http://127.0.0.1:{other.port}/agent"}})
        (tmp_path / "evaldsl.toml").write_text(
            config(agent.port, redirect_hosts=[f"127.0.0.1:{other.port}"]), encoding="utf-8")
        done = drive(kit, tmp_path, spec, 2)
        assert done.returncode == 0, done.stderr
        seen = other.stats()
        assert seen["requests"] == 1 and seen["paths"] == ["/agent"]
        assert seen["authorization"] == [] and seen["api_keys"] == []
        assert agent.stats()["api_keys"] == [API_KEY]
        assert saved(tmp_path)["s-000"][1]["content"] == "<turn 1> 我家空调坏了 0.0"

    def test_a_host_allowed_without_a_port_takes_any_port_of_it(
            self, agent: Any, other: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        agent.control(faults={"s-000": {"kind": "redirect", "turn": 1,
                                        "location": f"http://127.0.0.1:{other.port}/agent"}})
        (tmp_path / "evaldsl.toml").write_text(
            config(agent.port, redirect_hosts=["127.0.0.1"]), encoding="utf-8")
        assert drive(kit, tmp_path, spec, 1).returncode == 0
        assert other.stats()["requests"] == 1 and other.stats()["api_keys"] == []

    def test_a_redirect_on_the_same_host_keeps_the_headers(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        agent.control(faults={"s-000": {"kind": "redirect", "turn": 1,
                                        "location": "/agent?redirected=1"}})
        (tmp_path / "evaldsl.toml").write_text(config(agent.port), encoding="utf-8")
        done = drive(kit, tmp_path, spec, 1)
        assert done.returncode == 0, done.stderr
        assert reasons(tmp_path) == {"s-000": None}
        assert agent.stats()["paths"][:2] == ["/agent", "/agent?redirected=1"]
        assert agent.stats()["api_keys"] == [API_KEY]


class TestReplySize:
    def test_a_reply_past_the_bound_is_that_scenarios_error(
            self, agent: Any, kit: Any, tmp_path: Path, spec: Path) -> None:
        agent.control(faults={"s-000": {"kind": "huge", "size": 500_000},
                              "s-001": {"kind": "huge", "size": 3_000_000},
                              "s-002": {"kind": "endless"}})
        (tmp_path / "evaldsl.toml").write_text(
            config(agent.port, max_reply_bytes=1 << 20, timeout=120), encoding="utf-8")
        done = drive(kit, tmp_path, spec, 4)
        assert done.returncode == 0, done.stderr
        why = reasons(tmp_path)
        assert why["s-000"] is None and why["s-003"] is None
        bound = ("the agent failed at turn 1 of 2: the agent's answer is larger than "
                 "1,048,576 bytes (`max_reply_bytes`)")
        assert why["s-001"] == bound and why["s-002"] == bound

    def test_the_default_bound_is_16_mib(self) -> None:
        from evaldsl.agents.config import target_of
        from evaldsl.agents.http_target import HttpTarget

        target = HttpTarget(target_of("a", {"kind": "http", "url": "http://127.0.0.1:9/",
                                            "reply_path": "reply"}), env={})
        assert target.max_bytes == 16 * 1024 * 1024
