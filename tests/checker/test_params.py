"""Primitive arguments, scopes, patterns, schemas and tables (one class per rule)."""

from __future__ import annotations

import re

from evaldsl.checker import check_source
from tests.checker.helpers import codes, messages, of, rendered


def _used(text: str) -> str:
    """`text` plus a metric that uses its last check, so no W101 gets in the way."""
    name = re.findall(r"check (\w+) =", text)[-1]
    return f"{text}\nmetric m = rate({name})\n"


class TestUnknownPrimitives:
    def test_misspelt_primitive(self) -> None:
        """The hint suggests the closest primitive and lists them all."""
        found = of(_used('check p = judg(criteria: "x")'), "E106")
        assert [d.message for d in found] == ["unknown primitive `judg`"]
        assert found[0].hint.startswith("did you mean `judge`? the primitives are `args_match`")


class TestPositionalArguments:
    def test_unnamed_argument(self) -> None:
        """Primitive arguments need names; the hint names the required one first."""
        assert rendered(_used('check a = judge("be polite")'), "E014") == (
            "t.eval:1:17: error[E014]: the arguments of `judge` need names\n"
            '1 | check a = judge("be polite")\n'
            "  |                 ^^^^^^^^^^^\n"
            "hint: write it as `criteria: ...`; `judge` takes `criteria`, `scale` and `min`"
        )

    def test_no_missing_argument_reported_as_well(self) -> None:
        """The unnamed argument is not also reported as a missing one."""
        assert "E202" not in codes(_used('check a = judge("be polite")'))


class TestRepeatedArguments:
    def test_argument_twice(self) -> None:
        """The second occurrence is reported, pointing back at the first."""
        assert rendered(_used('check b = judge(criteria: "x", criteria: "y")'), "E211") == (
            "t.eval:1:32: error[E211]: the argument `criteria` is given twice\n"
            '1 | check b = judge(criteria: "x", criteria: "y")\n'
            "  |                                ^^^^^^^^\n"
            "hint: the first is at 1:17; keep one"
        )


class TestUnknownParameters:
    def test_misspelt_parameter(self) -> None:
        """The params model decides which parameters exist."""
        assert rendered(_used('check p = judge(critera: "x")'), "E201") == (
            "t.eval:1:17: error[E201]: `judge` has no parameter `critera`\n"
            '1 | check p = judge(critera: "x")\n'
            "  |                 ^^^^^^^\n"
            "hint: did you mean `criteria`? its parameters are `criteria`, `scale`, `min` and "
            "`scope`"
        )

    def test_a_misspelt_parameter_is_the_only_error_of_its_call(self) -> None:
        """`anyy` leaves `keyword` with none of `all`, `any`, `none`: that follows from the
        misspelling, so the unknown parameter is reported, and it alone."""
        found = check_source(_used('check k = keyword(anyy: ["退款"])'), "t.eval")[1]
        assert [d.code for d in found] == ["E201"]
        assert found[0].hint.startswith("did you mean `any`?")

    def test_a_model_error_of_a_call_without_misspelling_stays(self) -> None:
        found = check_source(_used("check k = keyword(min_ratio: 0.5)"), "t.eval")[1]
        assert [d.code for d in found] == ["E204"]


class TestParameterValues:
    def test_missing_required(self) -> None:
        """A required field of the params model must be given; the hint shows its doc."""
        assert rendered(_used("check p = judge(scale: 5)"), "E202") == (
            "t.eval:1:11: error[E202]: `judge` needs the argument `criteria`\n"
            "1 | check p = judge(scale: 5)\n"
            "  |           ^^^^^\n"
            "hint: add `criteria: ...` (what a good reply does, in plain words)"
        )

    def test_out_of_range(self) -> None:
        """pydantic's bounds become E204 at the argument's value."""
        assert messages(_used('check c = judge(criteria: "x", scale: 1)'), "E204") == [
            "`scale` must be greater than or equal to 2, found `1`"]

    def test_wrong_type(self) -> None:
        """A text where a whole number is wanted."""
        assert messages(_used('check d = judge(criteria: "x", scale: "ten")'), "E203") == [
            '`scale` must be a whole number, found the text `"ten"`']

    def test_fraction_for_a_whole_number(self) -> None:
        """`7.5` is not a whole number."""
        assert messages(_used('check e = judge(criteria: "x", scale: 7.5)'), "E203") == [
            "`scale` must be a whole number, found `7.5`"]

    def test_nested_value_points_inside_the_map(self) -> None:
        """An error inside a map points at the entry's value."""
        found = of(_used("check j = slots(slots: {name: 3})"), "E203")
        assert [d.message for d in found] == ["`slots.name` must be a text, found `3`"]
        assert (found[0].span.col, found[0].span.end_col) == (31, 32)

    def test_choice(self) -> None:
        """A `Literal` parameter lists its choices and suggests the closest."""
        found = of(_used('check i = trajectory(expected: ["a"], mode: "strikt")'), "E204")
        assert [d.message for d in found] == ['`mode` cannot be the text `"strikt"`']
        assert found[0].hint == ("did you mean `strict`? the choices are `strict`, `unordered`, "
                                 "`subset` and `superset`")

    def test_bare_choice_word_is_the_text(self) -> None:
        """`mode: strict` means `mode: "strict"`: no quotes needed for a choice."""
        assert codes(_used('check i = trajectory(expected: ["a"], mode: superset)')) == []

    def test_bare_word_that_is_no_choice_lists_the_choices(self) -> None:
        """An unknown bare word given to a choice says which words it takes."""
        found = of(_used('check i = trajectory(expected: ["a"], mode: strictly)'), "E101")
        assert [d.message for d in found] == ["unknown name `strictly`"]
        assert found[0].hint == 'mode takes "strict", "unordered", "subset" or "superset"'

    def test_a_defined_name_wins_over_the_choice_word(self) -> None:
        """A let named like a choice is the let: the spec's own names come first."""
        text = _used('let strict = "subset"\ncheck i = trajectory(expected: ["a"], mode: strict)')
        assert codes(text) == []

    def test_constant_required(self) -> None:
        """A parameter not declared dynamic may not depend on the case."""
        assert rendered(_used("check f = judge(criteria: case.rubric)"), "E203") == (
            "t.eval:1:27: error[E203]: `criteria` must be a constant, but it depends on the case\n"
            "1 | check f = judge(criteria: case.rubric)\n"
            "  |                           ^^^^^^^^^^^\n"
            "hint: `judge` takes only constant arguments; use a literal or a `let` made of literals"
        )

    def test_dynamic_parameter_is_type_checked(self) -> None:
        """A dynamic parameter's expression must have the declared type."""
        text = _used('case {\n  n: number\n}\n'
                     'check h = classify(labels: ["a"], expect: case.n + 1)')
        assert messages(text, "E203") == ["`expect` needs a text, found a number"]

    def test_lets_and_tables_fold(self) -> None:
        """Lets of literals and table names are constants."""
        text = _used('let words = ["hi", "hello"]\ntable t (casefold) { "HI" -> "hi" }\n'
                     "check k = keyword(any: words, table: t)")
        assert codes(text) == []

    def test_unknown_names_are_not_reported_twice(self) -> None:
        """An argument naming an unknown let gets E101 only."""
        assert codes(_used("check k = keyword(any: wordz)")) == ["E101"]


class TestScopeArguments:
    def test_unknown_scope(self) -> None:
        """Scopes are a fixed set; the hint lists them."""
        assert rendered(_used('check j = judge(criteria: "x", scope: dialogue)'), "E210") == (
            "t.eval:1:39: error[E210]: unknown scope `dialogue`\n"
            '1 | check j = judge(criteria: "x", scope: dialogue)\n'
            "  |                                       ^^^^^^^^\n"
            "hint: did you mean `dialog`? the scopes are `last_reply`, `replies`, `each_reply`, "
            "`any_reply`, `dialog`, `first_user`, `user_turns`, `last_user`, `tool_results`, "
            "`each_exchange`, `any_exchange` and `turn(N)`"
        )

    def test_quoted_scope(self) -> None:
        """A scope is a name, not a text."""
        assert of(_used('check m = latency(max_ms: 3000, scope: "dialog")'), "E210")[0].hint == (
            "write `scope: dialog` without quotes")

    def test_turn_needs_a_positive_whole_number(self) -> None:
        """`turn(0)` is not a message."""
        assert messages(_used("check k = latency(max_ms: 3000, scope: turn(0))"), "E210") == [
            "`turn(N)` needs one whole number from 1"]

    def test_turn_is_fine(self) -> None:
        """`turn(3)` is a scope."""
        assert codes(_used("check k = latency(max_ms: 3000, scope: turn(3))")) == []

    def test_scope_not_accepted(self) -> None:
        """A primitive accepts only the scopes it declares."""
        assert rendered(_used("check k = latency(max_ms: 3000, scope: first_user)"), "E205") == (
            "t.eval:1:40: error[E205]: `latency` does not accept the scope `first_user`\n"
            "1 | check k = latency(max_ms: 3000, scope: first_user)\n"
            "  |                                        ^^^^^^^^^^\n"
            "hint: it accepts `any_reply`, `each_reply`, `last_reply`, `replies` and `turn(N)`"
        )

    def test_whole_case_primitive_takes_no_scope(self) -> None:
        """A primitive without scopes rejects `scope:` altogether."""
        assert messages(_used("check l = turns(max: 3, scope: dialog)"), "E205") == [
            "`turns` reads the whole case and takes no `scope`"]


class TestInvalidRegexes:
    def test_caret_at_the_error(self) -> None:
        """The caret points at the `(` left unclosed, not at the pattern's end."""
        assert rendered(_used('check n = regex(pattern: "ab(c")'), "E206") == (
            "t.eval:1:29: error[E206]: invalid regular expression: `(` is not closed\n"
            '1 | check n = regex(pattern: "ab(c")\n'
            "  |                             ^\n"
            "hint: escape characters that have a meaning in patterns, e.g. `\\\\(` for `(`"
        )

    def test_pattern_from_a_let(self) -> None:
        """A pattern held by a let is found where the let writes it."""
        found = of(_used('let p = "[a-"\ncheck n = regex(pattern: p)'), "E206")
        assert [(d.span.line, d.message) for d in found] == [
            (1, "invalid regular expression: `[` is not closed")]

    def test_valid_unicode_pattern(self) -> None:
        """Chinese text and escapes compile."""
        assert codes(_used(r'check n = regex(pattern: "预约\d+号")')) == []


class TestInvalidSchemas:
    def test_bad_keyword_value(self) -> None:
        """The caret points at the offending part of the schema map."""
        text = _used('check o = json_schema(schema: {type: "object", properties: {a: {type: 3}}})')
        found = of(text, "E209")
        assert [d.message for d in found] == [
            "`schema` is not a valid JSON schema: 3 is not valid under any of the given schemas "
            "(at `properties.a.type`)"]
        assert found[0].span.col == 71


class TestTableOptions:
    def test_unknown_option(self) -> None:
        """Options come from the tables module."""
        assert rendered('table t (casefold, lower) { "A" -> "a" }\n', "E208") == (
            "t.eval:1:20: error[E208]: unknown table option `lower`\n"
            '1 | table t (casefold, lower) { "A" -> "a" }\n'
            "  |                    ^^^^^\n"
            "hint: the options are `nfkc`, `casefold`, `strip`, `collapse`, `nospace`, `punct`, "
            "`clock`, `remove`, `replace`, `tolerance` and `units`"
        )

    def test_value_option_without_value(self) -> None:
        """`remove` needs the characters to remove."""
        assert messages('table t (remove) { "A" -> "a" }\n', "E208") == [
            "the option `remove` needs a text"]

    def test_flag_with_value(self) -> None:
        """A flag takes no value."""
        assert messages('table t (strip: true) { "A" -> "a" }\n', "E208") == [
            "the option `strip` takes no value"]


class TestTableValueOptions:
    """`replace`, `tolerance` and `units`: a wrong value is E208 at the value, with a hint."""

    def test_replace_needs_a_map(self) -> None:
        assert rendered('table t (replace: "x") {}\n', "E208") == (
            "t.eval:1:19: error[E208]: the option `replace` needs a map of texts to texts\n"
            '1 | table t (replace: "x") {}\n'
            "  |                   ^^^\n"
            'hint: write e.g. `replace: {"\'": "\\""}` to turn each `\'` into `"`'
        )

    def test_replace_of_the_empty_text(self) -> None:
        assert messages('table t (replace: {"": "x"}) {}\n', "E208") == [
            "`replace` cannot replace the empty text"]

    def test_tolerance_needs_a_number_or_a_percentage(self) -> None:
        assert rendered('table t (tolerance: "0.01") {}\n', "E208") == (
            "t.eval:1:21: error[E208]: the option `tolerance` needs a number or a percentage, "
            "not below 0\n"
            '1 | table t (tolerance: "0.01") {}\n'
            "  |                     ^^^^^^\n"
            "hint: write `tolerance: 0.01` (absolute), `tolerance: 0.1%` (relative) or one of "
            "each: `tolerance: [0.01, 0.1%]`"
        )

    def test_negative_tolerance(self) -> None:
        assert messages("table t (tolerance: -1) {}\n", "E208") == [
            "the option `tolerance` needs a number or a percentage, not below 0"]

    def test_two_absolute_tolerances(self) -> None:
        found = of("table t (tolerance: [0.01, 0.02]) {}\n", "E208")
        assert [(d.message, d.span.col) for d in found] == [
            ("`tolerance` takes at most one number and one percentage", 28)]

    def test_one_of_each_is_fine(self) -> None:
        assert "E208" not in codes("table t (tolerance: [0.01, 0.1%]) {}\n")

    def test_units_pint_does_not_know(self) -> None:
        assert rendered('table t (units: "kmh") {}\n', "E208") == (
            "t.eval:1:17: error[E208]: pint does not know the unit `kmh`\n"
            '1 | table t (units: "kmh") {}\n'
            "  |                 ^^^^^\n"
            "hint: write a unit such as `km`, `m/s`, `h`, `kg` or `degC`, or a Chinese name "
            "such as `公里`, `小时`, `公斤`"
        )

    def test_currency_is_not_a_unit(self) -> None:
        found = of('table t (units: ["km", "元"]) {}\n', "E208")
        assert [(d.message, d.span.col) for d in found] == [
            ("`元` is a currency, not a unit", 24)]
        assert found[0].hint == ("no fixed factor converts currencies; map their spellings in "
                                 'the table\'s entries, e.g. `"100元" -> "100"`')

    def test_two_units_of_one_dimension(self) -> None:
        assert messages('table t (units: ["km", "米"]) {}\n', "E208") == [
            "`km` and `米` measure the same quantity ([length])"]

    def test_units_need_a_value(self) -> None:
        assert messages("table t (units: 5) {}\n", "E208") == [
            "the option `units` needs a unit name or a list of them"]
        assert messages("table t (units) {}\n", "E208") == [
            "the option `units` needs a unit name or a list of them"]

    def test_good_options_together(self) -> None:
        text = 'table t (tolerance: 0.01, units: ["km", "公斤"], replace: {a: "b"}) {}\n'
        assert "E208" not in codes(text)


class TestConflictingEntries:
    def test_same_source_two_targets(self) -> None:
        """One source, two targets."""
        text = 'table t {\n  "华东" -> "east"\n  "华东" -> "west"\n}\n'
        assert rendered(text, "E207") == (
            "t.eval:3:3: error[E207]: the table `t` maps `华东` to two targets: `east` and `west`\n"
            '3 |   "华东" -> "west"\n'
            "  |   ^^^^^^\n"
            "hint: line 2 already maps it to `east`; keep one mapping"
        )

    def test_sources_equal_after_options(self) -> None:
        """Under `casefold`, `East` and `east` are the same source."""
        text = 'table t (casefold) {\n  "East" -> "e"\n  "east" -> "w"\n}\n'
        assert messages(text, "E207") == [
            "the table `t` maps `east` (the same as `East` after the table's options) to two "
            "targets: `e` and `w`"]

    def test_sources_equal_after_replace(self) -> None:
        """`replace` is an option like the others: `'a'` is `"a"` once quotes are replaced."""
        text = 'table t (replace: {"\'": "\\""}) {\n  "\\"a\\"" -> "x"\n  "\'a\'" -> "y"\n}\n'
        assert messages(text, "E207") == [
            "the table `t` maps `'a'` (the same as `\"a\"` after the table's options) to two "
            "targets: `x` and `y`"]

    def test_same_target_twice_is_fine(self) -> None:
        """Mapping one source twice to the same target is harmless."""
        assert "E207" not in codes('table t {\n  "a" -> "x"\n  "a" -> "x"\n}\n')
