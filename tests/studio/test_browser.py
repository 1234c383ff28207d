"""The studio in a real headless chromium: type a typo, see the squiggle and the hint,
accept the quick fix, run the examples, open a case of the results."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.chromium_page import Chromium
from tests.support.studio_server import SPEC, studio

CALL = "keyword(scope: replies"


@pytest.fixture
def base(tmp_path: Path) -> Iterator[str]:
    spec = tmp_path / "报修.eval"
    spec.write_text(SPEC, encoding="utf-8")
    with studio(spec, tmp_path / "runs") as address:
        yield address


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    """One chromium for the module: its start-up was most of each test's setup."""
    with Chromium(tmp_path_factory.mktemp("profile")) as chromium:
        yield chromium


@pytest.fixture
def tab(browser: Chromium) -> Chromium:
    """A fresh tab in a fresh browser context: no page or storage left by another test."""
    browser.new_tab()
    return browser


def type_over(tab: Chromium, old: str, new: str) -> None:
    """Select `old` in the editor and type `new` over it, as keystrokes do."""
    start = tab.run(f"document.getElementById('source').value.indexOf({json.dumps(old)})")
    assert start >= 0
    tab.run(f"(function () {{ var s = document.getElementById('source'); s.focus();"
            f" s.setSelectionRange({start}, {start + len(old)}); }})()")
    tab.send("Input.insertText", {"text": new}, tab.session)


def test_typo_squiggle_quick_fix_examples_and_a_case(base: str, tab: Chromium) -> None:
    tab.open(f"{base}/")
    tab.wait_for("document.body.dataset.checked", "the editor never checked the spec")
    assert tab.run("document.getElementById('problems').innerText") == "no problems"

    type_over(tab, "keyword", "keywrd")
    squiggle = tab.wait_for(
        "(document.querySelector('#overlay .sq-error') || {}).textContent",
        "no squiggle under the typo")
    assert squiggle == "keywrd"
    problems = tab.run("document.getElementById('problems').innerText")
    assert "error[E106]" in problems and "unknown primitive `keywrd`" in problems
    assert "help: did you mean `keyword`?" in problems

    tab.run("document.querySelector('#problems button.fix').click()")
    tab.wait_for("document.getElementById('problems').innerText === 'no problems'",
                 "the quick fix did not clear the problem")
    assert CALL in tab.run("document.getElementById('source').value")
    assert tab.run("document.querySelectorAll('#overlay .sq').length") == 0

    tab.open(f"{base}/run")
    tab.run("document.getElementById('run-examples').click()")
    tab.wait_for("document.getElementById('run-state').dataset.state === 'done'",
                 "the examples did not finish")
    assert tab.run("document.getElementById('run-message').textContent") == (
        "2 of 2 examples passed")
    assert tab.run("document.getElementById('run-count').textContent") == "2 of 2 done"
    results = tab.run("document.getElementById('open-results').href")

    tab.open(results)
    tab.run("(function () { var f = document.getElementById('f-id'); f.value = 'greets';"
            " f.dispatchEvent(new Event('input')); })()")
    tab.run("document.querySelector('#case-rows tr').dispatchEvent("
            "new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}))")
    drill = tab.wait_for("document.getElementById('drill').innerText",
                         "the case did not open")
    assert "example: greets and asks" in drill and "success" in drill


def test_the_editor_speaks_chinese(base: str, tab: Chromium) -> None:
    tab.open(f"{base}/")
    tab.run("document.getElementById('lang-zh').click()")
    tab.wait_for("(function () { try { return document.documentElement.lang === 'zh' &&"
                 " document.body.dataset.checked; } catch (reloading) { return false; } })()",
                 "the page did not switch to Chinese")
    assert tab.run("document.getElementById('save').textContent") == "保存"
    type_over(tab, "keyword", "keywrd")
    problems = tab.wait_for(
        "document.querySelector('#problems .error') &&"
        " document.getElementById('problems').innerText", "no problem shown")
    assert "错误[E106]" in problems and "未知原语 `keywrd`" in problems


def test_completion_and_hover_in_the_page(base: str, tab: Chromium) -> None:
    tab.open(f"{base}/")
    tab.wait_for("document.body.dataset.checked", "the editor never checked the spec")
    at = tab.run("document.getElementById('source').value.indexOf('问候')")
    tab.run(f"(function () {{ var s = document.getElementById('source');"
            f" s.setSelectionRange({at + 1}, {at + 1});"
            f" s.dispatchEvent(new MouseEvent('click')); }})()")
    hover = tab.wait_for("(t => t.indexOf('keyword') >= 0 && t)("
                         "document.getElementById('hover').textContent)", "no hover shown")
    assert "问候" in hover
    tab.run("(function () { var s = document.getElementById('source'); s.focus();"
            " s.setSelectionRange(s.value.length, s.value.length); })()")
    tab.send("Input.insertText", {"text": "metric m = rate("}, tab.session)
    offered = tab.wait_for(
        "!document.getElementById('completions').hidden &&"
        " Array.from(document.querySelectorAll('#completions li')).map(li => li.firstChild"
        ".textContent)", "no completion list opened")
    assert "success" in offered
    chosen = offered.index("success")
    for _step in range(chosen):
        tab.run("document.getElementById('source').dispatchEvent(new KeyboardEvent("
                "'keydown', {key: 'ArrowDown', bubbles: true}))")
    tab.run("document.getElementById('source').dispatchEvent(new KeyboardEvent("
            "'keydown', {key: 'Enter', bubbles: true}))")
    assert tab.run("document.getElementById('source').value").endswith("rate(success")
