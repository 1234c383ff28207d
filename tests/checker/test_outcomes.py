"""Outcome blocks, thresholds and percentages (one class per rule)."""

from __future__ import annotations

from tests.checker.helpers import codes, messages, of, rendered

HEAD = 'check c = judge(criteria: "x", scale: 10)\ncheck y = judge(criteria: "y")\n'
USE = "metric m = rate(c) + rate(y)\n"


def _outcome(*branches: str, name: str = "") -> str:
    body = "".join(f"  {b}\n" for b in branches)
    return f"{HEAD}outcome{' ' + name if name else ''} {{\n{body}}}\n{USE}"


class TestMissingOtherwise:
    def test_no_otherwise(self) -> None:
        """Every case needs a label, so the last branch is `otherwise`."""
        assert rendered(_outcome("a if c >= 0.5", "b if y"), "E401") == (
            "t.eval:3:1: error[E401]: the verdict outcome has no `otherwise` branch\n"
            "3 | outcome {\n"
            "  | ^^^^^^^^^\n"
            "hint: add a last branch such as `failure otherwise` after `b`; every case needs a "
            "label"
        )

    def test_empty_block(self) -> None:
        """A block without branches."""
        assert messages(f"{HEAD}outcome level {{}}\n{USE}", "E401") == [
            "the outcome `level` has no branches"]


class TestBranchesAfterOtherwise:
    def test_branch_after_otherwise(self) -> None:
        """`otherwise` takes every remaining case, so nothing may follow it."""
        assert rendered(_outcome("a otherwise", "b if y"), "E402") == (
            "t.eval:5:3: error[E402]: the branch `b` comes after `otherwise`\n"
            "5 |   b if y\n"
            "  |   ^^^^^^\n"
            "hint: `a otherwise` already takes every remaining case; move it to the end"
        )


class TestRepeatedLabels:
    def test_label_twice(self) -> None:
        """A label is given by one branch; join conditions with `or`."""
        found = of(_outcome("a if c >= 0.9", "a if y", "b otherwise"), "E403")
        assert [(d.message, d.hint) for d in found] == [(
            "the label `a` is used twice in the verdict outcome",
            "the first is on line 4; join the conditions with `or` in one branch")]


class TestDuplicateBlocks:
    def test_two_unnamed_blocks(self) -> None:
        """Only one block is the verdict."""
        text = _outcome("a otherwise") + "outcome {\n  b otherwise\n}\n"
        assert messages(text, "E404") == ["a second unnamed outcome block"]

    def test_two_blocks_with_one_name(self) -> None:
        """Named blocks have distinct names."""
        text = _outcome("a otherwise", name="level") + "outcome level {\n  b otherwise\n}\n"
        assert messages(text, "E404") == ["a second outcome block named `level`"]


class TestDeadBranches:
    def test_looser_threshold_first(self) -> None:
        """The classic: `x >= 0.5` before `x >= 0.8 and y`."""
        assert rendered(_outcome("a if c >= 0.5", "b if c >= 0.8 and y", "z otherwise"),
                        "E405") == (
            "t.eval:5:3: error[E405]: the branch `b` can never fire\n"
            "5 |   b if c >= 0.8 and y\n"
            "  |   ^\n"
            "hint: every case it takes is already taken by `a` on line 4; put the stricter "
            "branch first"
        )

    def test_stricter_first_is_fine(self) -> None:
        """Best-first ordering is how blocks should be written."""
        assert codes(_outcome("a if c >= 0.8 and y", "b if c >= 0.5", "z otherwise")) == []

    def test_field_and_bare_name_are_the_same_value(self) -> None:
        """`c` in a comparison is `c.score`, and `y` as a condition is `y.passed`."""
        text = _outcome("a if c.score >= 0.5 and y.passed", "b if c > 0.6 and y", "z otherwise")
        assert messages(text, "E405") == ["the branch `b` can never fire"]

    def test_condition_that_never_holds(self) -> None:
        """Contradictory thresholds."""
        found = of(_outcome("a if c >= 0.8 and c < 0.5", "z otherwise"), "E405")
        assert [d.hint for d in found] == ["its condition can never hold"]

    def test_covered_by_several_branches(self) -> None:
        """Branches that together take every case leave nothing for a later one."""
        text = _outcome("a if y", "b if not y", "d if c >= 0.5", "z otherwise")
        assert of(text, "E405")[0].hint == (
            "the earlier branches `a`, `b` already take every case it would")

    def test_disjunctions(self) -> None:
        """A disjunction is covered when each of its parts is."""
        text = _outcome("a if c >= 0.5 or y", "b if c >= 0.7 or (y and c < 0.2)", "z otherwise")
        assert messages(text, "E405") == ["the branch `b` can never fire"]

    def test_text_equality(self) -> None:
        """Equal texts and different texts are understood."""
        text = _outcome('a if case.lang == "zh"', 'b if case.lang == "zh" and y', "z otherwise")
        assert messages(text, "E405") == ["the branch `b` can never fire"]
        assert codes(_outcome('a if case.lang == "zh"', 'b if case.lang == "en"',
                              "z otherwise")) == []


class TestUnreachableOtherwise:
    def test_complementary_thresholds(self) -> None:
        """`>= 0.5` and `< 0.5` leave nothing for `otherwise`."""
        text = _outcome("a if c >= 0.5", "b if c < 0.5", "z otherwise")
        assert rendered(text, "W105") == (
            "t.eval:6:3: warning[W105]: the label `z` can never be given\n"
            "6 |   z otherwise\n"
            "  |   ^\n"
            "hint: the branches before `otherwise` already take every case; turn the last of "
            "them into `otherwise`"
        )

    def test_a_gap_leaves_room(self) -> None:
        """`> 0.5` and `< 0.5` leave 0.5."""
        assert codes(_outcome("a if c > 0.5", "b if c < 0.5", "z otherwise")) == []


class TestThresholdsOutOfRange:
    def test_score_above_one(self) -> None:
        """Scores lie in 0..1; a percent-like threshold gets a hint."""
        assert rendered(_outcome("a if c >= 80", "z otherwise"), "E406") == (
            "t.eval:4:8: error[E406]: `c` lies between 0 and 1, so `>= 80` never holds\n"
            "4 |   a if c >= 80\n"
            "  |        ^^^^^^^\n"
            "hint: scores and rates run from 0 to 1; write `80%` or `0.8`"
        )

    def test_judge_value_and_scale(self) -> None:
        """`judge(scale: 10)` gives values up to 10."""
        assert messages(_outcome("a if c.value > 10", "z otherwise"), "E406") == [
            "`c.value` lies between 0 and 10, so `> 10` never holds"]

    def test_weighted_score(self) -> None:
        """Ranges follow arithmetic through lets."""
        text = _outcome("a if overall >= 120", "z otherwise") + \
            "let overall = 40 * c + 60 * y.score\n"
        assert messages(text, "E406") == [
            "`overall` lies between 0 and 100, so `>= 120` never holds"]

    def test_always_holds(self) -> None:
        """A threshold below the range always holds."""
        assert messages(_outcome("a if c >= -1", "z otherwise"), "E406") == [
            "`c` lies between 0 and 1, so `>= -1` always holds"]

    def test_constant_on_the_left(self) -> None:
        """`1.5 <= c` is `c >= 1.5`."""
        assert messages(_outcome("a if 1.5 <= c", "z otherwise"), "E406") == [
            "`c` lies between 0 and 1, so `>= 1.5` never holds"]

    def test_edges_are_fine(self) -> None:
        """`>= 0` and `<= 1` are within the range."""
        assert codes(_outcome("a if c >= 0 and c <= 1 and c.value >= 10", "z otherwise")) == []


    def test_equality_outside_the_range(self) -> None:
        """`== 2` on a 0..1 score never holds and `!= 2` always does."""
        assert messages(_outcome("a if c == 2", "b if y != 1.5", "z otherwise"), "E406") == [
            "`c` lies between 0 and 1, so `== 2` never holds",
            "`y` lies between 0 and 1, so `!= 1.5` always holds"]

    def test_above_the_maximum_of_a_scale(self) -> None:
        """`> 10` on a 10-point scale can never hold; `>= 10` can."""
        assert messages(_outcome("a if c.value > 10", "b if c.value >= 10", "z otherwise"),
                        "E406") == ["`c.value` lies between 0 and 10, so `> 10` never holds"]


class TestPercentagesForPoints:
    def test_percentage_against_a_hundred_points(self) -> None:
        """`80%` is 0.8, which a 0..100 score is almost never meant to be compared with."""
        text = _outcome("a if overall >= 80%", "z otherwise") + \
            "let overall = 40 * c + 60 * y.score\n"
        assert rendered(text, "W106") == (
            "t.eval:4:19: warning[W106]: `80%` is 0.8, but `overall` lies between 0 and 100\n"
            "4 |   a if overall >= 80%\n"
            "  |                   ^^^\n"
            "hint: did you mean `80`? a percentage is a share, and `overall` is not one"
        )

    def test_share_of_a_scale(self) -> None:
        """On a 0..10 scale the share of the scale is suggested, the percentage on the left too."""
        found = of(_outcome("a if 80% <= c.value", "z otherwise"), "W106")
        assert [(d.message, d.hint.split("?")[0]) for d in found] == [
            ("`80%` is 0.8, but `c.value` lies between 0 and 10", "did you mean `8`")]

    def test_shares_are_fine(self) -> None:
        """Percentages against scores, rates and 0..1 values raise nothing."""
        assert codes(_outcome("a if c >= 80% and y.score < 50%", "z otherwise")) == []


class TestPercentagesOutOfRange:
    def test_more_than_all(self) -> None:
        """A percentage is at most 100%."""
        assert rendered(_outcome("a if c >= 150%", "z otherwise"), "E407") == (
            "t.eval:4:13: error[E407]: `150%` is more than 100%\n"
            "4 |   a if c >= 150%\n"
            "  |             ^^^^\n"
            "hint: a percentage is a share of cases or of a score: 0% to 100%"
        )

    def test_in_a_primitive_argument(self) -> None:
        """Also where a primitive takes a share."""
        assert codes("check k = keyword(all: [\"a\"], min_ratio: 120%)\n") == ["E407"]
