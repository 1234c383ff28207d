"""No key or endpoint URL ever reaches a result, a reason, the cache or the stats."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from evaldsl.errors import ConfigError
from evaldsl.model import Settings, default_runtime

KEY = "sk-test-secret-123"


def outputs(runtime: Any, results: list[Any]) -> str:
    return json.dumps([r.to_dict() for r in results], ensure_ascii=False) + repr(runtime.stats())


def test_results_and_cache_hold_no_key_or_url(runtime_for: Any, requests_of: Any,
                                              make_dialog: Any, openai_server: Any,
                                              tmp_path: Path) -> None:
    """After good answers, faults and malformed output, neither secret appears anywhere."""
    runtime = runtime_for(judge_max_retries="1", embed_max_retries="1")
    openai_server.control(faults=[{"kind": "malformed", "count": 2, "path": "chat"},
                                  {"kind": "500", "count": 2, "path": "embeddings"}])
    requests = [requests_of("p", "judge", criteria="x"),
                requests_of("s", "similarity", reference="y"),
                requests_of("c", "classify", "last_reply", labels=["a", "b"])]
    results = asyncio.run(runtime.resolve(make_dialog("q", "a"), requests))
    runtime.close()
    assert [r.is_error for r in results] == [True, True, True]
    assert "not json" in results[0].reason
    assert openai_server.stats()["authorized"] > 0
    text = outputs(runtime, results)
    files = b"".join(p.read_bytes() for p in (tmp_path / "cache").rglob("*") if p.is_file())
    for secret in (KEY, openai_server.base_url, f"127.0.0.1:{openai_server.port}"):
        assert secret not in text
        assert secret.encode() not in files


def test_an_unreachable_endpoint_is_not_named(requests_of: Any, make_dialog: Any,
                                              tmp_path: Path) -> None:
    """Connection failures say what failed and the server's host and port, never the path,
    query or credentials of its URL (a gateway may carry a token there)."""
    url = "http://127.0.0.1:9/v1/secret-path?token=t0k"
    settings = Settings.load(env={"EVALDSL_JUDGE_BASE_URL": url, "EVALDSL_JUDGE_API_KEY": KEY,
                                  "EVALDSL_JUDGE_MAX_RETRIES": "0",
                                  "EVALDSL_CACHE_DIR": str(tmp_path)})
    runtime = default_runtime(settings)
    with pytest.raises(ConfigError) as caught:
        asyncio.run(runtime.resolve(make_dialog("q", "a"),
                                    [requests_of("p", "judge", criteria="x")]))
    runtime.close()
    assert str(caught.value) == "cannot connect to the judge server at 127.0.0.1:9"
    for secret in ("secret-path", "t0k"):
        assert secret not in str(caught.value) and secret not in repr(runtime.stats())
    assert KEY not in repr(settings)


def test_a_key_the_server_echoes_is_cut_out(runtime_for: Any, requests_of: Any,
                                            make_dialog: Any, openai_server: Any) -> None:
    """A 401 that repeats the key it refused: the key never reaches the message."""
    runtime = runtime_for(cache=False)
    openai_server.control(faults=[{"kind": "401", "count": 5}])
    with pytest.raises(ConfigError) as caught:
        asyncio.run(runtime.resolve(make_dialog("q", "a"),
                                    [requests_of("p", "judge", criteria="x")]))
    assert "HTTP 401" in str(caught.value) and KEY not in str(caught.value)


def test_a_server_is_named_by_host_and_port_only() -> None:
    """Credentials, path and query of a URL never reach a message; a URL unread is not named."""
    from evaldsl.model.openai.judge import host_and_port

    assert host_and_port("http://user:pw@10.0.0.5:8080/v1/tok?key=k") == "10.0.0.5:8080"
    assert host_and_port("https://api.example.com/v1") == "api.example.com"
    assert host_and_port(None) is None and host_and_port("not a url") is None
