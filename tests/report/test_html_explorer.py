"""The HTML report's case explorer in a real headless chromium: filters, search, paging, the
drill-down, and case text that stays text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.chromium_page import Chromium
from tests.support.run_kit import evaldsl

SPEC = """\
spec "explorer <b>page</b>"
case { tenant: text, gold: map }
check greets = keyword(scope: first_user, any: ["hello"])
check calls = args_match(expected: case.gold, alternatives: true)
let score = 100 * calls
outcome intent {
  reached if greets
  missed otherwise
}
outcome success {
  done if calls
  not_done otherwise
}
metric avg_score = mean(score)
review (seed: 1) {
  sample 100% where not_done priority 100 - score
}
"""

XSS = ("</script><script>window.pwned = 1; document.title = 'pwned'</script>"
       "<img src=x onerror=\"window.pwned = 2\">")
BULK = 126


def row(case_id: str, user: str, amount: Any, tenant: str) -> dict[str, Any]:
    call = {"id": "c0", "type": "function",
            "function": {"name": "transfer", "arguments": json.dumps({"amount": amount})}}
    return {"id": case_id, "tenant": tenant,
            "gold": {"calls": [{"name": "transfer", "args": {"amount": [10000]}}]},
            "messages": [{"role": "user", "content": user},
                         {"role": "assistant", "content": "转账已提交", "tool_calls": [call]}]}


ROWS = [row("c1", "hello, send 10000", "10000", "acme"),
        row("c2", "hello, send it", 5, "acme"),
        row("c3", "hi there", 10000, "beta"),
        row("xss", f"hello {XSS}", 10000, "beta"),
        *(row(f"bulk-{i:03d}", "hello", 10000, "gamma") for i in range(BULK))]


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HTML report of `evaldsl run` over `ROWS`."""
    folder = tmp_path_factory.mktemp("explorer")
    (folder / "spec.eval").write_text(SPEC, encoding="utf-8")
    cases = folder / "cases.jsonl"
    cases.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS),
                     encoding="utf-8")
    done = evaldsl("run", folder / "spec.eval", cases, "--html", folder / "report.html", "-q")
    assert done.returncode == 0, done.stderr
    return folder / "report.html"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    with Chromium(tmp_path_factory.mktemp("profile")) as chromium:
        yield chromium


@pytest.fixture
def tab(browser: Chromium, page: Path) -> Chromium:
    browser.open(page)
    return browser


def choose(tab: Chromium, ident: str, value: str, event: str = "change") -> None:
    tab.run(f"(function () {{ var e = document.getElementById({json.dumps(ident)});"
            f" e.value = {json.dumps(value)};"
            f" e.dispatchEvent(new Event({json.dumps(event)})); }})()")


def shown_ids(tab: Chromium) -> list[str]:
    ids: list[str] = tab.run(
        "Array.from(document.querySelectorAll('#case-rows tr td.id')).map(td => td.textContent)")
    return ids


def open_case(tab: Chromium, case_id: str) -> str:
    """Search the case by id, press Enter on its row; the drill-down's text."""
    choose(tab, "f-id", case_id, "input")
    tab.run("document.querySelector('#case-rows tr').dispatchEvent("
            "new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}))")
    text: str = tab.run("document.getElementById('drill').innerText")
    return text


class TestFilters:
    def test_every_case_is_counted_and_a_page_of_rows_shown(self, tab: Chromium) -> None:
        total = len(ROWS)
        assert tab.run("document.getElementById('match-count').textContent") == (
            f"{total} of {total} cases match")
        assert len(shown_ids(tab)) == 100
        tab.run("document.getElementById('next').click()")
        assert len(shown_ids(tab)) == total - 100
        assert tab.run("document.getElementById('page-info').textContent") == (
            f"rows 101–{total}")

    def test_filter_by_a_label(self, tab: Chromium) -> None:
        choose(tab, "f-label", "0:missed")
        assert shown_ids(tab) == ["c3"]
        choose(tab, "f-label", "1:not_done")
        assert shown_ids(tab) == ["c2"]

    def test_filter_by_a_check_status(self, tab: Chromium) -> None:
        choose(tab, "f-check", "1")
        choose(tab, "f-status", "failed")
        assert shown_ids(tab) == ["c2"]
        choose(tab, "f-check", "0")
        assert shown_ids(tab) == ["c3"]

    def test_filter_by_a_declared_case_field(self, tab: Chromium) -> None:
        choose(tab, "f-group", "0:beta")
        assert shown_ids(tab) == ["c3", "xss"]

    def test_search_by_id_and_by_dialog_text(self, tab: Chromium) -> None:
        choose(tab, "f-id", "XS", "input")
        assert shown_ids(tab) == ["xss"]
        choose(tab, "f-id", "", "input")
        choose(tab, "f-text", "send 10000", "input")
        assert shown_ids(tab) == ["c1"]


class TestDrillDown:
    def test_a_case_shows_its_reasons_strict_and_normalized_lets_and_dialog(
            self, tab: Chromium) -> None:
        text = open_case(tab, "c1")
        assert "calls: passed" in text, "the trace lists each check's status"
        assert "success = done — done if calls" in text
        pair = tab.run("document.querySelector('#drill tr.pair').innerText")
        assert "normalized: passed" in pair and "strict: failed" in pair
        assert "amount" in pair, "the strict mismatch says which argument differs"
        assert tab.run("document.querySelector('#drill tr[data-let=\"score\"]').innerText"
                       ) == "score\t100"
        assert "hello, send 10000" in text and "→ transfer(" in text

    def test_a_failed_case_shows_the_mismatch_as_its_reason(self, tab: Chromium) -> None:
        open_case(tab, "c2")
        reason = tab.run("document.querySelector('#drill tr[data-check=\"calls\"] td.reason')"
                         ".textContent")
        assert "amount" in reason and "5" in reason

    def test_a_review_link_opens_the_case(self, tab: Chromium) -> None:
        assert tab.run("Array.from(document.querySelectorAll('#review-table code'))"
                       ".map(c => c.textContent)") == ["c2"]
        tab.run("document.querySelector('#review-table a').click()")
        assert tab.run("document.querySelector('#drill h3').textContent") == "c2"


class TestCaseTextStaysText:
    def test_a_dialog_closing_the_script_element_runs_nothing(self, tab: Chromium) -> None:
        text = open_case(tab, "xss")
        assert XSS in text
        assert tab.run("window.pwned === undefined")
        assert tab.run("document.title") == "explorer <b>page</b>"
        assert tab.run("document.querySelectorAll('img').length") == 0
        assert tab.run("document.querySelectorAll('script').length") == 3
