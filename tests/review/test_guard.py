"""`evaldsl review serve` lets no other page in: a hostile page on another port of 127.0.0.1,
loaded in a real headless chromium, cannot save a forged label; a foreign Host header reads
no dialog; a write without the page's token is refused; the page itself still saves."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from evaldsl.review.store import QueuedCase, open_store
from tests.support.chromium_page import Chromium
from tests.support.hostile_site import foreign_host, hostile_page
from tests.support.run_kit import REPO

SECRET_DIALOG = "我的银行卡密码是 7788"
FORGED = {"case_id": "c1", "reviewer": "mallory", "score": 0, "note": "forged"}


class Served(NamedTuple):
    url: str
    store: Path


def _address(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _w, _x = select.select([process.stdout], [], [], 1.0)
        if ready:
            line = process.stdout.readline()
            assert line, "the review server ended before saying its address"
            if "http://127.0.0.1:" in line:
                return line[line.index("http://"):].split()[0].rstrip("/")
    raise AssertionError("the review server did not start in time")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    path = tmp_path_factory.mktemp("guard") / "labels.db"
    with open_store(path) as store:
        store.add_cases([QueuedCase("c1", 0, 9.0, None, {"labels": {"outcome": "failure"}},
                                    [{"role": "user", "content": SECRET_DIALOG}])],
                        {"levels": ["good", "bad"], "block": "outcome"})
    process = subprocess.Popen(
        [sys.executable, "-m", "evaldsl", "review", "serve", str(path), "--port", "0",
         "--lang", "en"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        cwd=REPO, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        yield Served(_address(process), path)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        assert process.stdout is not None
        process.stdout.close()


def _reviewers(store: Path) -> list[str]:
    with open_store(store) as opened:
        return [label.reviewer for label in opened.labels()]


def _post(url: str, body: object, headers: dict[str, str]) -> tuple[int, str]:
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        with refused:
            return refused.code, refused.read().decode()


def _token(url: str) -> str:
    with urllib.request.urlopen(url + "/", timeout=30) as answer:
        page = answer.read().decode()
    found = re.search(r'<script id="config" type="application/json">(.*?)</script>', page, re.S)
    assert found is not None
    token: str = json.loads(found.group(1))["token"]
    return token


@pytest.mark.slow
def test_a_hostile_page_in_chromium_cannot_save_a_label(served: Served,
                                                        tmp_path: Path) -> None:
    with hostile_page(served.url, "/api/labels", FORGED) as page, \
            Chromium(tmp_path / "profile") as browser:
        browser.open(page)
        tried = browser.wait_for("window.forged", "the hostile page never finished")
    assert len(tried) == 3
    assert "mallory" not in _reviewers(served.store)


def test_a_foreign_host_reads_no_dialog(served: Served) -> None:
    for path in ("/", "/api/case?id=c1", "/api/queue?reviewer=x"):
        status, text = foreign_host(served.url + path)
        assert status in (403, 421), (path, status)
        assert SECRET_DIALOG not in text and "c1" not in text
    status, _text = foreign_host(served.url + "/api/labels", "POST",
                                 json.dumps(FORGED).encode(),
                                 {"Content-Type": "application/json"})
    assert status in (403, 421)
    assert "mallory" not in _reviewers(served.store)


def test_a_write_without_the_page_token_is_refused(served: Served) -> None:
    status, text = _post(served.url + "/api/labels", FORGED,
                         {"Content-Type": "application/json"})
    assert status == 403 and "reload" in text
    status, _text = _post(served.url + "/api/labels", FORGED,
                          {"Content-Type": "application/json", "X-Evaldsl-Token": "guess"})
    assert status == 403
    assert "mallory" not in _reviewers(served.store)


def test_a_write_as_a_form_is_refused(served: Served) -> None:
    status, _text = _post(served.url + "/api/labels", FORGED,
                          {"Content-Type": "text/plain", "X-Evaldsl-Token": _token(served.url)})
    assert status == 415
    assert "mallory" not in _reviewers(served.store)


def test_the_page_own_token_saves(served: Served) -> None:
    label = {"case_id": "c1", "reviewer": "ann", "score": 75}
    status, _text = _post(served.url + "/api/labels", label, {
        "Content-Type": "application/json", "X-Evaldsl-Token": _token(served.url),
        "Origin": served.url})
    assert status == 200
    assert "ann" in _reviewers(served.store)
