"""args_match: names matched by token containment, a per-case alias list (`accept`),
and missing arguments reported apart from wrong ones (`.missing` beside `.mismatches`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaldsl.cases.case import Case
from evaldsl.values import CheckResult

Run = Callable[..., CheckResult]
Dialog = Callable[..., Case]
MakeCall = Callable[..., dict[str, Any]]

FIND = {"name": "FindMovies", "parameters": {
    "type": "object", "required": ["location", "theater_name"],
    "properties": {"location": {"type": "string"}, "theater_name": {"type": "string"}}}}


def judged(run: Run, dialog: Dialog, call: MakeCall, expected: Any, arguments: Any,
           **params: Any) -> CheckResult:
    case = dialog(("user", "电影"), ("assistant", "好的", {"tool_calls": [
        call("FindMovies", arguments)]}))
    return run("args_match", case, "last_reply", expected=expected, **params)


class TestContainedNames:
    EXPECTED = {"name": "FindMovies", "args": {"theater_name": "AMC Metreon"}}

    def test_a_longer_name_holding_every_word_matches_when_asked(
            self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        r = judged(run, dialog, call, self.EXPECTED, {"theater_name": "AMC Metreon 16"},
                   contained=["theater_name"])
        assert (r.passed, r.get("strict"), r.get("mismatches")) == (True, False, [])

    def test_either_way_round_in_any_case(
            self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        expected = {"name": "FindMovies", "args": {"theater_name": "Regal Cinemas Crow Canyon 6"}}
        r = judged(run, dialog, call, expected, {"theater_name": "regal crow canyon"},
                   contained=["FindMovies.theater_name"])
        assert r.passed is True

    def test_without_the_option_the_names_differ(
            self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        r = judged(run, dialog, call, self.EXPECTED, {"theater_name": "AMC Metreon 16"})
        assert r.passed is False
        assert r.get("mismatches") == ["theater_name: 'AMC Metreon 16' ≠ 'AMC Metreon'"]

    def test_a_name_with_a_word_the_other_lacks_does_not_match(
            self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        r = judged(run, dialog, call, self.EXPECTED, {"theater_name": "AMC Eastridge 15"},
                   contained=["theater_name"])
        assert r.passed is False

    def test_containment_is_for_the_named_paths_only(
            self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        expected = {"name": "FindMovies", "args": {"theater_name": "AMC Metreon",
                                                   "location": "San Francisco"}}
        r = judged(run, dialog, call, expected, {"theater_name": "AMC Metreon 16",
                                                 "location": "South San Francisco"},
                   contained=["theater_name"])
        assert r.get("mismatches") == [
            "location: 'South San Francisco' ≠ 'San Francisco'"]


class TestAliases:
    def test_accept_is_a_per_case_alias_list_in_the_alternatives_style_too(
            self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        expected = {"name": "FindMovies", "args": {"theater_name": ["Roxy Stadium Cinemas"]}}
        args = {"theater_name": "Roxy Stadium 14"}
        assert judged(run, dialog, call, expected, args, alternatives=True).passed is False
        r = judged(run, dialog, call, expected, args, alternatives=True,
                   accept={"theater_name": ["Roxy Stadium 14"]})
        assert r.passed is True


class TestMissing:
    def test_a_missing_required_argument_is_apart_from_a_wrong_one(
            self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        expected = {"name": "FindMovies", "args": {"theater_name": "AMC Metreon"}}
        r = judged(run, dialog, call, expected, {"theater_name": "AMC"}, functions=[FIND])
        assert r.passed is False
        assert r.get("missing") == ["location: missing (required)"]
        assert r.get("mismatches") == ["theater_name: 'AMC' ≠ 'AMC Metreon'"]

    def test_an_expected_argument_left_out_is_missing(
            self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        expected = {"name": "FindMovies", "args": {"theater_name": "AMC Metreon",
                                                   "location": "San Francisco"}}
        r = judged(run, dialog, call, expected, {"theater_name": "AMC Metreon"})
        assert (r.passed, r.get("missing"), r.get("mismatches")) == (
            False, ["location: missing"], [])
        assert "location: missing" in r.reason

    def test_a_missing_call_is_a_mismatch_not_a_missing_argument(
            self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        expected = [{"name": "FindMovies", "args": {"theater_name": "AMC Metreon"}},
                    {"name": "BuyTickets", "args": {"n": 2}}]
        r = judged(run, dialog, call, expected, {"theater_name": "AMC Metreon"})
        assert r.get("missing") == [] and r.get("mismatches") == ["call `BuyTickets`: missing"]
