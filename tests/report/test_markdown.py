"""The Markdown summary for CI comments."""

from __future__ import annotations

from typing import Any

from evaldsl.report.markdown import md, render_markdown


def test_md_escapes_pipes_and_markup() -> None:
    assert md("a|b <i>`x`</i>") == "a\\|b &lt;i&gt;'x'&lt;/i&gt;"


def test_metric_row_has_value_denominator_interval_errors_and_where(
        report: dict[str, Any]) -> None:
    text = render_markdown(report)
    assert "| `success_rate` | **40.0%** | 2/5 | 11.8% – 76.9% | 1 | all cases |" in text
    assert "| `polite_rate` | **100.0%** | 2/2 | 34.2% – 100.0% | 1 | `intent.passed` |" in text


def test_outcomes_and_weakest_checks(report: dict[str, Any]) -> None:
    text = render_markdown(report)
    assert "**verdict**: success 2 (33%) · partial 1 (17%) · failure 2 (33%) · error 1 (17%)" \
        in text
    assert "`polite` 66.7% (2/3; 1 error)" in text


def test_no_raw_user_markup(report: dict[str, Any]) -> None:
    text = render_markdown(report)
    assert "<script>" not in text and "<b>" not in text
    assert "1 bad row skipped" in text
