"""The studio's endpoints over real HTTP: the language service's answers, runs with
progress, results, the review note, the language switch, and what the guard refuses."""

from __future__ import annotations

import json
import re
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from evaldsl.review.store import QueuedCase, open_store
from tests.support.run_kit import MODEL_SPEC, write_cases
from tests.support.studio_server import SPEC, studio

TYPO = SPEC.replace("keyword(scope: replies", "keywrd(scope: replies")
WAIT_S = 120.0


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("studio")


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on: every connection to it is refused."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port: int = listener.getsockname()[1]
    return port


@pytest.fixture(scope="module")
def base(folder: Path) -> Iterator[str]:
    """A studio whose runs' judge is a server that is not there."""
    spec = folder / "报修.eval"
    spec.write_text(SPEC, encoding="utf-8")
    dead = {"EVALDSL_JUDGE_BASE_URL": f"http://127.0.0.1:{closed_port()}/v1",
            "EVALDSL_JUDGE_MODEL": "m", "EVALDSL_JUDGE_API_KEY": "test-key"}
    with studio(spec, folder / "runs", dead) as address:
        yield address


TOKENS: dict[str, str] = {}
"""Each studio's token, read from its page as the page's script reads it."""


def token(url: str) -> str:
    """The token of the studio serving `url`, from the `evaldsl-token` meta of its page."""
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    if origin not in TOKENS:
        with urllib.request.urlopen(origin + "/", timeout=30) as answer:
            page = answer.read().decode("utf-8")
        found = re.search(r'<meta name="evaldsl-token" content="([^"]+)">', page)
        assert found is not None, page
        TOKENS[origin] = found.group(1)
    return TOKENS[origin]


def call(url: str, body: Any = None, headers: dict[str, str] | None = None,
         ) -> tuple[int, Any]:
    """(status, JSON or text) of a GET, or of a POST of `body` as JSON with the page's
    token, as the studio's own pages send it."""
    data = None if body is None else json.dumps(body).encode()
    sent = ({"Content-Type": "application/json", "X-Evaldsl-Token": token(url)} if data
            else {}) | (headers or {})
    request = urllib.request.Request(url, data, sent)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            text = answer.read().decode("utf-8")
            status = answer.status
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read().decode("utf-8")
    return status, json.loads(text) if answer.headers.get_content_type().endswith(
        "json") else text


def finished(base: str, run: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_S
    while run["state"] == "running":
        assert time.monotonic() < deadline, run
        time.sleep(0.1)
        run = call(f"{base}/api/run/{run['id']}")[1]
    return run


class TestEditorEndpoints:
    def test_a_typo_is_a_problem_with_its_range_code_and_suggestion(self, base: str) -> None:
        status, answer = call(f"{base}/api/check", {"text": TYPO, "version": 1})
        assert status == 200
        (problem,) = answer["problems"]
        assert (problem["code"], problem["suggestion"]) == ("E106", "keyword")
        assert problem["range"] == {"start": {"line": 3, "character": 18},
                                    "end": {"line": 3, "character": 24}}

    def test_the_quick_fix_replaces_the_range_with_the_suggestion(self, base: str) -> None:
        where = {"start": {"line": 3, "character": 18}, "end": {"line": 3, "character": 24}}
        _status, answer = call(f"{base}/api/fixes", {"text": TYPO, "version": 2,
                                                     "range": where})
        (fix,) = answer["fixes"]
        assert fix["edit"] == {"range": where, "new_text": "keyword"}

    def test_completion_and_hover_on_chinese_names(self, base: str) -> None:
        call(f"{base}/api/check", {"text": SPEC, "version": 3})
        text = SPEC + "let s = 问"
        end = {"line": text.count("\n"), "character": len(text.rsplit("\n", 1)[1])}
        _status, answer = call(f"{base}/api/complete", {"text": text, "version": 4,
                                                        "position": end})
        assert "问候" in [item["label"] for item in answer["items"]]
        _status, answer = call(f"{base}/api/hover", {
            "text": SPEC, "version": 5, "position": {"line": 2, "character": 7}})
        assert "keyword" in answer["hover"]["markdown"]

    def test_a_malformed_query_is_refused_with_a_reason(self, base: str) -> None:
        status, text = call(f"{base}/api/hover", {"text": SPEC, "version": 6})
        assert (status, text) == (400, "`position` must be {line, character}")


class TestRuns:
    def test_examples_run_with_progress_and_their_results_page(self, base: str) -> None:
        _status, run = call(f"{base}/api/run", {"kind": "examples", "text": SPEC})
        run = finished(base, run)
        assert (run["state"], run["done"], run["total"]) == ("done", 2, 2)
        assert run["message"] == "2 of 2 examples passed"
        status, page = call(base + run["results"])
        assert status == 200 and "example: greets and asks" in page

    def test_a_failed_example_says_why(self, base: str) -> None:
        wrong = SPEC.replace("expect failure", "expect success")
        run = finished(base, call(f"{base}/api/run", {"kind": "examples", "text": wrong})[1])
        assert run["message"] == "1 of 2 examples passed"
        failed = [e for e in run["examples"] if not e["passed"]]
        assert [e["name"] for e in failed] == ["asks nothing"]
        assert "expect success" in failed[0]["why"]

    def test_a_spec_with_errors_fails_the_run_out_loud(self, base: str) -> None:
        run = finished(base, call(f"{base}/api/run", {"kind": "examples", "text": TYPO})[1])
        assert run["state"] == "failed" and "E106" in run["message"]
        assert run["results"] is None

    def test_a_sample_of_a_cases_file_runs_in_a_child_with_its_journal(
            self, base: str, folder: Path) -> None:
        cases = folder / "cases.jsonl"
        write_cases(cases, 30)
        run = call(f"{base}/api/run", {"kind": "cases", "cases": str(cases), "sample": 7,
                                       "seed": 1})[1]
        assert run["total"] == 7
        run = finished(base, run)
        assert (run["state"], run["done"], run["message"]) == ("done", 7, "7 cases judged")
        journal = folder / "runs" / "runs" / run["id"] / "results.jsonl"
        assert len(journal.read_text("utf-8").splitlines()) == 1 + 7
        status, page = call(base + run["results"])
        assert status == 200 and "7 of 7 cases match" not in page  # counted by the page script
        assert "case-" in page
        listing = call(f"{base}/results")[1]
        assert f"/results/{run['id']}" in listing

    def test_a_run_whose_judge_is_not_there_fails_out_loud(self, base: str,
                                                           folder: Path) -> None:
        cases = folder / "judged.jsonl"
        write_cases(cases, 3)
        assert call(f"{base}/api/save", {"text": MODEL_SPEC})[0] == 200
        try:
            run = finished(base, call(f"{base}/api/run", {"kind": "cases",
                                                          "cases": str(cases)})[1])
        finally:
            call(f"{base}/api/save", {"text": SPEC})
        assert run["state"] == "failed" and run["results"] is None
        assert run["message"].startswith("the run failed (exit code 2): ")
        assert "cannot connect to the judge server" in run["message"]
        assert "test-key" not in run["message"]

    def test_a_missing_cases_file_is_named(self, base: str, folder: Path) -> None:
        status, text = call(f"{base}/api/run", {"kind": "cases", "cases": "nope.jsonl"})
        assert status == 400 and text == f"no cases file `{folder / 'nope.jsonl'}`"

    def test_an_unknown_run_is_not_found(self, base: str) -> None:
        assert call(f"{base}/api/run/999")[0] == 404


class TestPages:
    def test_without_a_store_the_review_page_says_how_to_give_one(self, base: str) -> None:
        for address in (f"{base}/review", f"{base}/review/"):
            status, page = call(address)
            assert status == 200 and "--review" in page

    def test_with_a_store_the_review_queue_is_served_and_labels_are_saved(
            self, tmp_path: Path) -> None:
        spec = tmp_path / "报修.eval"
        spec.write_text(SPEC, encoding="utf-8")
        store = open_store(tmp_path / "review.db")
        store.add_cases([QueuedCase(f"c{i}", i, 50.0, "sample 10%", {"labels": {}}, None)
                         for i in range(2)], {"levels": ["success", "failure"],
                                              "block": "outcome"})
        with studio(spec, tmp_path / "runs", review=tmp_path / "review.db") as address:
            status, page = call(f"{address}/review/")
            assert status == 200 and "review.js" in page
            status, queue = call(f"{address}/review/api/queue?reviewer=ann")
            assert status == 200 and [c["id"] for c in queue["cases"]] == ["c0", "c1"]
            label = {"case_id": "c1", "reviewer": "ann", "score": 75}
            assert call(f"{address}/review/api/labels", label)[0] == 200
        assert [(x.case_id, x.score) for x in open_store(tmp_path / "review.db").labels()] == [
            ("c1", 75.0)]

    def test_the_pages_switch_to_chinese_and_back(self, base: str) -> None:
        assert call(f"{base}/api/lang", {"lang": "zh"})[0] == 200
        try:
            page = call(f"{base}/run")[1]
            assert '<html lang="zh">' in page and "运行示例" in page
            _status, answer = call(f"{base}/api/check", {"text": TYPO, "version": 10})
            assert answer["problems"][0]["message"] == "未知原语 `keywrd`"
        finally:
            call(f"{base}/api/lang", {"lang": "en"})
        assert "Run the examples" in call(f"{base}/run")[1]


class TestGuard:
    def test_a_write_from_another_site_is_refused(self, base: str, folder: Path) -> None:
        status, text = call(f"{base}/api/save", {"text": "spec \"pwned\"\n"},
                            {"Origin": "http://evil.example"})
        assert (status, text) == (403, "requests from other sites are refused")
        assert "pwned" not in (folder / "报修.eval").read_text("utf-8")

    def test_a_form_post_is_refused(self, base: str) -> None:
        status, text = call(f"{base}/api/save", "text=x", {
            "Content-Type": "application/x-www-form-urlencoded"})
        assert (status, text) == (
            415, "this server takes JSON bodies only (Content-Type: application/json)")

    def test_another_host_name_is_refused(self, base: str) -> None:
        """A page of another site whose name was made to resolve to 127.0.0.1."""
        status, text = call(f"{base}/", headers={"Host": "attacker.example"})
        assert (status, text) == (
            403, "this server answers only to its own address, not to `attacker.example`")

    def test_a_write_without_this_start_token_is_refused(self, base: str,
                                                         folder: Path) -> None:
        """A page of another site, or of an earlier start, holds no valid token."""
        for stale in ({"X-Evaldsl-Token": ""}, {"X-Evaldsl-Token": "an-old-token"}):
            status, text = call(f"{base}/api/save", {"text": "spec \"stale\"\n"}, stale)
            assert status == 403 and "reload it" in text
        assert "stale" not in (folder / "报修.eval").read_text("utf-8")

    def test_save_writes_the_spec(self, base: str, folder: Path) -> None:
        assert call(f"{base}/api/save", {"text": SPEC + "\n"})[0] == 200
        assert (folder / "报修.eval").read_text("utf-8") == SPEC + "\n"


class TestRunRequests:
    @pytest.mark.parametrize("sample, seed", [(0, 1), (-3, 1), (True, 1), ("5", 1), (5, -1),
                                              (5, 1.5)])
    def test_a_sample_or_seed_that_is_not_a_whole_number_is_refused(
            self, base: str, folder: Path, sample: object, seed: object) -> None:
        cases = folder / "few.jsonl"
        write_cases(cases, 2)
        status, text = call(f"{base}/api/run", {"kind": "cases", "cases": str(cases),
                                                "sample": sample, "seed": seed})
        assert (status, text) == (400, "the sample size and seed must be whole numbers")
