"""Grouped metrics over a small hand-built case set, every figure worked out by hand."""

from __future__ import annotations

from typing import Any

import pytest

import evaldsl
from evaldsl.report.folded import Report
from evaldsl.results import CaseResult
from evaldsl.runtime.grouping import SMALL_GROUP, GroupValue

SPEC = """
case {
  tenant: text
  lang: text?
}
check ok = keyword(any: ["ok"])
check long = length(min_chars: 10)
metric ok_rate = rate(ok) by case.tenant
metric long_rate = rate(long) where case.lang != "fr" by case.tenant, case.lang
metric mixed = rate(ok) + 0.5 * rate(long) by case.lang
"""


def _case(i: int, tenant: str, lang: str | None, reply: str) -> dict[str, Any]:
    case: dict[str, Any] = {"id": f"c{i}", "tenant": tenant, "messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": reply}]}
    if lang is not None:
        case["lang"] = lang
    return case


CASES = [
    _case(1, "acme", "en", "ok, done now"),  # ok, long
    _case(2, "acme", "en", "ok"),            # ok
    _case(3, "acme", "zh", "no"),            # neither
    _case(4, "acme", None, "ok, all right"),  # ok, long
    _case(5, "beta", "en", "nothing to see"),  # long
    _case(6, "beta", "fr", "ok"),            # ok
    _case(7, "gamma", None, "no"),           # neither
]


@pytest.fixture(scope="module")
def spec() -> evaldsl.Spec:
    return evaldsl.loads(SPEC)


def _groups(report: Report, name: str) -> list[tuple[tuple[Any, ...], Any, Any, int]]:
    return [(g.key, g.value.value, g.value.numerator, g.value.denominator)
            for g in report.metric(name).groups]


class TestGroupedValues:
    def test_one_key(self, spec: evaldsl.Spec) -> None:
        """acme 3/4 ok, beta 1/2, gamma 0/1; largest denominator first."""
        report = spec.run(CASES)
        assert _groups(report, "ok_rate") == [
            (("acme",), 0.75, 3.0, 4), (("beta",), 0.5, 1.0, 2), (("gamma",), 0.0, 0.0, 1)]
        overall = report.metric("ok_rate")
        assert (overall.numerator, overall.denominator) == (4.0, 7)

    def test_two_keys_and_a_null_key(self, spec: evaldsl.Spec) -> None:
        """The `where` leaves c6 (fr) out of every group; c4 and c7 have no lang: null.

        `lang != "fr"` is an error for a case without a lang, so c4 and c7 are left out
        as errors, each counted in its own group.
        """
        report = spec.run(CASES)
        got = [(g.key, g.value.numerator, g.value.denominator, g.value.errors)
               for g in report.metric("long_rate").groups]
        assert got == [
            (("acme", "en"), 1.0, 2, 0),
            (("acme", "zh"), 0.0, 1, 0),
            (("beta", "en"), 1.0, 1, 0),
            (("acme", None), None, 0, 1),
            (("gamma", None), None, 0, 1),
        ]

    def test_formula_groups_have_parts_and_a_bootstrap(self, spec: evaldsl.Spec) -> None:
        """en: ok 2/3, long 2/3 -> 2/3 + 1/3 = 1.0; null: c4 (ok, long), c7 -> 0.5 + 0.25."""
        report = spec.run(CASES)
        groups = {g.key: g.value for g in report.metric("mixed").groups}
        assert list(groups) == [("en",), (None,), ("fr",), ("zh",)]
        assert groups[("en",)].value == pytest.approx(1.0)
        assert groups[(None,)].value == pytest.approx(0.75)
        assert groups[("fr",)].value == pytest.approx(1.0)
        assert groups[("zh",)].value == 0.0
        assert [p.numerator for p in groups[("en",)].parts] == [2.0, 2.0]
        assert groups[("en",)].interval is not None

    def test_every_group_here_is_small(self, spec: evaldsl.Spec) -> None:
        """Under 30 cases a group is flagged; at 30 it is not."""
        report = spec.run(CASES)
        assert all(g.small for g in report.metric("ok_rate").groups)
        many = spec.run([_case(i, "acme", "en", "ok") for i in range(SMALL_GROUP)])
        assert [g.small for g in many.metric("ok_rate").groups] == [False]

    def test_ungrouped_metric_has_no_groups(self) -> None:
        spec = evaldsl.loads('check ok = keyword(any: ["ok"])\nmetric m = rate(ok)\n')
        assert spec.run(CASES).metric("m").groups == ()


class TestGroupsInResults:
    def test_the_case_result_carries_its_keys(self, spec: evaldsl.Spec) -> None:
        """Each grouped metric's key, null where the field is missing; round trips."""
        result = spec.evaluate(CASES[3])
        record = result.to_dict(trace=False)
        assert record["groups"] == {"ok_rate": ["acme"], "long_rate": ["acme", None],
                                    "mixed": [None]}
        assert CaseResult.from_dict(record).to_dict(trace=False) == record

    def test_an_ungrouped_spec_writes_no_groups(self) -> None:
        spec = evaldsl.loads('check ok = keyword(any: ["ok"])\nmetric m = rate(ok)\n')
        assert "groups" not in spec.evaluate(CASES[0]).to_dict()

    def test_merged_shards_give_the_single_runs_groups(self, spec: evaldsl.Spec) -> None:
        """Any split of the cases merges into the same groups, intervals included."""
        whole = spec.run(CASES)
        for cut in (1, 3, 6):
            merged = spec.run(CASES[:cut]).merge(spec.run(CASES[cut:]))
            for name in ("ok_rate", "long_rate", "mixed"):
                assert _described(merged.metric(name).groups) == _described(
                    whole.metric(name).groups)

    def test_merging_changes_neither_shard(self, spec: evaldsl.Spec) -> None:
        """A case added to the merged report is in no shard's groups, even in a group that
        only one shard had (beta only on the left, acme only on the right)."""
        left, right = spec.run(CASES[4:6]), spec.run(CASES[:2])
        before = _described(left.metric("ok_rate").groups), _described(
            right.metric("ok_rate").groups)
        merged = left.merge(right)
        merged.add(spec.evaluate(CASES[4]))
        merged.add(spec.evaluate(CASES[0]))
        assert (_described(left.metric("ok_rate").groups),
                _described(right.metric("ok_rate").groups)) == before

    def test_a_report_rebuilt_from_results_has_the_groups(self, spec: evaldsl.Spec) -> None:
        """What `--resume` and `merge` do: fold results read back from journal lines."""
        whole = spec.run(CASES)
        rebuilt = spec.new_report(details=False)
        for case in reversed(CASES):
            line = spec.evaluate(case).to_dict(trace=False)
            rebuilt.add(CaseResult.from_dict(line))
        assert _described(rebuilt.metric("long_rate").groups) == _described(
            whole.metric("long_rate").groups)


def _described(groups: tuple[GroupValue, ...]) -> list[Any]:
    return [(g.key, g.value.to_dict(), g.value.interval, g.small) for g in groups]


class TestGroupsReadBack:
    def test_report_json_read_back_has_the_groups(self, spec: evaldsl.Spec,
                                                  tmp_path: Any) -> None:
        """`Report.from_json` gives each group its figures and interval, as written."""
        report = spec.run(CASES)
        back = Report.from_json(report.write_json(tmp_path / "report.json"))
        for name in ("ok_rate", "long_rate", "mixed"):
            assert back.metric(name).by == report.metric(name).by
            assert [(g.key, g.value.to_dict(), g.small) for g in back.metric(name).groups] == [
                (g.key, g.value.to_dict(), g.small) for g in report.metric(name).groups]
