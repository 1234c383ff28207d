"""The local judge against the real model: llama-cpp-python and the verified weights.

A handful of requests (about a second each) through the official `openai`
client: structured answers that conform to their schema, a few easy verdicts
(a small model is prompt-sensitive, so nothing subtle), and a server that is
gone once it is stopped, whichever way its owner ends.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import openai
import pytest

import evaldsl
from evaldsl.errors import ConfigError
from evaldsl.model.local.judge import LocalJudgeServer
from evaldsl.model.settings import Settings

pytestmark = [
    pytest.mark.local_judge,
    # Looked up, not imported: importing llama_cpp opens files it never closes.
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                       reason="the local judge needs the `local` extra: "
                              "pip install 'evaldsl[local]'"),
]

SLOTS = {
    "type": "object",
    "properties": {"filled": {"type": "boolean"}},
    "required": ["filled"],
    "additionalProperties": False,
}
LABELS = {"appointment_booking": "预约服务", "inquiry": "咨询信息", "complaint": "投诉反馈",
          "other": "其他"}
LABEL = {"type": "object", "properties": {"label": {"enum": list(LABELS)}}, "required": ["label"]}
POLITENESS = {
    "type": "object",
    "properties": {"reason": {"type": "string"},
                   "score": {"type": "integer", "minimum": 1, "maximum": 10}},
    "required": ["reason", "score"],
}
DIALOG = ("user: 空调不制冷了，帮我约个师傅。\nassistant: 好的，请问怎么称呼您？\n"
          "user: 我姓李，电话是13900001111。\nassistant: 李先生您好，已为您登记。")


@pytest.fixture(scope="module")
def server() -> Iterator[LocalJudgeServer]:
    with LocalJudgeServer() as running:
        yield running
    assert not running.running


@pytest.fixture(scope="module")
def client(server: LocalJudgeServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.base_url, api_key="local", max_retries=0) as made:
        yield made


def ask(client: openai.OpenAI, system: str, user: str, schema: dict[str, Any],
        kind: str = "json_schema") -> Any:
    """One structured request; the answer must parse and conform to `schema`."""
    response_format: Any = (
        {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}
        if kind == "json_schema" else {"type": "json_object", "schema": schema}
    )
    answer = client.chat.completions.create(
        model="judge", temperature=0, response_format=response_format,
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
    )
    parsed = json.loads(answer.choices[0].message.content or "")
    jsonschema.validate(parsed, schema)
    assert answer.model == "judge"
    return parsed


class TestStructuredAnswers:
    def test_an_obviously_filled_slot_in_chinese(self, client: openai.OpenAI) -> None:
        """The standard json_schema response format; the phone number is in the dialog."""
        parsed = ask(client, "你检查客服对话收集了哪些信息。只用 JSON 回答。",
                     f"对话：\n{DIALOG}\n\n用户在对话中是否提供了「联系电话」？", SLOTS)
        assert parsed == {"filled": True}

    def test_the_server_specific_json_object_form_is_accepted_too(
        self, client: openai.OpenAI
    ) -> None:
        parsed = ask(client, "You classify customer messages. Answer only with JSON.",
                     _classify_prompt("你们的客服太差了，我要投诉！"), LABEL, kind="json_object")
        assert parsed == {"label": "complaint"}

    def test_a_booking_request_is_classified_as_booking(self, client: openai.OpenAI) -> None:
        parsed = ask(client, "You classify customer messages. Answer only with JSON.",
                     _classify_prompt("我想预约明天上午修空调"), LABEL)
        assert parsed == {"label": "appointment_booking"}

    def test_a_polite_reply_outscores_a_rude_one(self, client: openai.OpenAI) -> None:
        scores = [
            ask(client, "You grade customer-service replies. Answer only with JSON.",
                f"Criteria: 服务态度是否专业、礼貌 (is the reply polite and professional?).\n"
                f"Reply: {reply}\n\nGive a one-sentence reason, then a score from 1 (rude) "
                f"to 10 (very polite).", POLITENESS)["score"]
            for reply in ("您好，非常抱歉给您带来不便，我们马上为您安排师傅上门维修，请您放心。",
                          "滚，别烦我，自己修去。")
        ]
        assert scores[0] > scores[1]


class TestBoundedAnswers:
    def test_the_grammar_keeps_a_reason_within_its_max_length(
        self, client: openai.OpenAI
    ) -> None:
        """`maxLength` is part of the decoding grammar: a reason cannot run past it."""
        schema = {"type": "object", "properties": {
            "score": {"type": "integer", "minimum": 1, "maximum": 10},
            "reason": {"type": "string", "maxLength": 12}},
            "required": ["score", "reason"], "additionalProperties": False}
        parsed = ask(client, "You grade customer-service replies. Answer only with JSON.",
                     "Reply: 您好，非常抱歉给您带来不便，我们马上为您安排师傅上门维修。\n"
                     "Give the score, then a long, detailed reason.", schema)
        assert len(parsed["reason"]) <= 12


def _classify_prompt(text: str) -> str:
    labels = "\n".join(f"- {name}: {words}" for name, words in LABELS.items())
    return f"Classify the user's message into one label.\nLabels:\n{labels}\n\nMessage: {text}"


class TestRefusals:
    def test_an_empty_request_is_a_bad_request_not_a_server_error(
        self, client: openai.OpenAI
    ) -> None:
        """400s are permanent for the judge layer; a 500 would be retried in vain."""
        with pytest.raises(openai.BadRequestError, match="`messages` must be a non-empty list"):
            client.chat.completions.create(model="judge", messages=[])

    def test_a_prompt_beyond_the_context_window_is_a_bad_request(
        self, client: openai.OpenAI
    ) -> None:
        with pytest.raises(openai.BadRequestError, match="maximum context length") as caught:
            client.chat.completions.create(
                model="judge", messages=[{"role": "user", "content": "维修 " * 6000}])
        assert caught.value.code == "context_length_exceeded"

    def test_a_prompt_whose_answer_budget_does_not_fit_is_refused_with_the_counts(
        self, client: openai.OpenAI
    ) -> None:
        """llama.cpp would shrink `max_tokens` to what is left and cut the answer off."""
        with pytest.raises(openai.BadRequestError, match=r"\((\d+) in the messages, 6000 in "
                                                         r"the completion\)") as caught:
            client.chat.completions.create(
                model="judge", max_tokens=6000,
                messages=[{"role": "user", "content": "维修 " * 1500}])
        assert caught.value.code == "context_length_exceeded"

    def test_the_model_list_names_the_judge(self, client: openai.OpenAI) -> None:
        assert [m.id for m in client.models.list()] == ["judge"]


class TestLifecycle:
    def test_start_is_idempotent_and_base_url_is_loopback(self, server: LocalJudgeServer) -> None:
        pid = server.pid
        assert server.start().pid == pid
        assert server.base_url.startswith("http://127.0.0.1:")
        assert server.base_url.endswith("/v1")

    def test_a_server_that_died_says_so(self) -> None:
        """A crash is a configuration problem worth reading, not a silent connection error."""
        with LocalJudgeServer() as server:
            assert server.pid is not None
            os.kill(server.pid, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while server.running and time.monotonic() < deadline:
                time.sleep(0.05)
            with pytest.raises(ConfigError, match="the local judge server exited with code -9"):
                _ = server.base_url
            assert server.start().running  # start() replaces a dead server
        assert not server.running

    def test_base_url_before_start_is_an_error(self) -> None:
        with pytest.raises(RuntimeError, match="not running"):
            _ = LocalJudgeServer().base_url

    @pytest.mark.parametrize("ending", ["normal exit", "kill -9"])
    def test_the_server_dies_with_its_owner(self, ending: str) -> None:
        """atexit stops it on a normal exit; the server's own watch does after `kill -9`."""
        owner = subprocess.Popen(
            [sys.executable, "-c", _OWNER.format(wait=ending == "kill -9")],
            stdout=subprocess.PIPE, text=True)
        judge_pid = 0
        try:
            assert owner.stdout is not None
            judge_pid = int(owner.stdout.readline())
            if ending == "kill -9":
                owner.send_signal(signal.SIGKILL)
            owner.wait(timeout=30)
            assert _gone_within(judge_pid, 10.0), f"judge {judge_pid} outlived its owner"
        finally:
            if owner.poll() is None:
                owner.kill()
                owner.wait()
            if judge_pid and not _gone_within(judge_pid, 0.0):
                os.kill(judge_pid, signal.SIGKILL)
            if owner.stdout is not None:
                owner.stdout.close()


_OWNER = """
import time
from evaldsl.errors import ConfigError
from evaldsl.model.local.judge import LocalJudgeServer
from evaldsl.model.settings import Settings
server = LocalJudgeServer().start()
print(server.pid, flush=True)
if {wait}:
    time.sleep(60)
"""


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


SPEC = """
spec "本地评审：预约维修"

check intent = classify(scope: first_user, expect: "appointment_booking", labels: {
  appointment_booking: "预约服务",
  complaint: "投诉反馈",
  inquiry: "咨询信息",
})
check phone = slots(scope: dialog, slots: {phone: "联系电话"})

outcome {
  success if intent and phone
  failure otherwise
}
metric success_rate = rate(success)
"""
CASE = {
    "id": "repair-1",
    "messages": [
        {"role": "user", "content": "你好，我想预约一次上门维修服务。"},
        {"role": "assistant", "content": "好的，请问您的联系电话是多少？"},
        {"role": "user", "content": "13900001111。"},
        {"role": "assistant", "content": "收到，已为您预约明天上门。"},
    ],
}


class _Tracked(LocalJudgeServer):  # type: ignore[misc, unused-ignore]
    """The server class the runtime builds, remembering every instance it started."""

    started: list[LocalJudgeServer] = []

    def start(self) -> LocalJudgeServer:
        _Tracked.started.append(self)
        return super().start()


class TestEndToEnd:
    def test_a_spec_with_classify_and_slots_runs_on_the_local_judge(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`judge = "local"` settings: started on first need, answers parsed, stopped on close."""
        monkeypatch.setattr("evaldsl.model.local.judge.LocalJudgeServer", _Tracked)
        _Tracked.started.clear()
        settings = Settings.load(env={"EVALDSL_JUDGE": "local", "EVALDSL_NO_CACHE": "1"})
        spec = evaldsl.loads(SPEC, settings=settings)
        try:
            result = spec.evaluate(CASE)
        finally:
            spec.close()
        assert result.checks["intent"].get("label") == "appointment_booking"
        assert result.checks["phone"].get("filled") == {"phone": True}
        assert result.labels["outcome"] == "success"
        assert len({id(s) for s in _Tracked.started}) == 1
        assert not _Tracked.started[0].running

    def test_the_cli_flag_judge_local(self, tmp_path: Path) -> None:
        """`evaldsl run ... --judge local` starts, uses and stops the server itself."""
        (tmp_path / "spec.eval").write_text(SPEC, encoding="utf-8")
        (tmp_path / "cases.jsonl").write_text(json.dumps(CASE, ensure_ascii=False) + "\n",
                                              encoding="utf-8")
        run = subprocess.Popen(
            [sys.executable, "-m", "evaldsl", "run", "spec.eval", "cases.jsonl", "--judge",
             "local", "--no-cache", "--results", "results.jsonl", "-q"],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
        assert _servers_of(run.pid) == []
        lines = (tmp_path / "results.jsonl").read_text(encoding="utf-8").splitlines()
        line = next(row for row in map(json.loads, lines) if "id" in row)  # after the header
        assert line["labels"] == {"outcome": "success"}
        assert line["checks"]["phone"]["filled"] == {"phone": True}


def _servers_of(parent: int) -> list[int]:
    """Local judge servers still running that `parent` started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"evaldsl.model.local.server" in argv and str(parent).encode() in argv:
            found.append(int(entry.name))
    return found
