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
            "hint: did you mean `assistant`? the roles are `system`, `user`, `assistant` and "
            "`tool`"
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
