"""`watch --port` lets no other page in: a hostile page on another port of 127.0.0.1, loaded
in a real headless chromium, cannot post a session; a foreign Host header is refused; an
API client with no Origin and the right Host still posts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.chromium_page import Chromium
from tests.support.hostile_site import foreign_host, hostile_page
from tests.support.watch_kit import Watch
from tests.watch.test_watch_cli import SPEC, session


@pytest.fixture
def watch(tmp_path: Path) -> Iterator[Watch]:
    spec = tmp_path / "watch.eval"
    spec.write_text(SPEC, encoding="utf-8")
    started = Watch(spec, "--state", tmp_path / "state")
    try:
        yield started
    finally:
        started.stop()


def _sessions(watch: Watch) -> int:
    count: int = watch.get("/report")["sessions"]
    return count


@pytest.mark.slow
def test_a_hostile_page_in_chromium_cannot_post_a_session(watch: Watch,
                                                          tmp_path: Path) -> None:
    with hostile_page(watch.base, "/sessions", session(1)) as page, \
            Chromium(tmp_path / "profile") as browser:
        browser.open(page)
        tried = browser.wait_for("window.forged", "the hostile page never finished")
    assert len(tried) == 3
    assert _sessions(watch) == 0
    assert watch.post([session(2)])["judged"] == 1  # the API client still gets in


def test_a_foreign_host_is_refused(watch: Watch) -> None:
    watch.post([session(1, poor=True)])
    for path in ("/report", "/report.html"):
        status, text = foreign_host(watch.base + path)
        assert status in (403, 421), (path, status)
        assert "s1" not in text and "质量差" not in text
    status, _text = foreign_host(watch.base + "/sessions", "POST",
                                 json.dumps(session(2)).encode(),
                                 {"Content-Type": "application/json"})
    assert status in (403, 421)
    assert _sessions(watch) == 1


def test_an_api_client_without_origin_posts_json(watch: Watch) -> None:
    status, answer = watch.post_body(json.dumps(session(1)).encode(),
                                     {"Content-Type": "application/json"})
    assert (status, answer["judged"]) == (200, 1)
    lines = (json.dumps(session(2)) + "\n" + json.dumps(session(3)) + "\n").encode()
    status, answer = watch.post_body(lines, {"Content-Type": "application/x-ndjson"})
    assert (status, answer["judged"]) == (200, 2)


def test_a_cross_site_or_form_post_is_refused(watch: Watch) -> None:
    body = json.dumps(session(1)).encode()
    status, _answer = watch.post_body(body, {"Content-Type": "application/json",
                                             "Origin": "http://127.0.0.1:1"})
    assert status == 403
    status, _answer = watch.post_body(body, {"Content-Type": "text/plain"})
    assert status == 415
    assert _sessions(watch) == 0
