"""Types of expressions and where aggregates may stand (one class per rule)."""

from __future__ import annotations

import pytest

from evaldsl.checker.facts.context import Context
from evaldsl.checker.facts.typer import TypeEnv, infer_type
from evaldsl.primitives.valuetypes import ValueType as T
from evaldsl.syntax.parser import parse
from tests.checker.helpers import BASE, codes, messages, of, registry, rendered

CASE = "case {\n  age: text\n  score: number\n}\n"


def _env(text: str) -> tuple[TypeEnv, dict[str, object]]:
    result = parse(text)
    assert result.module is not None
    ctx = Context(result.module, result.source, registry())
    return TypeEnv(ctx), {s.name: s for s in ctx.module.statements if hasattr(s, "name")}


class TestInferType:
    @pytest.mark.parametrize(("expr", "expected"), [
        ("1 + 2", T.NUMBER), ("30%", T.NUMBER), ('"x"', T.TEXT), ("true", T.BOOL),
        ("[1]", T.LIST), ("{a: 1}", T.MAP), ("polite", T.CHECK), ("polite.passed", T.BOOL),
        ("polite.score", T.NUMBER), ("intent.label", T.TEXT), ("success", T.BOOL),
        ("case.score", T.NUMBER), ("case.age", T.TEXT), ("rate(polite)", T.NUMBER),
        ("polite >= 0.5", T.BOOL), ("not polite", T.BOOL), ("(1)", T.NUMBER),
        ("nosuch", T.ANY), ("case.x", T.ANY), ("polite.filled", T.ANY),
    ])
    def test_types(self, expr: str, expected: T) -> None:
        """Literals, check fields, labels, case fields and operators have static types."""
        env, defs = _env(CASE + BASE + f"let probe = {expr}\n")
        let = defs["probe"]
        assert infer_type(let.value, env) is expected  # type: ignore[attr-defined]

    def test_environment_of_a_module(self) -> None:
        """`TypeEnv.of` builds the environment from a parsed spec."""
        result = parse(BASE + "let probe = intent.label\n")
        assert result.module is not None
        env = TypeEnv.of(result.module, result.source, registry())
        let = result.module.statements[-1]
        assert infer_type(let.value, env) is T.TEXT  # type: ignore[union-attr]

    def test_lets_take_their_value_type(self) -> None:
        """A let has the type of its expression, through chains of lets."""
        env, defs = _env(BASE + "let a = b\nlet b = polite.score * 2\nlet probe = a\n")
        assert infer_type(defs["probe"].value, env) is T.NUMBER  # type: ignore[attr-defined]


class TestCheckTypes:
    def test_number_compared_with_text(self) -> None:
        """A declared text field ordered against a number."""
        text = CASE + BASE.replace("intent and", "case.age > 18 and intent and")
        assert rendered(text, "E301") == (
            "t.eval:10:14: error[E301]: `>` orders numbers, but one side is a text\n"
            "10 |   success if case.age > 18 and intent and completion >= 0.8\n"
            "   |              ^^^^^^^^^^^^^\n"
            "hint: `case.age` is declared `text` in the `case` block; change its type or what "
            "it is compared with"
        )

    def test_check_compared_with_text_suggests_label(self) -> None:
        """`intent == "x"` probably meant the label."""
        found = of(BASE + 'metric m = rate(intent == "a")\n', "E301")
        assert [(d.message, d.hint) for d in found] == [(
            "cannot compare a check result with a text",
            "to compare the label a check gave, write `intent.label`")]

    def test_and_on_a_number(self) -> None:
        """`and` wants conditions on both sides."""
        text = BASE.replace("intent and completion >= 0.8", "intent and 0.5")
        assert messages(text, "E302") == ["`and` needs conditions, found a number on its right"]

    def test_not_on_a_number(self) -> None:
        """`not` wants a condition."""
        assert messages(CASE + BASE + "metric m = rate(not case.score)\n", "E302") == [
            "`not` needs a condition, found a number"]

    def test_arithmetic_on_a_condition(self) -> None:
        """Conditions are not numbers."""
        assert rendered(BASE + "metric m = mean(intent.passed + 1)\n", "E303") == (
            "t.eval:10:17: error[E303]: `+` needs numbers, found a condition (true/false) on its "
            "left\n"
            "10 | metric m = mean(intent.passed + 1)\n"
            "   |                 ^^^^^^^^^^^^^\n"
            "hint: a condition is not a number; in a metric, `rate(...)` turns it into a share"
        )

    def test_arithmetic_on_text(self) -> None:
        """Texts are not numbers either."""
        assert messages(CASE + BASE + "metric m = mean(case.age * 2)\n", "E303") == [
            "`*` needs numbers, found a text on its left"]

    def test_bare_checks_coerce(self) -> None:
        """A bare check is a condition with `and` and a number with `>=` and `*`."""
        assert codes(BASE + "metric m = rate(intent and polite) + mean(polite * 2)\n") == []

    def test_condition_must_be_bool(self) -> None:
        """An outcome condition that is a number."""
        text = CASE + BASE.replace("intent and completion >= 0.8", "case.score")
        assert rendered(text, "E306") == (
            "t.eval:10:14: error[E306]: an outcome condition must be true or false, found a "
            "number\n"
            "10 |   success if case.score\n"
            "   |              ^^^^^^^^^^\n"
            "hint: compare it with a threshold, e.g. `>= 0.8`"
        )

    def test_where_must_be_bool(self) -> None:
        """A metric's `where` selects cases with a condition."""
        assert messages(CASE + BASE + "metric m = rate(intent) where case.score\n", "E306") == [
            "`where` needs a condition (true/false), found a number"]

    def test_rate_of_a_number(self) -> None:
        """`rate` counts conditions; the hint points to `mean`."""
        found = of(CASE + BASE + "metric m = rate(case.score)\n", "E307")
        assert [(d.message, d.hint) for d in found] == [(
            "`rate` counts cases where a condition holds, found a number",
            "`mean(...)` averages numbers; `rate(x >= 0.8)` counts cases over a threshold")]

    def test_mean_of_a_condition(self) -> None:
        """`mean` averages numbers; the hint points to `rate`."""
        assert messages(BASE + "metric m = mean(intent.passed)\n", "E307") == [
            "`mean` needs a number, found a condition (true/false)"]

    def test_arity(self) -> None:
        """`percentile` takes the value and the percentile."""
        found = of(BASE + "metric m = percentile(polite)\n", "E307")
        assert [(d.message, d.hint) for d in found] == [(
            "`percentile` takes 2 arguments, found 1", "write `percentile(value, 90)`")]

    def test_metric_must_be_a_number(self) -> None:
        """A metric's value is a number."""
        assert messages(BASE + "metric m = rate(intent) > 0.5\n", "E309") == [
            "a metric must be a number, found a condition (true/false)"]

    def test_unknown_result_field(self) -> None:
        """Result fields come from the primitive."""
        assert rendered(BASE + "metric m = rate(intent.labl == \"a\")\n", "E102") == (
            "t.eval:10:24: error[E102]: the check `intent` has no field `labl`\n"
            '10 | metric m = rate(intent.labl == "a")\n'
            "   |                        ^^^^\n"
            "hint: did you mean `label`? `classify` results have `passed`, `score`, `value` and "
            "`label`"
        )

    def test_field_of_a_number(self) -> None:
        """Numbers have no fields."""
        assert messages(BASE + "metric m = mean(polite.score.value)\n", "E309") == [
            "a number has no fields, so it has no `.value`"]

    def test_in_needs_a_container(self) -> None:
        """`in` looks inside lists, maps and texts."""
        assert messages(CASE + BASE + "metric m = rate(case.score in 5)\n", "E309") == [
            "`in` needs a list, map or text on its right, found a number"]


class TestMisplacedAggregates:
    def test_aggregate_in_a_let(self) -> None:
        """Lets are per case."""
        assert rendered(BASE + "let r = rate(intent)\nmetric m = mean(r)\n", "E304") == (
            "t.eval:10:9: error[E304]: the aggregate `rate` can only be used in a metric, not in "
            "a `let` (lets are per case)\n"
            "10 | let r = rate(intent)\n"
            "   |         ^^^^^^^^^^^^\n"
            "hint: aggregates combine all cases; per case, use the value itself"
        )

    def test_aggregate_in_an_outcome(self) -> None:
        """Outcome conditions judge one case."""
        text = BASE.replace("intent and completion >= 0.8", "rate(intent) > 0.5")
        assert messages(text, "E304") == [
            "the aggregate `rate` can only be used in a metric, not in an outcome condition "
            "(it judges one case)"]

    def test_aggregate_in_where(self) -> None:
        """A `where` selects cases one by one."""
        assert len(of(BASE + "metric m = rate(intent) where mean(polite) > 0.5\n", "E304")) == 1

    def test_nested_aggregates(self) -> None:
        """An aggregate of an aggregate has no meaning."""
        assert messages(BASE + "metric m = mean(rate(intent))\n", "E308") == [
            "the aggregate `rate` is inside another aggregate `mean`"]


class TestBareValuesInMetrics:
    def test_bare_check(self) -> None:
        """A per-case value outside aggregates; the hint wraps it."""
        assert rendered(BASE + "metric m = polite\n", "E305") == (
            "t.eval:10:12: error[E305]: a metric cannot use a per-case value outside an "
            "aggregate\n"
            "10 | metric m = polite\n"
            "   |            ^^^^^^\n"
            "hint: aggregate it over the cases, e.g. `rate(polite)`"
        )

    def test_bare_number_field_suggests_mean(self) -> None:
        """A number is averaged."""
        assert of(BASE + "metric m = rate(intent) + polite.score\n", "E305")[0].hint == (
            "aggregate it over the cases, e.g. `mean(polite.score)`")

    def test_per_case_let(self) -> None:
        """A let reading a check is per case too."""
        assert len(of(BASE + "let p = polite.score * 2\nmetric m = p\n", "E305")) == 1

    def test_constants_are_fine(self) -> None:
        """Constant lets and literals combine aggregates freely."""
        assert codes(BASE + "let w = 0.5\nmetric m = w * rate(success) + 100 * rate(intent)\n") \
            == []


class TestNonNumbersInMetrics:
    def test_constant_text_in_a_formula(self) -> None:
        """A constant part of a formula must fold to a number (it failed only at load)."""
        assert rendered(BASE + 'let w = {k: "x"}\nmetric m = rate(intent) * w.k\n', "E305") == (
            "t.eval:11:27: error[E305]: a metric combines aggregates such as `rate(...)` and "
            "`mean(...)` with numbers; this part is not one\n"
            "11 | metric m = rate(intent) * w.k\n"
            "   |                           ^^^\n"
            "hint: write a number, or a `let` that is one"
        )

    def test_constant_lookups_fold(self) -> None:
        """Numbers read from constant maps and lists are numbers."""
        assert codes(BASE + "let w = {k: 2}\nmetric m = rate(intent) * w.k + [1, 2][1]\n") == []


class TestPercentile:
    def test_keyword_rank(self) -> None:
        """`percentile(x, p: 90)` and `percentile(x, 90%)` are the 90th percentile."""
        assert codes(BASE + "metric a = percentile(polite, p: 90)\n"
                     "metric b = percentile(polite.value, 90%)\n") == []

    def test_rank_out_of_range(self) -> None:
        """The rank is a constant in 0..100."""
        assert messages(BASE + "metric a = percentile(polite, 120)\n", "E307") == [
            "the percentile must be a constant between 0 and 100"]

    def test_unknown_keyword(self) -> None:
        """Only `p:` may be named."""
        assert messages(BASE + "metric a = percentile(polite, q: 90)\n", "E307") == [
            "`percentile` has no argument `q`"]
