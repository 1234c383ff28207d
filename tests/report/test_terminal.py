"""The layered report printed after a run."""

from __future__ import annotations

import re
from typing import Any

from evaldsl.i18n import set_language
from evaldsl.report.document import Metric, ReportDoc
from evaldsl.report.json_report import metric_entry
from evaldsl.report.terminal import metric_line, pad, render_terminal
from tests.support import formula_kit


def test_metric_line_reads_like_the_language_reference() -> None:
    metric = Metric(name="solvable_completion", expression=None, value=0.825, numerator=33,
                    denominator=40, errors=2, where="case.solvable", is_rate=True,
                    interval=None, error_examples=[], template=None, parts=None, by=None,
                    groups=None)
    assert metric_line(metric) == \
        "solvable_completion    82.5%  (33/40, where case.solvable; 2 errors left out)"


def test_layers_in_reading_order(report: ReportDoc) -> None:
    lines = render_terminal(report).splitlines()
    assert lines[0] == "维修 <b>预约</b> & co · 6 cases · 1 bad row skipped"
    assert lines[3].split() == ["success_rate", "40.0%", "(2/5;", "1", "error", "left", "out)",
                                "95%", "11.8%–76.9%"]
    assert lines[-4].startswith("outcome: success 2 (33.3%)")
    assert lines[-3].startswith("checks: ")
    assert lines[-2].startswith("errors: 1 × ")
    assert lines[-1] == "cost: 4 model calls · 1 from cache · 1280 tokens"


def test_pad_counts_wide_characters_twice() -> None:
    assert pad("意图", 6) == "意图  "


def test_chinese_layers(report: ReportDoc) -> None:
    """The report's own words follow the language; the spec's names stay as written."""
    set_language("zh")
    try:
        lines = render_terminal(report).splitlines()
    finally:
        set_language("en")
    assert lines[0] == "维修 <b>预约</b> & co · 6 个用例 · 跳过了 1 个坏行"
    assert "success_rate" in lines[3] and "剔除了 1 个错误" in lines[3]
    assert lines[-1] == "开销：4 次模型调用 · 1 次命中缓存 · 1280 个 token"


def test_a_formula_metric_prints_its_parts_and_bootstrap(layout: Any, sample: Any) -> None:
    report = sample.build(layout)
    report.metrics = [metric_entry(formula_kit.state().result()), *report.metrics]
    lines = render_terminal(report).splitlines()
    assert re.fullmatch(r"  success_rate      70\.0%  \(n=10\)  95% \d+\.\d%–\d+\.\d% "
                        r"\(bootstrap\)", lines[3])
    assert lines[4] == f"{' ' * 18}= {formula_kit.BREAKDOWN}"
    assert lines[5].split()[:3] == ["success_rate", "40.0%", "(2/5;"]
