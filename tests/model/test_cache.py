"""The on-disk answer cache: re-runs cost nothing, errors are never stored."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from evaldsl.model.cache import AnswerCache, cache_key


def run(runtime: Any, case: Any, requests: list[Any]) -> list[Any]:
    return asyncio.run(runtime.resolve(case, requests))


def requests(requests_of: Any) -> list[Any]:
    return [requests_of("polite", "judge", criteria="礼貌"),
            requests_of("intent", "classify", "first_user", labels=["a", "b"]),
            requests_of("same", "similarity", reference="明天上门")]


class TestRuntimeCache:
    def test_a_rerun_makes_zero_calls(self, runtime_for: Any, requests_of: Any,
                                      make_dialog: Any, openai_server: Any) -> None:
        """A new runtime over the same cache directory answers everything from disk."""
        case = make_dialog("我想约维修", "师傅明天上门")
        first = run(runtime_for(), case, requests(requests_of))
        before = openai_server.stats()
        again = runtime_for()
        second = run(again, case, requests(requests_of))
        after = openai_server.stats()
        assert (after["chat"], after["embeddings"]) == (before["chat"], before["embeddings"])
        assert again.stats().calls == 0
        assert again.stats().cached == 4
        assert [r.to_dict() for r in first] == [r.to_dict() for r in second]

    def test_no_cache_asks_again(self, runtime_for: Any, requests_of: Any,
                                 make_dialog: Any, openai_server: Any) -> None:
        """`--no-cache` (EVALDSL_NO_CACHE) neither reads nor writes the cache."""
        case = make_dialog("我想约维修", "师傅明天上门")
        run(runtime_for(cache=False), case, requests(requests_of))
        run(runtime_for(cache=False), case, requests(requests_of))
        assert openai_server.stats()["chat"] == 4

    def test_a_changed_criterion_misses(self, runtime_for: Any, requests_of: Any,
                                        make_dialog: Any, openai_server: Any) -> None:
        """The key covers the prompt: another criterion is another question."""
        case = make_dialog("hi", "hello")
        run(runtime_for(), case, [requests_of("p", "judge", criteria="polite")])
        run(runtime_for(), case, [requests_of("p", "judge", criteria="friendly")])
        assert openai_server.stats()["chat"] == 2

    def test_errors_are_never_cached(self, runtime_for: Any, requests_of: Any,
                                     make_dialog: Any, openai_server: Any) -> None:
        """A failed check is asked again on the next run."""
        case = make_dialog("hi", "hello")
        openai_server.control(faults=[{"kind": "malformed", "count": 2}])
        failed, = run(runtime_for(), case, [requests_of("p", "judge", criteria="x")])
        assert failed.is_error
        good, = run(runtime_for(), case, [requests_of("p", "judge", criteria="x")])
        assert not good.is_error
        assert openai_server.stats()["chat"] == 3


class TestAnswerCache:
    def test_values_round_trip(self, tmp_path: Path) -> None:
        """What is put is got back, under a key of kind, identity and payload."""
        cache = AnswerCache(tmp_path)
        key = cache_key("chat", "openai:m", ["hello"])
        assert cache.get(key) is None
        cache.put(key, "chat", {"a": [1, "二"]})
        assert cache.get(key) == {"a": [1, "二"]}
        assert cache_key("chat", "openai:other", ["hello"]) != key
        cache.close()

    def test_threads_share_one_file_safely(self, tmp_path: Path) -> None:
        """Eight threads writing and reading at once lose nothing."""
        cache = AnswerCache(tmp_path)

        def work(n: int) -> None:
            for i in range(50):
                cache.put(cache_key("chat", "t", [n, i]), "chat", [n, i])
                assert cache.get(cache_key("chat", "t", [n, i])) == [n, i]

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(cache) == 400
        cache.close()
        reopened = AnswerCache(tmp_path)
        assert reopened.get(cache_key("chat", "t", [7, 49])) == [7, 49]
        reopened.close()


def test_a_full_cache_warns_once_and_keeps_serving(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SQLITE_FULL (a real one: the file may not grow) loses the caching, never the run."""
    cache = AnswerCache(tmp_path)
    cache.put("k0", "chat", "seed")
    pages = cache._connection().execute("PRAGMA page_count").fetchone()[0]
    cache._connection().execute(f"PRAGMA max_page_count={pages}")
    for i in range(3):
        cache.put(f"k{i + 1}", "chat", "x" * 100_000)
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and str(cache.path) in err
    assert cache.get("k0") == "seed"
    cache.close()


class TestCachedAnswersAreValidated:
    def _rewrite(self, directory: Path, kind: str, value: str) -> int:
        import sqlite3

        conn = sqlite3.connect(directory / "answers.sqlite3")
        try:
            with conn:
                return conn.execute("UPDATE answers SET value = ? WHERE kind = ?",
                                    (value, kind)).rowcount
        finally:
            conn.close()

    @pytest.mark.parametrize("stored", ['{"polite": {"score": 99}}', '[1, 2]', '{"polite'],
                             ids=["out-of-schema", "wrong-type", "not-json"])
    def test_a_chat_entry_that_does_not_fit_is_asked_again_and_overwritten(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any, openai_server: Any,
            tmp_path: Path, stored: str) -> None:
        """A cached answer gets the validation a live one gets: one that does not fit the
        request's schema is a miss, asked again, and replaced by the good answer."""
        case = make_dialog("hi", "hello")
        asked = [requests_of("polite", "judge", criteria="polite")]
        first, = run(runtime_for(), case, asked)
        assert self._rewrite(tmp_path / "cache", "chat", stored) == 1
        again = runtime_for()
        second, = run(again, case, asked)
        assert second.to_dict() == first.to_dict()
        assert (again.stats().calls, again.stats().cached) == (1, 0)
        assert again.stats().cache_read_failures == 1
        third = runtime_for()
        run(third, case, asked)
        assert (third.stats().calls, third.stats().cached) == (0, 1)
        assert openai_server.stats()["chat"] == 2

    def test_an_embedding_entry_that_is_no_vector_is_asked_again(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any, openai_server: Any,
            tmp_path: Path) -> None:
        case = make_dialog("我想约维修", "师傅明天上门")
        asked = [requests_of("same", "similarity", reference="明天上门")]
        first, = run(runtime_for(), case, asked)
        assert self._rewrite(tmp_path / "cache", "embed", '"not a vector"') == 2
        again = runtime_for()
        second, = run(again, case, asked)
        assert second.to_dict() == first.to_dict()
        assert again.stats().cache_read_failures == 2


class TestUnreadableCache:
    def test_a_file_that_is_no_database_is_a_miss_with_one_warning(
            self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        (tmp_path / "answers.sqlite3").write_bytes(b"\x13" * 8192)
        cache = AnswerCache(tmp_path)
        assert [cache.get(f"k{i}") for i in range(3)] == [None] * 3
        cache.put("k0", "chat", "value")
        err = capsys.readouterr().err
        assert err.count("warning:") == 1 and str(cache.path) in err
        assert (cache.failures.reads, cache.failures.writes) == (3, 1)
        cache.close()
