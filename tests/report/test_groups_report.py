"""Grouped metrics in report.json, the terminal summary, Markdown and HTML."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import evaldsl

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
