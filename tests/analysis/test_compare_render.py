"""A comparison drawn for the terminal and for Markdown."""

from __future__ import annotations

from typing import Any

from evaldsl.analysis.compare_render import render_markdown, render_terminal


def _data() -> dict[str, Any]:
    return {
        "cases": {"paired": 3, "only_base": 0, "only_new": 0, "duplicated_base": 0,
                  "duplicated_new": 0},
        "metrics": [],
        "transitions": [{"block": "outcome", "labels": ["成功", "failure", "error"],
                         "counts": [{"base": "成功", "new": "failure", "cases": 2},
                                    {"base": "failure", "new": "成功", "cases": 1}]}],
        "changed_cases": [], "gates": [],
    }


class TestTerminal:
    def test_columns_line_up_under_wide_characters(self) -> None:
        """A Chinese label takes two terminal cells per character."""
        lines = render_terminal(_data()).splitlines()
        start = lines.index("transitions of `outcome`:")
        assert lines[start + 1:start + 5] == [
            "base \\ new  成功  failure  error",
            "成功        0     2        0",
            "failure     1     0        0",
            "error       0     0        0"]


class TestMarkdown:
    def test_the_transition_table_is_a_markdown_table(self) -> None:
        text = render_markdown(_data())
        assert "| base \\ new | 成功 | failure | error |\n|---|---|---|---|\n" in text
        assert "| 成功 | 0 | 2 | 0 |" in text
