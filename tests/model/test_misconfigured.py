"""A misconfigured judge or embedder stops the run; a transient failure stays one case's error,
and a request that never reached a server costs nothing."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from evaldsl.errors import ConfigError


def refused_url() -> str:
    """The URL of a port nobody listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def ask(runtime: Any, requests_of: Any, make_dialog: Any, primitive: str = "judge") -> Any:
    if primitive == "judge":
        request = requests_of("polite", "judge", criteria="礼貌", scale=10)
    else:
        request = requests_of("close", "similarity", reference="您好")
    result, = asyncio.run(runtime.resolve(make_dialog("你好", "您好，请问有什么可以帮您"),
                                          [request]))
    return result


class TestStops:
    @pytest.mark.parametrize("kind", ["401", "403", "404"])
    def test_a_refusal_of_the_configuration_raises(self, kind: str, runtime_for: Any,
                                                   requests_of: Any, make_dialog: Any,
                                                   openai_server: Any) -> None:
        runtime = runtime_for(cache=False)
        openai_server.control(faults=[{"kind": kind, "count": 100}])
        with pytest.raises(ConfigError, match=f"HTTP {kind}") as caught:
            ask(runtime, requests_of, make_dialog)
        assert "sk-test-secret-123" not in str(caught.value)

    def test_a_refused_first_connection_raises_at_once(self, runtime_for: Any,
                                                       requests_of: Any,
                                                       make_dialog: Any) -> None:
        runtime = runtime_for(cache=False, judge_base_url=refused_url(),
                              judge_backoff="5")
        with pytest.raises(ConfigError, match="cannot connect to the judge server"):
            ask(runtime, requests_of, make_dialog)

    def test_an_unreachable_embedder_raises(self, runtime_for: Any, requests_of: Any,
                                            make_dialog: Any) -> None:
        runtime = runtime_for(cache=False, embed_base_url=refused_url())
        with pytest.raises(ConfigError, match="cannot connect to the embedding server"):
            ask(runtime, requests_of, make_dialog, "similarity")

    def test_a_request_never_sent_is_not_counted(self, runtime_for: Any, requests_of: Any,
                                                 make_dialog: Any) -> None:
        runtime = runtime_for(cache=False, judge_base_url=refused_url())
        with pytest.raises(ConfigError):
            ask(runtime, requests_of, make_dialog)
        stats = runtime.stats()
        assert (stats.calls, stats.prompt_tokens, stats.completion_tokens) == (0, 0, 0)


class TestStaysAValue:
    def test_a_server_error_after_contact_is_one_cases_error(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            openai_server: Any) -> None:
        """A 500 is transient: retried, then this case's error, and the run goes on."""
        runtime = runtime_for(cache=False, judge_max_retries="1")
        assert not ask(runtime, requests_of, make_dialog).is_error
        openai_server.control(faults=[{"kind": "500", "count": 2}])
        result = ask(runtime, requests_of, make_dialog)
        assert result.is_error and "HTTP 500" in result.reason
