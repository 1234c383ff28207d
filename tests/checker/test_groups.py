"""Group keys of `metric ... by KEY, ...`: declared case fields of a type that groups."""

from __future__ import annotations

from tests.checker.helpers import codes, rendered

CASES = """case {
  tenant: text
  lang: text?
  vip: bool
  score: number
  tags: list
}
check ok = keyword(any: ["x"])
"""


class TestGroupKeys:
    def test_text_and_bool_fields_group(self) -> None:
        """Text and condition fields, one or several, optional or not, are fine."""
        text = CASES + "metric m = rate(ok) by case.tenant, case.lang, case.vip\n"
        assert codes(text) == []

    def test_any_field_groups_without_a_case_block(self) -> None:
        """Without a `case` block every field is `any`, and groups."""
        assert codes('check ok = keyword(any: ["x"])\nmetric m = rate(ok) by case.tenant\n') == []

    def test_undeclared_field_suggests_the_declared_one(self) -> None:
        """An undeclared key is an unknown case field (E103), with a did-you-mean."""
        assert rendered(CASES + "metric m = rate(ok) by case.tenent\n", "E103") == (
            "t.eval:9:29: error[E103]: the case has no field `tenent`\n"
            "9 | metric m = rate(ok) by case.tenent\n"
            "  |                             ^^^^^^\n"
            "hint: did you mean `tenant`?"
        )

    def test_number_field_does_not_group(self) -> None:
        """A number has too many values to be a group: E311 under the key."""
        assert rendered(CASES + "metric m = rate(ok) by case.tenant, case.score\n", "E311") == (
            "t.eval:9:37: error[E311]: cannot group by `case.score`: it is declared `number`\n"
            "9 | metric m = rate(ok) by case.tenant, case.score\n"
            "  |                                     ^^^^^^^^^^\n"
            "hint: group by a `text` or `bool` field, e.g. a band of the number given in the data"
        )

    def test_list_field_does_not_group(self) -> None:
        """A list is not one value a case has."""
        assert codes(CASES + "metric m = rate(ok) by case.tags\n") == ["E311"]

    def test_key_that_is_not_a_case_field(self) -> None:
        """A check, a let or an expression is not a key: E310 under it."""
        assert rendered(CASES + "metric m = rate(ok) by ok\n", "E310") == (
            "t.eval:9:24: error[E310]: a group key must be a case field, found `ok`\n"
            "9 | metric m = rate(ok) by ok\n"
            "  |                        ^^\n"
            "hint: group by a field of the `case` block, e.g. `by case.tenant`"
        )

    def test_key_given_twice(self) -> None:
        """The same key twice splits nothing: E310 on the second."""
        assert codes(CASES + "metric m = rate(ok) by case.lang, case.lang\n") == ["E310"]

    def test_aggregate_in_a_key(self) -> None:
        """An aggregate has no per-case value to group by."""
        assert "E304" in codes(CASES + "metric m = rate(ok) by rate(ok)\n")
