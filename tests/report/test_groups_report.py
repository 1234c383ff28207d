"""Grouped metrics in report.json, the terminal summary, Markdown and HTML."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import evaldsl
from evaldsl.report.document import as_report

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "report.schema.json")
                    .read_text("utf-8"))

SPEC = """
case {
  tenant: text?
  lang: text?
}
check ok = keyword(any: ["ok"])
check long = length(min_chars: 10)
metric ok_rate = rate(ok) by case.tenant
metric mixed = rate(ok) + 0.5 * rate(long) by case.tenant, case.lang
metric plain = rate(ok)
"""


def _case(i: int, tenant: str | None, reply: str) -> dict[str, Any]:
    case: dict[str, Any] = {"id": f"c{i}", "lang": "en", "messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": reply}]}
    if tenant is not None:
        case["tenant"] = tenant
    return case


CASES = ([_case(i, "acme", "ok" if i % 4 else "no") for i in range(40)]  # 30 ok of 40
         + [_case(100 + i, "beta", "ok, fine then" if i < 2 else "no") for i in range(5)]
         + [_case(200, None, "ok")])


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return evaldsl.loads(SPEC).run(CASES).to_report_json()


def _metric(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(m for m in report["metrics"] if m["name"] == name)


class TestReportJson:
    def test_a_report_with_groups_validates(self, report: dict[str, Any]) -> None:
        jsonschema.validate(report, SCHEMA)

    def test_each_group_has_its_figures_and_a_wilson_interval(
            self, report: dict[str, Any]) -> None:
        """acme 30/40, beta 2/5, the case without a tenant 1/1 under a null key."""
        ok_rate = _metric(report, "ok_rate")
        assert ok_rate["by"] == ["case.tenant"]
        got = [(g["key"], g["numerator"], g["denominator"], g["errors"], g["small"])
               for g in ok_rate["groups"]]
        assert got == [(["acme"], 30.0, 40, 0, False), (["beta"], 2.0, 5, 0, True),
                       ([None], 1.0, 1, 0, True)]
        acme = ok_rate["groups"][0]
        assert acme["interval"]["method"] == "wilson"
        assert round(acme["interval"]["low"], 3) == 0.598  # Wilson 30/40
        assert (ok_rate["numerator"], ok_rate["denominator"]) == (33.0, 46)

    def test_formula_groups_carry_parts_and_a_bootstrap(self, report: dict[str, Any]) -> None:
        """beta/en: ok 2/5, long 2/5 -> 0.4 + 0.2."""
        mixed = _metric(report, "mixed")
        beta = next(g for g in mixed["groups"] if g["key"] == ["beta", "en"])
        assert beta["value"] == pytest.approx(0.6)
        assert [p["numerator"] for p in beta["parts"]] == [2.0, 2.0]
        assert beta["interval"]["method"] == "bootstrap"

    def test_an_ungrouped_metric_has_null_groups(self, report: dict[str, Any]) -> None:
        plain = _metric(report, "plain")
        assert (plain["by"], plain["groups"]) == (None, None)

    def test_the_schema_wants_the_small_flag(self, report: dict[str, Any]) -> None:
        broken = json.loads(json.dumps(report))
        del _metric(broken, "ok_rate")["groups"][0]["small"]
        assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(broken)


class TestTerminal:
    def test_a_table_per_grouped_metric(self, report: dict[str, Any]) -> None:
        from evaldsl.report.terminal import render_terminal

        text = render_terminal(as_report(report))
        block = text.split("ok_rate by case.tenant\n", 1)[1].split("\n\n", 1)[0]
        assert block.splitlines() == [
            "  acme      75.0%  (30/40)  95% 59.8%–85.8%",
            "  beta      40.0%  (2/5)    95% 11.8%–76.9%  small",
            "  (none)   100.0%  (1/1)    95% 20.7%–100.0%  small",
            "  small: fewer than 30 cases, too few to read the group on its own",
        ]

    def test_many_groups_are_cut_with_a_count(self) -> None:
        from evaldsl.report.terminal import GROUPS_SHOWN, render_terminal

        cases = [_case(i, f"t{i:02d}", "ok") for i in range(GROUPS_SHOWN + 3)]
        text = render_terminal(evaldsl.loads(SPEC).run(cases).to_report())
        block = text.split("ok_rate by case.tenant\n", 1)[1].split("\n\n", 1)[0]
        lines = block.splitlines()
        assert lines[0].startswith("  t00 ") and lines[GROUPS_SHOWN - 1].startswith("  t09 ")
        assert lines[GROUPS_SHOWN] == "  … 3 more groups"

    def test_no_group_table_without_by(self) -> None:
        from evaldsl.report.terminal import render_terminal

        spec = evaldsl.loads('check ok = keyword(any: ["ok"])\nmetric m = rate(ok)\n')
        assert " by " not in render_terminal(spec.run(CASES).to_report())


class TestMarkdown:
    def test_a_table_per_grouped_metric(self, report: dict[str, Any]) -> None:
        from evaldsl.report.markdown_groups import group_tables

        lines = group_tables(as_report(report).metrics)
        start = lines.index("**`ok_rate`** by `case.tenant`")
        assert lines[start + 2:start + 7] == [
            "| group | value | n | 95% interval | errors left out | |",
            "|---|---:|---:|:---:|---:|---|",
            "| acme | **75.0%** | 30/40 | 59.8%–85.8% | 0 |  |",
            "| beta | **40.0%** | 2/5 | 11.8%–76.9% | 0 | small |",
            "| (none) | **100.0%** | 1/1 | 20.7%–100.0% | 0 | small |",
        ]

    def test_the_summary_has_them(self, report: dict[str, Any]) -> None:
        from evaldsl.report.markdown import render_markdown

        assert "| beta | **40.0%** | 2/5 |" in render_markdown(as_report(report))


class TestHtml:
    def test_a_table_per_grouped_metric(self, report: dict[str, Any]) -> None:
        from evaldsl.report.html import render_html

        page = render_html(as_report(report))
        section = page.split('<section id="groups">', 1)[1].split("</section>", 1)[0]
        assert section.count("<table") == 2
        assert ('<tr class="small"><td>beta</td><td class="num value">40.0%</td>'
                '<td class="num">2 / 5</td>') in section
        assert "<td>(none)</td>" in section

    def test_user_text_in_a_key_is_escaped(self) -> None:
        from evaldsl.report.html import render_html

        cases = [_case(1, "<script>x</script>", "ok")]
        page = render_html(evaldsl.loads(SPEC).run(cases).to_report())
        assert "<script>x" not in page and "&lt;script&gt;x" in page
