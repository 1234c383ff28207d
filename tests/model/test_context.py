"""A dialog longer than the judge's context: an error with the counts, never a silent
truncation or an opaque server failure, against the test server."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from evaldsl.model.context_window import estimate_tokens, from_server
from evaldsl.values import ErrorValue

LONG = "请问您的地址是哪里？我们的师傅明天上午九点上门维修空调。" * 40


def ask(runtime: Any, requests_of: Any, make_dialog: Any) -> Any:
    request = requests_of("polite", "judge", "dialog", criteria="礼貌", scale=10)
    result, = asyncio.run(runtime.resolve(make_dialog("你好", LONG), [request]))
    return result


class TestAKnownContext:
    def test_a_prompt_estimated_over_it_is_an_error_and_is_not_sent(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            openai_server: Any) -> None:
        result = ask(runtime_for(cache=False, judge_context="600"), requests_of, make_dialog)
        assert isinstance(result.passed, ErrorValue)
        assert re.search(r"the dialog is too long for the judge: about \d+ prompt tokens "
                         r"\(estimated\) and \d+ for the answer exceed its context of 600 "
                         r"tokens", result.reason), result.reason
        assert openai_server.stats()["chat"] == 0

    def test_a_prompt_that_fits_is_asked(self, runtime_for: Any, requests_of: Any,
                                         make_dialog: Any) -> None:
        assert not ask(runtime_for(cache=False, judge_context="8192"), requests_of,
                       make_dialog).is_error


class TestAServerThatRefuses:
    def test_its_context_error_reads_as_the_same_message_with_its_counts(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            openai_server: Any) -> None:
        """OpenAI's `context_length_exceeded`, neither retried nor a format downgrade."""
        openai_server.control(context=500)
        result = ask(runtime_for(cache=False), requests_of, make_dialog)
        assert isinstance(result.passed, ErrorValue)
        found = re.search(r"the dialog is too long for the judge: (\d+) prompt tokens and "
                          r"(\d+) for the answer exceed its context of 500 tokens",
                          result.reason)
        assert found, result.reason
        sent = openai_server.stats()["max_tokens"]
        assert int(found.group(2)) == sent[0]
        assert openai_server.stats()["chat"] == 1
        assert openai_server.stats()["formats"] == ["json_schema"]


class TestTheEstimate:
    def test_counts_chinese_by_the_character_and_english_at_three_a_token(self) -> None:
        assert estimate_tokens([{"role": "user", "content": "你好"}]) == 8 + 2
        assert estimate_tokens([{"role": "user", "content": "abcdef"}]) == 8 + 2

    def test_a_refusal_without_counts_gets_the_estimate(self) -> None:
        error = from_server("prompt is too long for the context window", 900, 400)
        assert (error.prompt, error.answer, error.context, error.estimated) == (
            900, 400, None, True)
        assert "about 900 prompt tokens (estimated)" in str(error)

    def test_llama_cpp_s_own_wording_is_read(self) -> None:
        error = from_server("Requested tokens (5000) exceed context window of 4096", 1, 300)
        assert (error.prompt, error.context, error.estimated) == (5000, 4096, False)


class TestAWindow:
    def test_lets_a_long_dialog_be_judged_on_what_fits(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            openai_server: Any) -> None:
        """The same dialog, too long whole, is judged on its first and last messages."""
        turns = ["我想修空调", *([LONG, "好的"] * 3), "谢谢", "不客气"]
        runtime = runtime_for(cache=False, judge_context="1500")
        whole = requests_of("polite", "judge", "dialog", criteria="礼貌")
        windowed = requests_of("polite", "judge", "dialog", criteria="礼貌",
                               window={"first": 1, "last": 2})
        too_long, judged = asyncio.run(runtime.resolve(make_dialog(*turns),
                                                       [whole, windowed]))
        assert "too long for the judge" in too_long.reason
        assert not judged.is_error, judged.reason
        assert openai_server.stats()["chat"] == 1
