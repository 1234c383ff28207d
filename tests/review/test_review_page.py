"""`evaldsl review serve` in a real headless chromium: label three cases with the keyboard,
reload, and find the labels on the page and in the store."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from evaldsl.review.store import open_store
from tests.support.chromium_page import Chromium
from tests.support.run_kit import REPO, printed_address


class Served(NamedTuple):
    url: str
    store: Path
    process: subprocess.Popen[str]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("serve")
    spec, cases, results = folder / "spec.eval", folder / "cases.jsonl", folder / "results.jsonl"
    spec.write_text(kit.SPEC, encoding="utf-8")
    kit.write_cases(cases, 60)
    done = kit.evaldsl("run", spec, cases, "--results", results, "-q")
    assert done.returncode in (0, 1), done.stderr
    store = folder / "labels.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "evaldsl", "review", "serve", str(results), "--spec", str(spec),
         "--cases", str(cases), "--store", str(store), "--port", "0", "--lang", "en"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        yield Served(printed_address(process), store, process)
    finally:
        process.terminate()
        try:
            process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate(timeout=10)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    with Chromium(tmp_path_factory.mktemp("profile")) as chromium:
        yield chromium


SHOWN = "document.querySelector('#item h2') && document.querySelector('#item h2').textContent"
QUEUE = "Array.from(document.querySelectorAll('#queue li')).map(li => li.dataset.id)"
DONE = "Array.from(document.querySelectorAll('#queue li.done')).map(li => li.dataset.id)"


def _open(tab: Chromium, url: str) -> list[str]:
    tab.open(url)
    tab.wait_for(SHOWN)
    queue: list[str] = tab.run(QUEUE)
    return queue


def _label(tab: Chromium, digit: str, note: str) -> None:
    """Score with a digit, take the first level, write a note, save with Enter."""
    shown = tab.run(SHOWN)
    tab.press(digit)
    tab.press("l")
    tab.press("n")
    tab.send("Input.insertText", {"text": note}, tab.session)
    tab.press("Escape")
    tab.press("Enter")
    tab.wait_for(f"{SHOWN} !== {shown!r} && document.getElementById('status').textContent")


def test_three_cases_labelled_with_the_keyboard_survive_a_reload(
        served: Served, browser: Chromium) -> None:
    url = served.url + "?reviewer=li&lang=en"
    queue = _open(browser, url)
    assert len(queue) >= 4
    assert browser.run(SHOWN) == queue[0]
    assert "j/k" in browser.run("document.getElementById('keys').textContent")
    for digit, note in (("4", "漏问地址"), ("2", "too slow"), ("5", "")):
        _label(browser, digit, note)
    assert browser.run(SHOWN) == queue[3]

    assert _open(browser, url) == queue
    assert browser.run(DONE) == queue[:3]
    assert browser.run(SHOWN) == queue[3], "the page opens on the first case not yet labelled"
    assert browser.run("document.getElementById('progress').textContent").startswith("3 of ")
    for _ in range(3):
        browser.press("k")
    browser.wait_for(f"{SHOWN} === {queue[0]!r}")
    assert browser.run("document.getElementById('score').value") == "75"
    assert browser.run("document.getElementById('note').value") == "漏问地址"

    with open_store(served.store) as store:
        saved = {x.case_id: (x.reviewer, x.score, x.level, x.note) for x in store.labels()}
        level = store.levels()[0]
    assert saved == {queue[0]: ("li", 75.0, level, "漏问地址"),
                     queue[1]: ("li", 25.0, level, "too slow"),
                     queue[2]: ("li", 100.0, level, "")}


def test_a_second_reviewer_sees_the_first_and_their_agreement(
        served: Served, browser: Chromium) -> None:
    queue = _open(browser, served.url + "?reviewer=wang&lang=en")
    assert browser.run(SHOWN) == queue[0], "wang has labelled nothing yet"
    _label(browser, "2", "")
    browser.press("k")
    browser.wait_for(f"{SHOWN} === {queue[0]!r}")
    others = browser.run("document.getElementById('item').innerText")
    assert "li: 75" in others and "wang: 25" in others
    assert "reviewers differ by 50 points on this case" in others
    agreement = browser.run("document.getElementById('agreement').textContent")
    assert "50.0 points apart on average over 1 pairs" in agreement


def test_the_page_in_chinese(served: Served, browser: Chromium) -> None:
    _open(browser, served.url + "?reviewer=li&lang=zh")
    assert browser.run("document.documentElement.lang") == "zh"
    assert browser.run("document.getElementById('title').textContent") == "评审"
    assert browser.run("document.getElementById('language').textContent") == "English"
