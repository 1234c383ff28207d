"""trajectory: order modes crossed with argument modes, per-tool rules, groups, score, lint.

Every expected verdict and score below is worked out by hand from the `booked` dialog:
`search(city: 北京)` in one message, then `book(hotel: H1, nights: 2)` and
`pay(amount: 800)` together in the next.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

import evaldsl
from evaldsl.cases.case import Case
from evaldsl.checker import check_source
from evaldsl.diagnostics import Diagnostic
from evaldsl.primitives.registry import default_registry
from evaldsl.primitives.tables import NormalizationTable
from evaldsl.values import CheckResult

Run = Callable[..., CheckResult]
Dialog = Callable[..., Case]
MakeCall = Callable[..., dict[str, Any]]


def search(**args: Any) -> dict[str, Any]:
    return {"name": "search", "args": args}


def book(**args: Any) -> dict[str, Any]:
    return {"name": "book", "args": args}


def pay(**args: Any) -> dict[str, Any]:
    return {"name": "pay", "args": args}


S_EQ = search(city="北京")
"""The call made, exactly."""
S_FULL = search(city="北京", date="周五")
"""The call made left out `date`: fits `ignore` and `subset`."""
B_EQ = book(hotel="H1", nights=2)
B_LESS = book(hotel="H1")
"""The call made added `nights`: fits `ignore` and `superset`."""
B_FULL = book(hotel="H1", nights=2, breakfast=True)
"""The call made left out `breakfast`: fits `ignore` and `subset`."""
P_EQ = pay(amount=800)
REFUND = {"name": "refund", "args": {}}
"""Never called."""


@pytest.fixture(name="booked")
def booked_fixture(dialog: Dialog, call: MakeCall) -> Case:
    return dialog(
        ("user", "订北京的酒店，住两晚"),
        ("assistant", "", {"tool_calls": [call("search", {"city": "北京"})]}),
        ("tool", "H1 有房"),
        ("assistant", "", {"tool_calls": [call("book", {"hotel": "H1", "nights": 2}),
                                          call("pay", {"amount": 800})]}),
        ("assistant", "已订好 H1，两晚，已付 800 元。"))


MATRIX = [
    # strict: the same sequence; superset arguments forgive book's added `nights`.
    ("strict", "exact", [S_EQ, B_LESS, P_EQ], False, 2 / 3),
    ("strict", "ignore", [S_EQ, B_LESS, P_EQ], True, 1.0),
    ("strict", "subset", [S_EQ, B_LESS, P_EQ], False, 2 / 3),
    ("strict", "superset", [S_EQ, B_LESS, P_EQ], True, 1.0),
    # unordered: the same calls in another order; subset arguments forgive the left-out date.
    ("unordered", "exact", [P_EQ, S_FULL, B_EQ], False, 2 / 3),
    ("unordered", "ignore", [P_EQ, S_FULL, B_EQ], True, 1.0),
    ("unordered", "subset", [P_EQ, S_FULL, B_EQ], True, 1.0),
    ("unordered", "superset", [P_EQ, S_FULL, B_EQ], False, 2 / 3),
    # subset: every call made matches a reference call; refund is never made (3 of 4).
    ("subset", "exact", [S_EQ, B_FULL, P_EQ, REFUND], False, 2 / 4),
    ("subset", "ignore", [S_EQ, B_FULL, P_EQ, REFUND], True, 3 / 4),
    ("subset", "subset", [S_EQ, B_FULL, P_EQ, REFUND], True, 3 / 4),
    ("subset", "superset", [S_EQ, B_FULL, P_EQ, REFUND], False, 2 / 4),
    # superset: every expected call made, pay is an extra.
    ("superset", "exact", [B_LESS, S_EQ], False, 1 / 2),
    ("superset", "ignore", [B_LESS, S_EQ], True, 1.0),
    ("superset", "subset", [B_LESS, S_EQ], False, 1 / 2),
    ("superset", "superset", [B_LESS, S_EQ], True, 1.0),
    # ordered_superset: search then pay, book between them.
    ("ordered_superset", "exact", [S_FULL, P_EQ], False, 1 / 2),
    ("ordered_superset", "ignore", [S_FULL, P_EQ], True, 1.0),
    ("ordered_superset", "subset", [S_FULL, P_EQ], True, 1.0),
    ("ordered_superset", "superset", [S_FULL, P_EQ], False, 1 / 2),
]


class TestOrderAndArgumentModes:
    @pytest.mark.parametrize(("mode", "args", "expected", "passed", "score"), MATRIX,
                             ids=[f"{m}-{a}" for m, a, *_rest in MATRIX])
    def test_verdict_and_score(self, run: Run, booked: Case, mode: str, args: str,
                               expected: list[Any], passed: bool, score: float) -> None:
        r = run("trajectory", booked, expected=expected, mode=mode, args=args)
        assert (r.passed, r.score) == (passed, pytest.approx(score))

    def test_exact_arguments_report_the_unpaired_calls(self, run: Run, booked: Case) -> None:
        """A call whose arguments differ is both missing (as expected) and extra (as made)."""
        r = run("trajectory", booked, expected=[S_EQ, B_LESS, P_EQ], args="exact")
        assert (r.fields["missing"], r.fields["extra"]) == (["book"], ["book"])
        assert r.reason == ("called search → book → pay, expected search → book → pay; "
                            "missing `book`; extra `book`")

    def test_names_alone_fit_any_arguments(self, run: Run, booked: Case) -> None:
        """An expected call given by its name compares no argument, whatever `args` says."""
        r = run("trajectory", booked, expected=["search", B_LESS, P_EQ], args="exact")
        assert (r.passed, r.score) == (False, pytest.approx(2 / 3))

    def test_arguments_as_json_text(self, run: Run, dialog: Dialog) -> None:
        """Arguments the transcript gives as JSON text compare as the values they encode."""
        case = dialog(("user", "x"), ("assistant", "", {"tool_calls": [
            {"id": "c", "type": "function",
             "function": {"name": "pay", "arguments": '{"amount": 800}'}}]}))
        assert run("trajectory", case, expected=[P_EQ], args="exact").passed is True

    def test_order_is_kept_by_ordered_superset(self, run: Run, booked: Case) -> None:
        """pay before search is out of order: only one of the two lines up."""
        r = run("trajectory", booked, expected=[P_EQ, S_EQ], mode="ordered_superset")
        assert (r.passed, r.score) == (False, 0.5)
        assert run("trajectory", booked, expected=[P_EQ, S_EQ], mode="superset").passed is True


CITIES = NormalizationTable.build("城市", frozenset({"strip"}), "", {"北京市": "北京"})


class TestToolRules:
    def test_a_tool_mode_overrides_the_check_mode(self, run: Run, booked: Case) -> None:
        """book may add arguments; search and pay still compare exactly."""
        expected = [S_EQ, B_LESS, P_EQ]
        r = run("trajectory", booked, expected=expected, args="exact",
                tools={"book": {"args": "superset"}})
        assert (r.passed, r.score) == (True, 1.0)
        r = run("trajectory", booked, expected=expected, args="exact",
                tools={"search": {"args": "superset"}})
        assert (r.passed, r.score) == (False, pytest.approx(2 / 3))

    def test_paths_compare_only_the_named_arguments(self, run: Run, dialog: Dialog,
                                                    call: MakeCall) -> None:
        """Only `time.start` compares: the end time and the room may differ."""
        case = dialog(("user", "订会议室"), ("assistant", "", {"tool_calls": [
            call("reserve", {"time": {"start": "09:00", "end": "11:00"}, "room": "B"})]}))
        expected = [{"name": "reserve",
                     "args": {"time": {"start": "09:00", "end": "10:00"}, "room": "A"}}]
        r = run("trajectory", case, expected=expected, args="exact",
                tools={"reserve": {"paths": ["time.start"]}})
        assert (r.passed, r.score) == (True, 1.0)
        r = run("trajectory", case, expected=expected, args="exact",
                tools={"reserve": {"paths": ["time.start", "room"]}})
        assert (r.passed, r.score) == (False, 0.0)

    def test_a_path_the_call_leaves_out(self, run: Run, dialog: Dialog, call: MakeCall) -> None:
        """A named path missing from the call fails `exact` and passes `subset`."""
        case = dialog(("user", "x"), ("assistant", "", {"tool_calls": [
            call("reserve", {"time": {"end": "10:00"}})]}))
        expected = [{"name": "reserve", "args": {"time": {"start": "09:00", "end": "10:00"}}}]
        rules = {"reserve": {"args": "exact", "paths": ["time.start"]}}
        assert run("trajectory", case, expected=expected, tools=rules).passed is False
        rules = {"reserve": {"args": "subset", "paths": ["time.start"]}}
        assert run("trajectory", case, expected=expected, tools=rules).passed is True

    def test_a_tool_table_normalizes_its_strings(self, run: Run, dialog: Dialog,
                                                 call: MakeCall) -> None:
        """`北京市` is `北京` through the table; `"800"` is 800 once a table applies."""
        case = dialog(("user", "x"), ("assistant", "", {"tool_calls": [
            call("search", {"city": "北京市"}), call("pay", {"amount": "800"})]}))
        expected = [S_EQ, P_EQ]
        r = run("trajectory", case, expected=expected, args="exact")
        assert (r.passed, r.score) == (False, 0.0)
        r = run("trajectory", case, expected=expected, args="exact",
                tools={"search": {"table": CITIES}})
        assert (r.passed, r.score) == (False, 0.5)
        r = run("trajectory", case, expected=expected, args="exact",
                tools={"search": {"table": CITIES}, "pay": {"table": CITIES}})
        assert (r.passed, r.score) == (True, 1.0)

    def test_a_rule_for_a_tool_never_called_changes_nothing(self, run: Run,
                                                           booked: Case) -> None:
        r = run("trajectory", booked, expected=[S_EQ, B_EQ, P_EQ], args="exact",
                tools={"refund": {"args": "ignore"}})
        assert (r.passed, r.score) == (True, 1.0)

    def test_a_dotted_rule_name_matches_the_call(self, run: Run, dialog: Dialog,
                                                 call: MakeCall) -> None:
        case = dialog(("user", "x"), ("assistant", "", {"tool_calls": [
            call("math_sum", {"a": 1, "b": 2})]}))
        r = run("trajectory", case, expected=[{"name": "math.sum", "args": {"a": 1}}],
                args="exact", tools={"math.sum": {"args": "superset"}})
        assert (r.passed, r.value) == (True, ["math.sum"])


class TestByMessage:
    def test_calls_of_a_message_compare_in_any_order(self, run: Run, booked: Case) -> None:
        r = run("trajectory", booked, expected=[[S_EQ], [P_EQ, B_EQ]], by_message=True,
                args="exact")
        assert (r.passed, r.score) == (True, 1.0)

    def test_the_grouping_must_match(self, run: Run, booked: Case) -> None:
        """search and book in one message is not what happened, though the flat order is."""
        r = run("trajectory", booked, expected=[[S_EQ, B_EQ], [P_EQ]], by_message=True)
        assert (r.passed, r.score) == (False, 0.0)
        assert run("trajectory", booked, expected=[S_EQ, B_EQ, P_EQ]).passed is True

    def test_a_group_fits_only_when_all_its_arguments_do(self, run: Run, booked: Case) -> None:
        """The second message fails as a whole: the score counts search alone (1 of 3)."""
        expected = [[S_EQ], [B_LESS, P_EQ]]
        r = run("trajectory", booked, expected=expected, by_message=True, args="exact")
        assert (r.passed, r.score) == (False, pytest.approx(1 / 3))
        r = run("trajectory", booked, expected=expected, by_message=True, args="superset")
        assert (r.passed, r.score) == (True, 1.0)

    def test_groups_under_other_order_modes(self, run: Run, booked: Case) -> None:
        """Swapped messages: unordered passes; strict lines up the heavier group (2 of 3)."""
        expected = [[B_EQ, P_EQ], S_EQ]
        r = run("trajectory", booked, expected=expected, by_message=True, mode="unordered")
        assert (r.passed, r.score) == (True, 1.0)
        r = run("trajectory", booked, expected=expected, by_message=True, mode="strict")
        assert (r.passed, r.score) == (False, pytest.approx(2 / 3))


class TestScoreAndMin:
    def test_score_is_the_share_of_expected_calls_made(self, run: Run, booked: Case) -> None:
        """Extra calls do not lower the score; missing ones do."""
        r = run("trajectory", booked, expected=["search", "refund"], mode="superset")
        assert (r.passed, r.score) == (False, 0.5)
        assert (r.fields["missing"], r.fields["extra"]) == (["refund"], ["book", "pay"])

    def test_min_replaces_the_all_or_nothing_verdict(self, run: Run, booked: Case) -> None:
        expected = ["search", "refund"]
        r = run("trajectory", booked, expected=expected, mode="superset", min=0.5)
        assert (r.passed, r.score) == (True, 0.5)
        r = run("trajectory", booked, expected=expected, mode="superset", min=0.6)
        assert (r.passed, r.score) == (False, 0.5)
        assert r.reason.endswith("; 50% of the expected calls made, below 60%")

    def test_min_counts_calls_in_order_for_strict(self, run: Run, booked: Case) -> None:
        """pay, search, book: only search → book lines up in order (2 of 3)."""
        r = run("trajectory", booked, expected=["pay", "search", "book"], min=0.6)
        assert (r.passed, r.score) == (True, pytest.approx(2 / 3))
        r = run("trajectory", booked, expected=["pay", "search", "book"], min=0.7)
        assert r.passed is False

    def test_no_expected_call(self, run: Run, booked: Case, dialog: Dialog) -> None:
        """Nothing expected: `strict` passes only without calls; the score is the verdict."""
        assert (run("trajectory", booked, expected=[]).score) == 0.0
        quiet = dialog(("user", "你好"), ("assistant", "您好"))
        r = run("trajectory", quiet, expected=[])
        assert (r.passed, r.score) == (True, 1.0)

    def test_min_in_a_spec(self, booked: Case) -> None:
        text = ('check t = trajectory(expected: ["search", "refund"], mode: superset, '
                "min: 50%)\nmetric r = rate(t)\n")
        result = evaldsl.loads(text, name="t.eval").evaluate(booked)
        assert (result.checks["t"].passed, result.checks["t"].score) == (True, 0.5)


def _diagnostics(text: str) -> list[Diagnostic]:
    found = check_source(f"{text}\nmetric m = rate(t)\n", "t.eval", default_registry())[1]
    return found


class TestDiagnostics:
    def test_unknown_argument_mode(self) -> None:
        found = _diagnostics('check t = trajectory(expected: ["a"], args: "partial")')
        assert [(d.code, d.message) for d in found] == [
            ("E204", '`args` cannot be the text `"partial"`')]
        assert found[0].hint == ("the choices are `exact`, `ignore`, `subset` and `superset`")

    def test_unknown_order_mode(self) -> None:
        found = _diagnostics('check t = trajectory(expected: ["a"], mode: "ordered")')
        assert [(d.code, d.message) for d in found] == [
            ("E204", '`mode` cannot be the text `"ordered"`')]
        assert found[0].hint == ("did you mean `unordered`? the choices are `strict`, "
                                 "`unordered`, `subset`, `superset` and `ordered_superset`")

    def test_paths_of_a_tool_whose_arguments_are_ignored(self) -> None:
        """`paths` without an argument mode that compares is a contradiction, at `tools`."""
        text = ('check t = trajectory(expected: [{name: "a", args: {x: 1}}], '
                'tools: {a: {paths: ["x"]}})')
        found = _diagnostics(text)
        assert [(d.code, d.message) for d in found] == [
            ("E204", "`tools`: `a` names `paths` to compare, but its argument mode is "
                     "`ignore`")]
        assert (found[0].span.col, found[0].span.end_col) == (68, 87)

    def test_paths_under_a_comparing_check_mode_are_fine(self) -> None:
        text = ('check t = trajectory(expected: [{name: "a", args: {x: 1}}], args: subset, '
                'tools: {a: {paths: ["x"]}})')
        assert _diagnostics(text) == []

    def test_unknown_key_of_a_tool_rule(self) -> None:
        """A misspelt option inside `tools` is reported at its key, not dropped."""
        found = _diagnostics('check t = trajectory(expected: ["a"], tools: {a: {mode: "exact"}})')
        assert [(d.code, d.message) for d in found] == [("E201", "unknown key `mode` in `tools.a`")]
        assert (found[0].span.col, found[0].span.end_col) == (51, 55)

    def test_unknown_argument_mode_of_a_tool(self) -> None:
        found = _diagnostics('check t = trajectory(expected: ["a"], tools: {a: {args: "exct"}})')
        assert [(d.code, d.message) for d in found] == [
            ("E204", '`tools.a.args` cannot be the text `"exct"`')]
        assert found[0].hint.startswith("did you mean `exact`?")

    def test_a_bare_mode_word_inside_tools_runs_as_the_mode(self, booked: Case) -> None:
        """`{args: superset}` needs no quotes, as at the top level."""
        text = ('let expected = [{name: "book", args: {hotel: "H1"}}]\n'
                "check t = trajectory(expected: expected, mode: superset, args: exact, "
                "tools: {book: {args: superset}})\nmetric r = rate(t)\n")
        assert _diagnostics(text.replace("\nmetric r = rate(t)\n", "")) == []
        result = evaldsl.loads(text, name="t.eval").evaluate(booked)
        assert result.checks["t"].passed is True

    def test_min_out_of_range(self) -> None:
        found = _diagnostics('check t = trajectory(expected: ["a"], min: 1.5)')
        assert [d.code for d in found] == ["E204"]

    def test_groups_without_by_message(self) -> None:
        found = _diagnostics('check t = trajectory(expected: [["a", "b"], "c"])')
        assert [(d.code, d.message) for d in found] == [
            ("E204", "invalid arguments for `trajectory`: `expected` holds a list of calls, "
                     "which only `by_message: true` reads as the calls of one message")]

    def test_an_item_that_is_no_call(self) -> None:
        found = _diagnostics("check t = trajectory(expected: [3])")
        assert [(d.code, d.message) for d in found] == [
            ("E204", "invalid arguments for `trajectory`: `3` is neither a tool name nor a "
                     "call `{name, args}`")]

    def test_an_item_of_a_group_that_is_no_call(self) -> None:
        found = _diagnostics('check t = trajectory(expected: [["a", 3]], by_message: true)')
        assert [(d.code, d.message) for d in found] == [
            ("E204", "invalid arguments for `trajectory`: `3` is neither a tool name, a call "
                     "`{name, args}` nor a list of them")]

    def test_an_unreadable_expected_call_of_a_case_is_an_error_value(self,
                                                                     booked: Case) -> None:
        """Per-case calls are read per case: a bad one makes that case unknown, not failed."""
        text = ("case {\n  reference: list\n}\n"
                "check t = trajectory(expected: case.reference)\nmetric r = rate(t)\n")
        spec = evaldsl.loads(text, name="t.eval")
        bad = dataclasses.replace(booked, fields={"reference": [3]})
        result = spec.evaluate(bad).checks["t"]
        assert result.is_error
        assert "neither a tool name nor a call" in str(result.reason)

    def test_a_rule_for_a_tool_never_expected_is_fine(self) -> None:
        """Expected calls are often per case: a rule may serve only the cases that call it."""
        text = 'check t = trajectory(expected: ["a"], tools: {b: {args: exact}})'
        assert _diagnostics(text) == []
