"""The Markdown summary for CI comments."""

from __future__ import annotations

import re
from typing import Any

from evaldsl.report.document import ReportDoc
from evaldsl.report.json_report import metric_entry
from evaldsl.report.markdown import render_markdown
from evaldsl.report.markdown_text import code, md
from tests.support import formula_kit


def test_md_escapes_pipes_and_markup() -> None:
    assert md("a|b <i>`x`</i>") == "a\\|b &lt;i&gt;'x'&lt;/i&gt;"


def test_metric_row_has_value_denominator_interval_errors_and_where(report: ReportDoc) -> None:
    text = render_markdown(report)
    assert "| `success_rate` | **40.0%** | 2/5 | 11.8% – 76.9% | 1 | all cases |" in text
    assert "| `polite_rate` | **100.0%** | 2/2 | 34.2% – 100.0% | 1 | `intent.passed` |" in text


def test_outcomes_and_weakest_checks(report: ReportDoc) -> None:
    text = render_markdown(report)
    assert (
        "**verdict**: success 2 (33%) · partial 1 (17%) · failure 2 (33%) · error 1 (17%)" in text
    )
    assert "`polite` 66.7% (2/3; 1 error)" in text


def test_no_raw_user_markup(report: ReportDoc) -> None:
    """User text is escaped outside code spans; inside one it is literal text,
    which no renderer reads as markup."""
    text = render_markdown(report)
    outside = "".join(re.split(r"(`+)(?:.+?)\1", text)[::2])
    assert "<script>" not in outside and "<b>" not in text
    assert "- `c4 <script>" in text
    assert "1 bad row skipped" in text


def test_code_span_keeps_text_literal() -> None:
    assert code("a<b && c>d") == "`a<b && c>d`"


def test_code_span_fence_outgrows_backticks_inside() -> None:
    assert code("a`b") == "``a`b``"
    assert code("x``y`") == "``` x``y` ```"


def test_code_span_still_escapes_table_pipes_and_newlines() -> None:
    assert code("a|b\nc", cell=True) == "`a\\|b c`"
    assert code("a|b") == "`a|b`"


def test_metric_where_with_comparison_is_not_escaped(report: ReportDoc) -> None:
    report.metrics[1].where = "score < 3"
    text = render_markdown(report)
    assert "| `score < 3` |" in text and "score &lt;" not in text


def test_a_formula_metric_lists_its_parts(layout: Any, sample: Any) -> None:
    report = sample.build(layout)
    report.metrics = [metric_entry(formula_kit.state().result()), *report.metrics]
    text = render_markdown(report)
    assert re.search(r"\| `success_rate` \| \*\*70\.0%\*\* \| n=10 \| "
                     r"\d+\.\d% – \d+\.\d% \(bootstrap\) \| 0 \| all cases \|", text)
    assert f"- `success_rate` = `{formula_kit.BREAKDOWN}`" in text
    assert "| `success_rate` | **40.0%** | 2/5 | 11.8% – 76.9% | 1 | all cases |" in text
