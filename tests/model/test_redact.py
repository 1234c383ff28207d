"""One redactor between what servers say and every result: configured keys and key shapes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from evaldsl.model import Settings, default_runtime
from evaldsl.model.keys import PLACEHOLDER_KEY
from evaldsl.model.protocols import JudgeAnswer, JudgeRequest
from evaldsl.model.redact import Redactor

KEY = "acme-7f3e9c21d0-key"


class TestRedactor:
    def test_configured_keys_and_key_shapes_are_cut(self) -> None:
        redactor = Redactor([KEY, None])
        assert redactor.text(f"sent {KEY}; Bearer abc.def and sk-proj-12_x") == \
            "sent ***; *** and ***"

    def test_a_key_that_contains_another_is_cut_whole(self) -> None:
        assert Redactor(["abc123", "abc123-long"]).text("x abc123-long y") == "x *** y"

    def test_the_placeholder_and_the_local_key_are_not_secrets(self) -> None:
        """Cutting `local` out of every reason would garble text and protect nothing."""
        redactor = Redactor([PLACEHOLDER_KEY, "local"])
        assert redactor.text("local judge, not-needed") == "local judge, not-needed"

    def test_json_values_are_walked(self) -> None:
        value = {"polite": {"reason": f"saw {KEY}", "score": 7, "tags": [KEY, 1]}}
        assert Redactor([KEY]).value(value) == {
            "polite": {"reason": "saw ***", "score": 7, "tags": ["***", 1]}}


class EchoJudge:
    """A judge of the caller's own (no HTTP client involved) whose answers quote the key."""

    cache_identity = "echo:1"

    async def complete(self, request: JudgeRequest) -> JudgeAnswer:
        assert request.schema is not None
        prop = next(iter(request.schema["properties"]))
        answer = {prop: {"reason": f"the key was {KEY}", "score": 8}}
        return JudgeAnswer(json.dumps(answer), answer)


def test_any_judges_answer_is_redacted_before_results_and_cache(
        requests_of: Any, make_dialog: Any, tmp_path: Path) -> None:
    """The runtime, not the client, redacts: a judge brought by the caller is covered, and
    so is the answer cache."""
    settings = Settings.load(env={"EVALDSL_JUDGE_API_KEY": KEY,
                                  "EVALDSL_CACHE_DIR": str(tmp_path)})
    runtime = default_runtime(settings, judge=EchoJudge())
    results = asyncio.run(runtime.resolve(make_dialog("q", "a"),
                                          [requests_of("p", "judge", criteria="x")]))
    runtime.close()
    text = json.dumps([r.to_dict() for r in results])
    assert "the key was ***" in text and KEY not in text
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert KEY.encode() not in stored
