"""The HTML report: escaped, self-contained, and rendered by a real headless chromium."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import pytest

from evaldsl.i18n import set_language
from evaldsl.record import CaseRecord
from evaldsl.report.document import ReportDoc
from evaldsl.report.explorer import Explorer
from evaldsl.report.html import histogram_svg, outcome_chart, render_html
from evaldsl.report.html_pieces import esc
from evaldsl.report.json_report import metric_entry
from tests.support import formula_kit


class _Dom(HTMLParser):
    """The elements of a page as (tag, attrs, text inside) for plain assertions."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.raw = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def having(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.elements
                if t == tag and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())]


def parse(page: str) -> _Dom:
    dom = _Dom()
    dom.raw = page
    dom.feed(page)
    return dom


OURS = ["application/json", "application/json", None]
"""The page's own script elements: the case data, its words, the explorer's script."""


def explorer_of(layout: Any, records: list[dict[str, Any]]) -> Explorer:
    explorer = Explorer(layout)
    for record in records:
        explorer.add(CaseRecord.of(record))
    return explorer


class TestEscaping:
    def test_esc_quotes_and_angles(self) -> None:
        assert esc('<a href="x">&\'') == "&lt;a href=&quot;x&quot;&gt;&amp;&#x27;"

    def test_user_text_never_becomes_markup(self, report: ReportDoc, layout: Any,
                                            sample: Any) -> None:
        dom = parse(render_html(report, explorer_of(layout, sample.RECORDS)))
        assert [a.get("type") for a in dom.having("script")] == OURS
        assert not dom.having("img")
        assert not dom.having("b"), "the spec title's <b> must stay text"
        assert "<script>document.title='pwned'</script>" in "".join(dom.text)


class TestSelfContained:
    def test_no_external_resource(self, report: ReportDoc) -> None:
        page = render_html(report)
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
        assert "<link" not in page
        assert "<style>" in page

    def test_outcome_chart_has_one_bar_per_label(self, report: ReportDoc) -> None:
        svg = parse(outcome_chart(report.outcomes[0]))
        bars = {a["data-label"]: a["data-count"] for a in svg.having("g", **{"class": "bar"})}
        assert bars == {"success": "2", "partial": "1", "failure": "2", "error": "1"}

    def test_histogram_is_scaled_to_its_tallest_bin(self) -> None:
        rects = parse(histogram_svg([0, 4, 2])).having("rect")
        assert [r["height"] for r in rects] == ["0.0", "24.0", "12.0"]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory, sample: Any) -> _Dom:
    """The report page as headless chromium rendered it (its DOM after load)."""
    from evaldsl.report.layout import layout_of
    from evaldsl.syntax.source import Source

    folder = tmp_path_factory.mktemp("html")
    layout = layout_of(Source(sample.SPEC, "specs/repair.eval"), "specs/repair.eval")
    page = folder / "report.html"
    page.write_text(render_html(sample.build(layout), explorer_of(layout, sample.RECORDS)),
                    encoding="utf-8")
    dom = sample.dump_dom(page, folder / "profile")
    assert "</html>" in dom
    return parse(dom)


class TestInChromium:
    def test_title_is_the_spec_name_and_no_script_ran(self, rendered: _Dom) -> None:
        """The injected `document.title='pwned'` would show here had any user text run."""
        title = re.search(r"<title>(.*?)</title>", rendered.raw)
        assert title is not None
        assert title.group(1) == "维修 &lt;b&gt;预约&lt;/b&gt; &amp; co"
        assert [a.get("type") for a in rendered.having("script")] == OURS
        assert not rendered.having("img")

    def test_metric_table_shows_denominators_and_intervals(self, rendered: _Dom) -> None:
        rows = rendered.having("tr", data_metric="success_rate")
        assert rows, "the metric row is rendered"
        text = " ".join(rendered.text)
        assert "40.0%" in text and "2 / 5" in text and "11.8% – 76.9%" in text
        assert rendered.having("tr", data_metric="polite_rate")

    def test_outcome_chart_renders_as_svg(self, rendered: _Dom) -> None:
        assert rendered.having("svg", **{"class": "outcome-chart", "data-outcome": "verdict"})
        assert len(rendered.having("g", **{"class": "bar"})) == 4

    def test_slot_bars(self, rendered: _Dom) -> None:
        assert rendered.having("tr", data_slot="name")
        widths = [a.get("style") for t, a in rendered.elements if t == "span" and a.get("style")]
        assert "width:83.3%" in widths and "width:50.0%" in widths

    def test_every_case_is_a_row_of_the_explorer(self, rendered: _Dom, sample: Any) -> None:
        rows = [a for t, a in rendered.elements if t == "tr" and "data-index" in a]
        assert len(rows) == len(sample.RECORDS)
        assert f"{len(sample.RECORDS)} of {len(sample.RECORDS)} cases match" in rendered.text


def test_a_page_from_report_json_alone_says_it_has_no_cases(report: ReportDoc) -> None:
    page = render_html(report)
    assert "without the case results" in page and "<script" not in page


class TestChineseChrome:
    """Headings, column names and labels follow the language; the user's data does not."""

    @pytest.fixture
    def page(self, report: ReportDoc) -> Iterator[str]:
        set_language("zh")
        try:
            yield render_html(report)
        finally:
            set_language("en")

    def test_headings_and_columns_are_chinese(self, page: str) -> None:
        headings = re.findall(r"<h2>(.*?)</h2>", page)
        assert "指标" in headings and "用例" in headings and "检查" in headings
        assert "Metrics" not in headings
        assert "通过率" in page and "已评测" in page

    def test_the_explorer_and_its_script_speak_chinese(self, report: ReportDoc,
                                                       layout: Any, sample: Any) -> None:
        set_language("zh")
        try:
            page = render_html(report, explorer_of(layout, sample.RECORDS))
        finally:
            set_language("en")
        words = re.search(r'<script type="application/json" id="explorer-words">(.*?)</script>',
                          page)
        assert words is not None
        assert json.loads(words.group(1))["matches"] == "{total} 个用例中 {count} 个符合"
        assert "<label>标签 <select" in page and "用例" in re.findall(r"<h2>(.*?)</h2>", page)

    def test_the_page_says_it_is_chinese(self, page: str) -> None:
        assert '<html lang="zh">' in page

    def test_names_from_the_spec_stay_as_written(self, page: str, report: ReportDoc) -> None:
        for metric in report.metrics:
            assert f'data-metric="{metric.name}"' in page


def test_a_formula_metric_shows_its_parts(layout: Any, sample: Any) -> None:
    report = sample.build(layout)
    report.metrics = [metric_entry(formula_kit.state().result()), *report.metrics]
    row = render_html(report).split('<tr data-metric="success_rate">')[1].split("</tr>")[0]
    assert f'<div class="muted parts">= <code>{esc(formula_kit.BREAKDOWN)}</code></div>' in row
    assert re.search(r'<td class="num">n=10</td><td class="num">\d+\.\d% – \d+\.\d% '
                     r"\(bootstrap\)</td>", row)
