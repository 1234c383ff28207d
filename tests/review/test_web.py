"""The review app's HTTP API on 127.0.0.1, served alone and mounted inside another app."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from evaldsl.review.store import QueuedCase, ReviewStore, open_store
from evaldsl.review.web import make_app, words
from tests.support.app_client import serve


def _store(path: Path) -> ReviewStore:
    store = open_store(path)
    store.add_cases([QueuedCase("c1", 0, 9.0, None, {"labels": {"outcome": "failure"}},
                                [{"role": "user", "content": "</script><b>x</b>"}]),
                     QueuedCase("c2", 1, 1.0, None, {"labels": {}}, None)],
                    {"levels": ["good", "bad"], "block": "outcome"})
    return store


def _config(page: str) -> dict[str, Any]:
    found = re.search(r'<script id="config" type="application/json">(.*?)</script>', page, re.S)
    assert found is not None
    config: dict[str, Any] = json.loads(found.group(1))
    return config


def test_a_label_is_saved_and_a_wrong_one_answered_400(tmp_path: Path) -> None:
    store = _store(tmp_path / "s.db")

    async def client(s: aiohttp.ClientSession, base: str) -> None:
        async with s.get(base + "/") as page:
            config = _config(await page.text())
        s.headers[config["token_header"]] = config["token"]  # as the page's script sends it
        async with s.post(base + "/api/labels", json={"case_id": "c1", "reviewer": "li",
                                                       "score": 150}) as bad:
            assert bad.status == 400
            assert (await bad.json())["error"] == "the score 150 is outside 0-100 points"
        async with s.post(base + "/api/labels", json={"case_id": "c1", "reviewer": "li",
                                                       "score": 40, "level": "bad"}) as ok:
            assert ok.status == 200
        async with s.get(base + "/api/queue", params={"reviewer": "li"}) as queue:
            data = await queue.json()
            assert (data["done"], data["total"]) == (1, 2)
            assert data["cases"][0]["mine"]["score"] == 40
        async with s.get(base + "/api/case", params={"id": "nope"}) as missing:
            assert missing.status == 404

    serve(make_app(store), client)
    assert [(x.case_id, x.score, x.level) for x in store.labels()] == [("c1", 40.0, "bad")]


def test_mounted_under_a_prefix_every_address_has_it(tmp_path: Path) -> None:
    parent = web.Application()
    parent.add_subapp("/review", make_app(_store(tmp_path / "s.db"), "zh"))

    async def client(s: aiohttp.ClientSession, base: str) -> None:
        async with s.get(base + "/review/") as page:
            text = await page.text()
        config = _config(text)
        assert config["urls"] == {"page": "/review/", "queue": "/review/api/queue",
                                  "case": "/review/api/case", "labels": "/review/api/labels"}
        assert config["language"] == "zh" and '<script src="/review/review.js">' in text
        async with s.get(base + config["urls"]["case"], params={"id": "c1"}) as case:
            assert (await case.json())["case"]["dialog"][0]["content"] == "</script><b>x</b>"

    serve(parent, client)


def test_the_dialog_cannot_close_the_config_script(tmp_path: Path) -> None:
    store = _store(tmp_path / "s.db")
    store.add_cases([], {"levels": ["</script><script>alert(1)</script>"]})

    async def client(s: aiohttp.ClientSession, base: str) -> None:
        async with s.get(base + "/") as page:
            text = await page.text()
        assert "alert(1)</script>" not in text
        assert _config(text)["levels"] == ["</script><script>alert(1)</script>"]

    serve(make_app(store), client)


def test_every_word_of_the_page_has_a_chinese_translation() -> None:
    english, chinese = words("en"), words("zh")
    assert [key for key in english if english[key] == chinese[key]] == []
