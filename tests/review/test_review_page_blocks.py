"""A spec with two outcome blocks in a real headless chromium: `review serve` labels both
(the form names each block, in English and Chinese), and `calibrate --outcome level` reads
the `level` labels the page saved."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from evaldsl.review.store import open_store
from tests.review.test_blocks import TWO_BLOCKS
from tests.support.chromium_page import Chromium
from tests.support.run_kit import REPO, printed_address

pytestmark = pytest.mark.slow


class Served(NamedTuple):
    url: str
    folder: Path
    spec: Path
    results: Path
    store: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("serve_blocks")
    spec, cases, results = folder / "spec.eval", folder / "cases.jsonl", folder / "results.jsonl"
    spec.write_text(TWO_BLOCKS, encoding="utf-8")
    kit.write_cases(cases, 40)
    done = kit.evaldsl("run", spec, cases, "--results", results, "-q")
    assert done.returncode in (0, 1), done.stderr
    store = folder / "labels.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "evaldsl", "review", "serve", str(results), "--spec", str(spec),
         "--cases", str(cases), "--store", str(store), "--port", "0", "--lang", "en",
         "--outcome", "outcome,level"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        yield Served(printed_address(process), folder, spec, results, store)
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
FORM_LABELS = "Array.from(document.querySelectorAll('#form label.block')).map(x => x.textContent)"


def _open(tab: Chromium, url: str) -> list[str]:
    tab.open(url)
    tab.wait_for(SHOWN)
    queue: list[str] = tab.run(QUEUE)
    return queue


def test_both_blocks_labelled_on_the_page_and_calibrated_by_level(
        served: Served, browser: Chromium, kit: Any) -> None:
    queue = _open(browser, served.url + "?reviewer=li&lang=en")
    assert len(queue) >= 3
    labels = browser.run(FORM_LABELS)
    assert labels[0].startswith("level of `outcome`") and labels[1].startswith("level of `level`")
    assert "labelling `outcome`, `level`" in browser.run(
        "document.getElementById('blocks').textContent")
    assert "b next outcome block" in browser.run("document.getElementById('keys').textContent")
    records = {r["id"]: r["labels"] for r in map(
        json.loads, served.results.read_text("utf-8").splitlines()[1:])}
    levels = ["好", "中", "差"]
    for case_id in queue[:3]:
        assert browser.run(SHOWN) == case_id
        browser.press("3")
        browser.press("l")  # the first level of `outcome`
        browser.press("b")
        for _ in range(levels.index(records[case_id]["level"]) + 1):
            browser.press("l")
        browser.press("b")
        browser.press("Enter")
        browser.wait_for(f"{SHOWN} !== {case_id!r} && document.getElementById('status')"
                         ".textContent")

    with open_store(served.store) as store:
        saved = sorted((x.case_id, x.block, x.level, x.score) for x in store.labels())
        first = store.levels("outcome")[0]
    assert saved == sorted([(c, "outcome", first, 50.0) for c in queue[:3]]
                           + [(c, "level", records[c]["level"], 50.0) for c in queue[:3]])

    browser.press("k")
    browser.wait_for(f"{SHOWN} === {queue[2]!r}")
    assert browser.run("document.getElementById('level-1').value") == records[queue[2]]["level"]

    done = kit.evaldsl("calibrate", served.results, served.store, "--spec", served.spec,
                       "--outcome", "level", "--format", "json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert (figures["outcome"], figures["cases"], figures["labels"]["agreement"]) == (
        "level", 3, 1.0)


def test_the_page_names_each_block_in_chinese(served: Served, browser: Chromium) -> None:
    _open(browser, served.url + "?reviewer=wang&lang=zh")
    labels = browser.run(FORM_LABELS)
    assert labels[0].startswith("`outcome` 的等级") and labels[1].startswith("`level` 的等级")
    assert "正在标注" in browser.run("document.getElementById('blocks').textContent")
