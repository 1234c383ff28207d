"""The shape a journal line must have: each problem named by its field, in words."""

from __future__ import annotations

from typing import Any

import pytest

from evaldsl.api import load
from evaldsl.report.record_shape import problem

GOOD: dict[str, Any] = {
    "id": "c1", "row": "cases.jsonl:1", "labels": {"outcome": "success"},
    "branches": {"outcome": 0}, "errors": {},
    "checks": {"greets": {"status": "passed", "passed": True, "score": 1.0, "value": 1.0,
                          "reason": ""},
               "fast": {"status": "error", "passed": {"error": "no latency"},
                        "score": {"error": "no latency"}, "value": None, "reason": "x"}},
    "skipped": ["short"], "metrics": {"success_rate": [True, False], "fast_rate": None,
                                      "avg_short": {"error": "no reply"}},
    "review": {"sampled": False, "rule": 1, "priority": None, "draw": 0.4, "error": None},
}

PROBLEMS = [
    ({"id": 3}, "`id` is not text"),
    ({"row": None}, "`row` is not text"),
    ({"labels": ["success"]}, "`labels` is not an object"),
    ({"branches": {"outcome": True}}, "`branches.outcome` has the wrong type"),
    ({"skipped": "short"}, "`skipped` is not a list of text"),
    ({"checks": {"greets": {"status": "passed", "passed": "yes"}}},
     "`checks.greets.passed` has the wrong type"),
    ({"checks": {"greets": {"status": "ok", "passed": True}}},
     "`checks.greets.status` has the wrong type"),
    ({"checks": {"greets": {"status": []}}}, "`checks.greets.status` has the wrong type"),
    ({"checks": {"greets": {"status": "passed", "score": "1"}}},
     "`checks.greets.score` has the wrong type"),
    ({"metrics": {"avg_short": "0.5"}}, "`metrics.avg_short` has the wrong type"),
    ({"review": {"sampled": "no"}}, "`review` has the wrong type"),
    ({"lets": [50.0]}, "`lets` is not an object"),
    ({"groups": ["acme"]}, "`groups` is not an object"),
    ({"groups": {"success_rate": "acme"}}, "`groups.success_rate` has the wrong type"),
    ({"groups": {"success_rate": [["acme"]]}}, "`groups.success_rate` has the wrong type"),
]

NAMES = [
    ({"labels": {"other": "x"}}, "outcome block `other` is not in the spec"),
    ({"labels": {"outcome": "great"}}, "label `great` is not in the spec"),
    ({"skipped": ["nope"]}, "check `nope` is not in the spec"),
    ({"metrics": {"nope": None}}, "metric `nope` is not in the spec"),
    ({"metrics": {"success_rate": [True]}}, "`metrics.success_rate` has the wrong type"),
    ({"groups": {"nope": ["acme"]}}, "metric `nope` is not in the spec"),
    ({"groups": {"success_rate": ["acme"]}}, "`groups.success_rate` has the wrong type"),
]


class TestProblem:
    def test_a_line_as_a_run_writes_it_has_none(self, spec_file: Any) -> None:
        plan = load(spec_file).new_report().plan
        assert problem(GOOD, plan) is None
        assert problem({**GOOD, "labels": {"outcome": "error"}}, plan) is None

    def test_a_grouped_metrics_keys_are_checked_against_its_by(self, tmp_path: Any) -> None:
        """One key value per `by` field, text, condition, number or null."""
        path = tmp_path / "g.eval"
        path.write_text('check ok = keyword(any: ["a"])\nmetric m = rate(ok) by case.t, case.l\n')
        plan = load(path).new_report().plan
        line = {"id": "c1", "row": "c.jsonl:1", "metrics": {"m": [True]}}
        assert problem({**line, "groups": {"m": ["acme", None]}}, plan) is None
        assert problem({**line, "groups": {"m": ["acme"]}}, plan) == (
            "`groups.m` has the wrong type")

    @pytest.mark.parametrize(("change", "message"), PROBLEMS)
    def test_a_wrong_type_is_named_by_its_field(self, change: dict[str, Any],
                                                message: str) -> None:
        assert problem({**GOOD, **change}, None) == message

    @pytest.mark.parametrize(("change", "message"), NAMES)
    def test_a_name_the_spec_lacks_is_named(self, spec_file: Any, change: dict[str, Any],
                                            message: str) -> None:
        plan = load(spec_file).new_report().plan
        assert problem({**GOOD, **change}, plan) == message
