"""Examples and review blocks (one class per rule)."""

from __future__ import annotations

from tests.checker.helpers import BASE, codes, messages, of, rendered


def _example(*items: str) -> str:
    body = "".join(f"  {i}\n" for i in items)
    return f'{BASE}example "works" {{\n{body}}}\n'


class TestUnknownRoles:
    def test_misspelt_role(self) -> None:
        """Messages use the chat roles."""
        assert rendered(_example('asistant "hi"', "expect success"), "E501") == (
            "t.eval:11:3: error[E501]: unknown role `asistant`\n"
            '11 |   asistant "hi"\n'
            "   |   ^^^^^^^^\n"
            "hint: did you mean `assistant`? the roles are `system`, `developer`, `user`, "
            "`assistant` and `tool`"
        )

    def test_chat_roles(self) -> None:
        """The four roles are fine, with extra fields."""
        assert codes(_example('system "s"', 'user "u"', 'assistant "a" {latency_ms: 800}',
                              'tool "{}"', "expect success")) == []


class TestUnknownPins:
    def test_pin_of_an_unknown_check(self) -> None:
        """`given` pins check results only."""
        assert rendered(_example("given politeness = 8", "expect success"), "E502") == (
            "t.eval:11:9: error[E502]: `given` pins `politeness`, which is not a check\n"
            "11 |   given politeness = 8\n"
            "   |         ^^^^^^^^^^\n"
            "hint: did you mean `polite`?"
        )

    def test_pin_of_an_unknown_field(self) -> None:
        """A pinned field must be a result field of the primitive."""
        found = of(_example('given intent.labl = "a"', "expect success"), "E502")
        assert [(d.message, d.hint) for d in found] == [(
            "the check `intent` has no field `labl` to pin",
            "did you mean `label`? `classify` results have `passed`, `score`, `value` and "
            "`label`")]

    def test_pins(self) -> None:
        """Pinning a value or a field."""
        assert codes(_example("given polite = 8", 'given intent.label = "a"',
                              "expect success")) == []


class TestPinnedValues:
    def test_text_for_a_number(self) -> None:
        """A judge's value is points; a text can never be one."""
        assert rendered(_example('given polite = "good"', "expect success"), "E506") == (
            "t.eval:11:18: error[E506]: `given polite` pins a text, but the `value` of a "
            "`judge` result is a number\n"
            '11 |   given polite = "good"\n'
            "   |                  ^^^^^^\n"
            "hint: pin a number, e.g. `given polite = 8`"
        )

    def test_field_of_another_type(self) -> None:
        """A field is checked against the primitive's declared type, `true` for a label too."""
        assert messages(_example("given intent.label = true", "given completion.score = \"x\"",
                                 "expect success"), "E506") == [
            "`given intent.label` pins a condition (true/false), but the `label` of a "
            "`classify` result is a text",
            "`given completion.score` pins a text, but the `score` of a `slots` result is "
            "a number"]

    def test_outside_the_range(self) -> None:
        """12 points on a 10-point scale, or a score of 1.5, is a result no check gives."""
        assert messages(_example("given polite = 12", "given completion.score = 1.5",
                                 "expect success"), "E506") == [
            "`given polite` pins 12, but the `value` of a `judge` result lies between 0 and 10",
            "`given completion.score` pins 1.5, but the `score` of a `slots` result lies "
            "between 0 and 1"]

    def test_fitting_values(self) -> None:
        """Booleans pin `passed`; edges of the range are fine."""
        assert codes(_example("given polite = 10", "given completion = true",
                              "given completion.score = 0", "expect success")) == []


class TestExamplesWithoutExpect:
    def test_no_expect(self) -> None:
        """An example must assert something."""
        assert rendered(_example('user "hi"'), "E503") == (
            't.eval:10:1: error[E503]: the example `works` has no `expect` line\n'
            '10 | example "works" {\n'
            "   | ^^^^^^^^^^^^^^^^^\n"
            "hint: add what must hold, e.g. `expect success`"
        )


class TestSampleRates:
    def test_above_all(self) -> None:
        """A review rule samples at most every case."""
        text = BASE + "review {\n  sample 150% where intent\n}\n"
        assert rendered(text, "E504") == (
            "t.eval:11:10: error[E504]: a sample rate must lie between 0% and 100%\n"
            "11 |   sample 150% where intent\n"
            "   |          ^^^^\n"
            "hint: sample between 0% and 100% of the cases"
        )

    def test_plain_number_hint(self) -> None:
        """`sample 5` probably meant 5%."""
        found = of(BASE + "review {\n  sample 5\n}\n", "E504")
        assert [d.hint for d in found] == ["write `5%` for 5 percent"]

    def test_not_constant(self) -> None:
        """A sample rate is a constant."""
        assert messages(BASE + "review {\n  sample polite.score\n}\n", "E504") == [
            "a sample rate must be a constant percentage"]

    def test_fine(self) -> None:
        """Shares with a priority."""
        assert codes(BASE + "review (seed: 7) {\n  sample 2% where not intent priority 100 - "
                     "polite.value\n  sample 30%\n}\n") == []


class TestReviewOptions:
    def test_unknown_option(self) -> None:
        """`seed` is the only review option."""
        found = of(BASE + "review (sed: 7) {\n  sample 5%\n}\n", "E505")
        assert [(d.message, d.hint) for d in found] == [(
            "unknown review option `sed`", "did you mean `seed`? the only option is `seed: N`")]

    def test_seed_is_whole(self) -> None:
        """The seed is a whole number."""
        assert messages(BASE + "review (seed: 0.5) {\n  sample 5%\n}\n", "E505") == [
            "`seed` needs a whole number"]


class TestExampleCaseFields:
    def test_undeclared_field_in_an_example(self) -> None:
        """An example's case fields follow the `case` block."""
        text = "case {\n  intent: text\n}\n" + _example('case {intnet: "a"}', "expect success")
        assert messages(text, "E103") == ["the case has no field `intnet`"]
