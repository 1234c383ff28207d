"""The shared guard's reading of Host headers: IP addresses, `localhost` and the names the
server was given pass; any other name (DNS rebinding) is refused."""

from __future__ import annotations

import pytest

from evaldsl.webguard import Guard, host_name


@pytest.mark.parametrize(("host", "own"), [
    ("127.0.0.1:8765", True), ("[::1]:80", True), ("localhost:1", True), ("LOCALHOST", True),
    ("192.168.1.20:80", True), ("review.lan:8765", True), ("evil.example:8765", False),
    ("127.0.0.1.nip.io:80", False), ("localhost.evil.example", False), ("", False),
    ("[evil]:80", False),
])
def test_own_host(host: str, own: bool) -> None:
    assert Guard(["review.lan"]).own_host(host) is own


def test_host_name_drops_the_port_only() -> None:
    assert [host_name(h) for h in ("127.0.0.1:8765", "[::1]:80", "localhost", "::1")] == [
        "127.0.0.1", "[::1]", "localhost", "::1"]


def test_a_browser_app_has_a_token_per_start_and_an_api_none() -> None:
    first, second = Guard(browser=True), Guard(browser=True)
    assert first.token and second.token and first.token != second.token
    assert Guard().token is None


@pytest.mark.parametrize(("path", "kind", "refused"), [
    ("/v1/traces", "application/x-protobuf", None),
    ("/v1/traces", "application/json", None),
    ("/sessions", "application/x-protobuf", 415),
    ("/v1/traces", "text/plain", 415),
    ("/v1/traces", "application/x-www-form-urlencoded", 415),
])
def test_a_route_may_take_one_more_body_type_than_json(path: str, kind: str,
                                                       refused: int | None) -> None:
    from aiohttp.test_utils import make_mocked_request

    guard = Guard(bodies={"/v1/traces": "application/x-protobuf"})
    request = make_mocked_request("POST", path, headers={"Host": "127.0.0.1:8765",
                                                         "Content-Type": kind})
    answer = guard.refusal(request)
    assert (answer.status if answer is not None else None) == refused


def test_no_route_may_take_a_body_a_cross_site_page_can_send() -> None:
    with pytest.raises(ValueError):
        Guard(bodies={"/v1/traces": "text/plain"})
