"""Warnings about definitions nothing uses and `where`s that never hold."""

from __future__ import annotations

from tests.checker.helpers import BASE, codes, messages, rendered


class TestUnusedChecks:
    def test_unused_check(self) -> None:
        """A check no outcome or metric reads costs time for nothing."""
        text = BASE + 'check fast = latency(max_ms: 3000)\n'
        assert rendered(text, "W101") == (
            "t.eval:10:7: warning[W101]: the check `fast` is never used\n"
            "10 | check fast = latency(max_ms: 3000)\n"
            "   |       ^^^^\n"
            "hint: use it in an outcome or a metric, or remove it to save its cost"
        )

    def test_checks_only_spec(self) -> None:
        """Without outcomes and metrics the checks themselves are the report."""
        assert codes('check a = latency(max_ms: 3000)\ncheck b = judge(criteria: "x")\n') == []

    def test_used_through_a_let(self) -> None:
        """A check read by a used let is used."""
        assert codes(BASE + "check fast = latency(max_ms: 9)\nlet quick = fast\n"
                     "metric q = rate(quick)\n") == []

    def test_used_by_an_expectation(self) -> None:
        """Example expectations count as uses."""
        text = BASE + 'check fast = latency(max_ms: 9)\nexample "e" {\n  expect fast\n}\n'
        assert "W101" not in codes(text)


class TestUnusedLets:
    def test_unused_let(self) -> None:
        """A let nothing reported reads."""
        assert messages(BASE + "let spare = 1\n", "W102") == ["the let `spare` is never used"]

    def test_used_only_by_an_unused_let(self) -> None:
        """Use is reachability from what is reported."""
        assert messages(BASE + "let a = 1\nlet b = a\n", "W102") == [
            "the let `a` is never used", "the let `b` is never used"]


class TestUnusedTables:
    def test_unused_table(self) -> None:
        """A table no check reads."""
        assert rendered(BASE + 'table t { "a" -> "b" }\n', "W103") == (
            "t.eval:10:7: warning[W103]: the table `t` is never used\n"
            '10 | table t { "a" -> "b" }\n'
            "   |       ^\n"
            "hint: pass it to a check, e.g. `table: t`, or remove it"
        )

    def test_table_used_by_a_check(self) -> None:
        """A table passed to a used check is used."""
        text = BASE + 'table t { "a" -> "b" }\ncheck k = keyword(all: ["a"], table: t)\n' \
            "metric k_rate = rate(k)\n"
        assert codes(text) == []


class TestImpossibleWheres:
    def test_contradictory_thresholds(self) -> None:
        """A `where` no case satisfies gives an empty denominator."""
        text = BASE + "metric m = rate(intent) where polite >= 0.8 and polite < 0.5\n"
        assert rendered(text, "W104") == (
            "t.eval:10:31: warning[W104]: this `where` can never hold\n"
            "10 | metric m = rate(intent) where polite >= 0.8 and polite < 0.5\n"
            "   |                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
            "hint: the metric would always have an empty denominator; its conditions contradict "
            "each other"
        )

    def test_false(self) -> None:
        """`where false` never holds."""
        assert messages(BASE + "metric m = rate(intent) where false\n", "W104") == [
            "this `where` can never hold"]

    def test_condition_and_its_negation(self) -> None:
        """`x and not x` never holds."""
        assert messages(BASE + "metric m = rate(intent) where polite and not polite\n",
                        "W104") == ["this `where` can never hold"]

    def test_review_rule(self) -> None:
        """Review rules are checked the same way."""
        text = BASE + 'review {\n  sample 5% where case.lang == "zh" and case.lang == "en"\n}\n'
        assert messages(text, "W104") == ["this `where` can never hold"]

    def test_satisfiable(self) -> None:
        """An ordinary `where` is fine."""
        assert codes(BASE + "metric m = rate(intent) where polite >= 0.5 and polite < 0.8\n") \
            == []
