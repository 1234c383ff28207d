"""A spec with two outcome blocks: both are labelled on the review page, each label stored
with its block, the server refusing a block it does not serve, and `calibrate --outcome`
reading what was stored for that block."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from evaldsl.review.importing import import_results
from evaldsl.review.store import Label, open_store
from evaldsl.review.web import make_app
from tests.support.app_client import serve
from tests.support.run_kit import SPEC

TWO_BLOCKS = SPEC + """\
outcome level {
  好 if greets and asks_name
  中 if greets or asks_name
  差 otherwise
}
"""



async def _token(s: aiohttp.ClientSession, base: str) -> dict[str, Any]:
    async with s.get(base + "/") as page:
        found = re.search(r'<script id="config" type="application/json">(.*?)</script>',
                          await page.text(), re.S)
    assert found is not None
    config: dict[str, Any] = json.loads(found.group(1))
    s.headers[config["token_header"]] = config["token"]
    return config


@pytest.fixture(scope="module")
def run_of_two(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("blocks")
    spec, cases, results = folder / "s.eval", folder / "c.jsonl", folder / "r.jsonl"
    spec.write_text(TWO_BLOCKS, encoding="utf-8")
    kit.write_cases(cases, 60)
    done = kit.evaldsl("run", spec, cases, "--results", results, "-q")
    assert done.returncode in (0, 1), done.stderr
    return {"folder": folder, "spec": spec, "cases": cases, "results": results}


def _fresh_store(run_of_two: dict[str, Path], name: str) -> Path:
    db = run_of_two["folder"] / name
    with open_store(db) as store:
        import_results(store, run_of_two["results"], run_of_two["spec"], [run_of_two["cases"]])
    return db


def test_a_level_of_the_second_block_is_saved_for_that_block(
        run_of_two: dict[str, Path]) -> None:
    db = _fresh_store(run_of_two, "second.db")
    with open_store(db) as store:
        first = store.queue()[0].id

        async def client(s: aiohttp.ClientSession, base: str) -> None:
            await _token(s, base)
            async with s.post(base + "/api/labels", json={
                    "case_id": first, "reviewer": "li", "block": "level",
                    "level": "差"}) as saved:
                assert saved.status == 200, await saved.text()

        serve(make_app(store), client)
        assert [(x.case_id, x.block, x.level) for x in store.labels()] == [
            (first, "level", "差")]


def test_a_page_serving_one_block_refuses_the_others_by_name(
        run_of_two: dict[str, Path]) -> None:
    db = _fresh_store(run_of_two, "refuse.db")
    with open_store(db) as store:
        first = store.queue()[0].id

        async def client(s: aiohttp.ClientSession, base: str) -> None:
            config = await _token(s, base)
            assert [b["key"] for b in config["blocks"]] == ["level"]
            async with s.post(base + "/api/labels", json={
                    "case_id": first, "reviewer": "li", "block": "outcome",
                    "level": "failure"}) as other:
                assert other.status == 400
                assert (await other.json())["error"] == (
                    "this page labels the outcome block `level` only, not `outcome` "
                    "(serve it with --outcome outcome)")
            async with s.post(base + "/api/labels", json={
                    "case_id": first, "reviewer": "li", "levels": {"levle": "差"}}) as typo:
                assert typo.status == 400
                assert (await typo.json())["error"] == (
                    "the spec has no outcome block `levle`; the store has `outcome`, `level`")
            async with s.post(base + "/api/labels", json={
                    "case_id": first, "reviewer": "li", "level": "差"}) as bare:
                assert bare.status == 200, "a bare level is the first served block's"

        serve(make_app(store, blocks=["level"]), client)
        assert [(x.block, x.level) for x in store.labels()] == [("level", "差")]


def test_one_save_labels_every_served_block_and_a_cleared_one_is_removed(
        run_of_two: dict[str, Path]) -> None:
    db = _fresh_store(run_of_two, "both.db")
    with open_store(db) as store:
        first = store.queue()[0].id

        async def client(s: aiohttp.ClientSession, base: str) -> None:
            config = await _token(s, base)
            assert [(b["key"], b["labels"]) for b in config["blocks"]] == [
                ("outcome", ["success", "partial", "failure"]), ("level", ["好", "中", "差"])]
            async with s.post(base + "/api/labels", json={
                    "case_id": first, "reviewer": "li", "score": 40, "note": "慢",
                    "levels": {"outcome": "failure", "level": "中"}}) as both:
                assert both.status == 200, await both.text()
            async with s.get(base + "/api/queue", params={"reviewer": "li"}) as queue:
                mine = (await queue.json())["cases"][0]["mine"]
                assert mine["levels"] == {"outcome": "failure", "level": "中"}
            async with s.post(base + "/api/labels", json={
                    "case_id": first, "reviewer": "li", "score": None,
                    "levels": {"outcome": None, "level": "差"}}) as again:
                assert again.status == 200, await again.text()

        serve(make_app(store), client)
        assert [(x.block, x.score, x.level) for x in store.labels()] == [("level", None, "差")]


def test_calibrate_reads_the_labels_stored_for_the_block_it_is_given(
        kit: Any, run_of_two: dict[str, Path]) -> None:
    db = _fresh_store(run_of_two, "calibrate.db")
    records = [json.loads(x) for x in run_of_two["results"].read_text("utf-8").splitlines()[1:]]
    auto = {r["id"]: r["labels"] for r in records}
    with open_store(db) as store:
        queue = [c.id for c in store.queue()]
        for case_id in queue:
            store.save_label(Label(case_id, "li", level=auto[case_id]["level"], block="level"))
            store.save_label(Label(case_id, "li", level="failure", block="outcome"))
    level = kit.evaldsl("calibrate", run_of_two["results"], db, "--spec", run_of_two["spec"],
                        "--outcome", "level", "--format", "json")
    assert level.returncode == 0, level.stderr
    figures = json.loads(level.stdout)
    assert (figures["outcome"], figures["cases"]) == ("level", len(queue))
    assert figures["labels"]["agreement"] == 1.0
    verdict = kit.evaldsl("calibrate", run_of_two["results"], db, "--spec", run_of_two["spec"],
                          "--format", "json")
    assert verdict.returncode == 0, verdict.stderr
    figures = json.loads(verdict.stdout)
    assert figures["outcome"] == "outcome"
    assert figures["labels"]["agreed"] == sum(auto[c]["outcome"] == "failure" for c in queue)


def test_a_store_of_the_first_layout_reads_its_labels_as_the_blocks_they_were_for(
        tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript("""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE cases (
  id TEXT PRIMARY KEY, position INTEGER NOT NULL, priority REAL, rule TEXT,
  machine TEXT NOT NULL, dialog TEXT);
CREATE TABLE labels (
  number INTEGER PRIMARY KEY AUTOINCREMENT,
  case_id TEXT NOT NULL REFERENCES cases(id), reviewer TEXT NOT NULL,
  score REAL, level TEXT, note TEXT NOT NULL DEFAULT '', skipped INTEGER NOT NULL DEFAULT 0,
  saved_at TEXT NOT NULL, UNIQUE (case_id, reviewer));
INSERT INTO meta VALUES ('schema', '1'), ('block', '"outcome"'),
  ('levels', '["good", "poor"]');
INSERT INTO cases VALUES ('c1', 0, NULL, NULL, '{}', NULL);
INSERT INTO labels (case_id, reviewer, score, level, saved_at)
  VALUES ('c1', 'li', 20, 'poor', '2026-01-01T00:00:00+00:00');
""")
    db.commit()
    db.close()
    with open_store(path) as store:
        assert [(x.reviewer, x.block, x.level) for x in store.labels()] == [
            ("li", "outcome", "poor")]
        assert store.blocks() == {"outcome": ["good", "poor"]}
        store.save_label(Label("c1", "li", 30.0, "good"))
        assert [(x.block, x.score) for x in store.labels()] == [("outcome", 30.0)]


def test_serving_a_block_the_store_does_not_have_is_a_usage_error(
        kit: Any, run_of_two: dict[str, Path]) -> None:
    db = _fresh_store(run_of_two, "cli.db")
    done = kit.evaldsl("review", "serve", db, "--outcome", "levle", "--port", "0")
    assert done.returncode == 2
    assert ("evaldsl review: error: the spec has no outcome block `levle`; the store has "
            "`outcome`, `level`") in done.stderr
    assert "hint: did you mean `level`?" in done.stderr
