"""Words of the reports and checks that were left in English, or in the wrong number."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaldsl.checker import check_source


def test_one_case_is_one_case_and_the_verdict_is_in_chinese(
        tmp_path: Path, kit: Any, spec_file: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    kit.write_cases(cases, 1)
    english = kit.evaldsl("run", spec_file, cases, "--md", tmp_path / "en.md")
    assert " · 1 case\n" in english.stdout and "1 cases" not in english.stdout
    assert "**1** case judged" in (tmp_path / "en.md").read_text("utf-8")
    kit.evaldsl("--lang", "zh", "run", spec_file, cases, "--md", tmp_path / "zh.md")
    summary = (tmp_path / "zh.md").read_text("utf-8")
    assert "(verdict:" not in summary and "(结论: " in summary


def test_an_example_may_give_a_developer_message() -> None:
    spec = ('check k = keyword(any: ["好"])\nmetric m = rate(k)\n'
            'example "dev" {\n  developer "be brief"\n  user "hi"\n  assistant "好"\n'
            "  expect k\n}\n")
    assert [d.code for d in check_source(spec, "t.eval")[1]] == []
    wrong = check_source(spec.replace("developer", "develper"), "t.eval")[1]
    assert "`developer`" in wrong[0].hint


def test_an_unclosed_parenthesis_in_a_pattern_in_chinese_with_its_caret() -> None:
    from evaldsl.diagnostics import render
    from evaldsl.i18n import set_language
    from evaldsl.syntax.source import Source

    spec = 'check r = regex(pattern: "工单号(\\\\d+")\nmetric m = rate(r)\n'
    set_language("zh")
    try:
        [found] = check_source(spec, "t.eval")[1]
        shown = render(found, Source(spec, "t.eval"))
    finally:
        set_language("en")
    assert "missing" not in found.message and "没有闭合" in found.message
    assert (found.span.line, found.span.col, found.span.end_col) == (1, 30, 31)
    assert shown.splitlines()[2].count("^") == 1
