"""Name rules: unknown names, duplicates, clashes and cycles (one class per rule)."""

from __future__ import annotations

from tests.checker.helpers import BASE, codes, messages, of, rendered


class TestUnknownNames:
    def test_misspelt_check_suggests_the_check(self) -> None:
        """An unknown name close to a check says so, with carets under the name."""
        text = BASE.replace("success if intent and", "success if intnt and")
        assert rendered(text, "E101") == (
            "t.eval:6:14: error[E101]: unknown name `intnt`\n"
            "6 |   success if intnt and completion >= 0.8\n"
            "  |              ^^^^^\n"
            "hint: a check with a similar name exists: `intent`"
        )

    def test_nothing_close_suggests_defining_it(self) -> None:
        """Without a close name, the hint says how to define one, after the labels a
        metric may mean."""
        assert of(BASE + "metric m = rate(zzz)\n", "E101")[0].hint == (
            "the labels are `success` and `failure`; "
            "define it first, e.g. `let zzz = ...` or `check zzz = ...`")

    def test_missing_parameter_constant_suggests_a_let(self) -> None:
        """A parameter value is a constant: a check spelt alike is no suggestion."""
        text = 'check 门限 = latency(max_ms: 3000)\ncheck c = slots(slots: {a: "b"}, min: 门槛)\n'
        found = of(text, "E101")
        assert [d.message for d in found] == ["unknown name `门槛`"]
        assert found[0].hint == "define it first, e.g. `let 门槛 = ...`"

    def test_missing_threshold_suggests_a_let(self) -> None:
        """A name compared with a check's result is a threshold, so a let."""
        text = (BASE + "check 门限 = latency(max_ms: 3000)\n"
                "metric m = rate(polite >= 门槛 and 门限)\n")
        assert [d.hint for d in of(text, "E101")] == ["define it first, e.g. `let 门槛 = ...`"]

    def test_missing_constant_suggests_a_let_spelt_alike(self) -> None:
        """A let close to the missing constant is the suggestion."""
        text = BASE + "let threshold = 0.8\nmetric m = rate(polite >= treshold)\n"
        assert [d.hint for d in of(text, "E101")] == [
            "a let with a similar name exists: `threshold`"]

    def test_misspelt_label_is_an_unknown_label(self) -> None:
        """A name close to an outcome label is reported as an unknown label (E105)."""
        found = of(BASE + "metric m = rate(sucess)\n", "E105")
        assert [d.message for d in found] == ["unknown outcome label `sucess`"]
        assert found[0].hint == "did you mean `success`? the labels are `success` and `failure`"

    def test_metric_names_are_not_values(self) -> None:
        """A metric cannot be read by another expression."""
        assert messages(BASE + "metric m = rate(polite_rate > 1)\n", "E101") == [
            "`polite_rate` is a metric and cannot be used in an expression"]

    def test_bare_case(self) -> None:
        """`case` alone is not a value."""
        assert messages(BASE + "let x = case\n", "E101") == ["`case` is not a value by itself"]

    def test_unknown_table_in_a_table_argument(self) -> None:
        """A name given where a table is expected is an unknown table (E104)."""
        text = 'table regions { "a" -> "b" }\ncheck k = keyword(all: ["x"], table: regionz)\n'
        assert rendered(text, "E104") == (
            "t.eval:2:38: error[E104]: unknown table `regionz`\n"
            '2 | check k = keyword(all: ["x"], table: regionz)\n'
            "  |                                      ^^^^^^^\n"
            "hint: did you mean `regions`?"
        )

    def test_scope_names_are_not_references(self) -> None:
        """`scope: dialog` names a scope, not a let or a check."""
        assert codes('check j = judge(criteria: "x", scope: dialog)\n') == []


class TestUnknownLabelTexts:
    def test_label_compared_with_a_named_outcome(self) -> None:
        """`level == "goood"` names a label `level` cannot give."""
        text = BASE + 'outcome level {\n  good if polite >= 0.8\n  bad otherwise\n}\n' \
            'metric m = rate(level == "goood")\n'
        assert rendered(text, "E105") == (
            "t.eval:14:26: error[E105]: the outcome `level` has no label `goood`\n"
            '14 | metric m = rate(level == "goood")\n'
            "   |                          ^^^^^^^\n"
            "hint: did you mean `good`? `level` gives `good` and `bad` (or `error`)"
        )

    def test_error_is_always_a_label(self) -> None:
        """Every block can give `error`."""
        text = BASE + 'outcome level {\n  good if polite >= 0.8\n  bad otherwise\n}\n' \
            'metric m = rate(level in ["good", "error"])\n'
        assert "E105" not in codes(text)


class TestUnknownCaseFields:
    def test_undeclared_field(self) -> None:
        """With a `case` block, `case.x` must be declared there."""
        text = "case {\n  intent: text\n}\n" + BASE.replace("case.intent", "case.intnet")
        assert rendered(text, "E103") == (
            "t.eval:5:58: error[E103]: the case has no field `intnet`\n"
            '5 | check intent = classify(labels: ["a", "b"], expect: case.intnet)\n'
            "  |                                                          ^^^^^^\n"
            "hint: did you mean `intent`?"
        )

    def test_any_field_without_a_case_block(self) -> None:
        """Without a `case` block every `case.x` is allowed."""
        assert codes(BASE.replace("case.intent", "case.anything")) == []

    def test_hint_declares_when_nothing_is_close(self) -> None:
        """The hint shows the declaration to add."""
        text = "case {\n  intent: text\n}\n" + BASE + "metric m = mean(case.weight)\n"
        assert of(text, "E103")[0].hint == "declare it in the `case` block, e.g. `weight: text`"


class TestUnknownCaseTypes:
    def test_misspelt_type(self) -> None:
        """Case field types are the language's types."""
        assert rendered("case {\n  intent: txt\n}\n", "E111") == (
            "t.eval:2:11: error[E111]: unknown field type `txt`\n"
            "2 |   intent: txt\n"
            "  |           ^^^\n"
            "hint: did you mean `text`? the types are `text`, `number`, `bool`, `list`, `map` "
            "and `any`"
        )


class TestUnknownFunctions:
    def test_misspelt_aggregate(self) -> None:
        """A call to an unknown function suggests the aggregate."""
        assert messages(BASE + "metric m = avg(polite)\n", "E110") == ["unknown function `avg`"]

    def test_turn_is_a_scope(self) -> None:
        """`turn(N)` outside `scope:` is explained."""
        assert of(BASE + "let t = turn(3)\n", "E110")[0].hint == (
            "use it as a check argument: `scope: turn(3)`")

    def test_primitive_called_in_an_expression(self) -> None:
        """Primitives run only through `check`."""
        assert messages(BASE + 'let j = judge(criteria: "x")\n', "E110") == [
            "`judge` is a primitive and can only be called by a check"]


class TestDuplicateDefinitions:
    def test_check_and_let_share_a_namespace(self) -> None:
        """A let named like a check is a duplicate, pointing at the first."""
        assert rendered(BASE + "let polite = 1\n", "E107") == (
            "t.eval:10:5: error[E107]: the name `polite` is defined twice\n"
            "10 | let polite = 1\n"
            "   |     ^^^^^^\n"
            "hint: the first is the check on line 4; rename one of them"
        )

    def test_case_is_reserved(self) -> None:
        """No definition may be called `case`."""
        assert messages("let case = 1\n", "E112") == [
            "`case` is reserved and cannot name a let"]

    def test_second_case_block(self) -> None:
        """One `case` block per spec."""
        assert messages("case {\n  a: text\n}\ncase {\n  b: text\n}\n", "E107") == [
            "a second `case` block"]

    def test_field_declared_twice(self) -> None:
        """A case field is declared once."""
        assert messages("case {\n  a: text\n  a: number\n}\n", "E107") == [
            "the case field `a` is declared twice"]


class TestLabelClashes:
    def test_label_named_like_a_check(self) -> None:
        """A label that is also a check name would be ambiguous in expressions."""
        text = BASE.replace("failure otherwise", "polite otherwise")
        assert rendered(text, "E108") == (
            "t.eval:7:3: error[E108]: the label `polite` clashes with the check `polite`\n"
            "7 |   polite otherwise\n"
            "  |   ^^^^^^\n"
            "hint: rename the label or the check; `polite` in an expression could mean either"
        )

    def test_error_is_reserved(self) -> None:
        """The runtime's own `error` outcome cannot be a label."""
        assert messages(BASE.replace("failure otherwise", "error otherwise"), "E108") == [
            "`error` cannot be an outcome label"]

    def test_ambiguous_label_in_use(self) -> None:
        """A label given by two blocks is ambiguous where it is used."""
        text = BASE + "outcome level {\n  success if polite\n  meh otherwise\n}\n" \
            "metric s = rate(success)\n"
        assert messages(text, "E108") == ["the label `success` belongs to several outcome blocks"]


class TestDefinitionCycles:
    def test_two_lets(self) -> None:
        """A cycle is reported once, at the first definition, with the path."""
        text = "let a = b + 1\nlet b = a * 2\nmetric m = mean(a)\n"
        assert rendered(text, "E109") == (
            "t.eval:1:5: error[E109]: `a` depends on itself: `a` → `b` → `a`\n"
            "1 | let a = b + 1\n"
            "  |     ^\n"
            "hint: a let cannot be computed from its own value; break the cycle"
        )

    def test_self_reference(self) -> None:
        """A let that reads itself."""
        assert messages("let a = a + 1\nmetric m = mean(a)\n", "E109") == [
            "`a` depends on itself: `a` → `a`"]

    def test_cycle_through_an_outcome(self) -> None:
        """A label read by a let that the same outcome block reads."""
        text = BASE + "let good = success and polite\n" + \
            "outcome level {\n  fine if good\n  poor otherwise\n}\n"
        text = text.replace("success if intent and", "success if level == \"fine\" and")
        assert messages(text, "E109") == [
            "the verdict outcome depends on itself: the verdict outcome → outcome `level` → "
            "`good` → the verdict outcome"]

    def test_no_cycle_in_a_chain(self) -> None:
        """A long chain of lets is fine."""
        text = "".join(f"let x{i} = x{i + 1} + 1\n" for i in range(200)) + "let x200 = 1\n" \
            "metric m = mean(x0)\n"
        assert codes(text) == []


class TestUnknownLabelInAMetric:
    def test_a_label_far_from_any_name_lists_the_outcomes_labels(self) -> None:
        """`通过` is close to no name by spelling; in a metric it is surely a label."""
        from evaldsl.checker import check_source

        spec = ('check k = keyword(any: ["好"])\noutcome {\n  成功 if k\n  失败 otherwise\n}\n'
                "metric m = rate(通过)\n")
        [found] = check_source(spec, "t.eval")[1]
        assert found.code == "E101"
        assert found.hint.startswith("the labels are `成功` and `失败`; define it first")
