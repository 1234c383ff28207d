"""The formatter: one canonical layout, every comment kept, same AST, idempotent."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from evaldsl.errors import SpecError
from evaldsl.syntax.formatter import format_module, format_source, quote
from evaldsl.syntax.parser import parse
from tests.strategies import laid_out_specs, mutations, specs

PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _same_module(a: str, b: str) -> bool:
    return parse(a).module == parse(b).module


class TestLaws:
    @PROPERTY
    @given(specs())
    def test_law_round_trip(self, text: str) -> None:
        """Law: parse(fmt(x)) == parse(x), comments included."""
        assert _same_module(format_source(text), text)

    @PROPERTY
    @given(specs())
    def test_law_idempotent(self, text: str) -> None:
        """Law: fmt(fmt(x)) == fmt(x)."""
        once = format_source(text)
        assert format_source(once) == once

    @PROPERTY
    @given(laid_out_specs())
    def test_law_round_trip_and_idempotent_on_scrambled_layouts(self, text: str) -> None:
        """Law: both hold when line breaks and comments sit between any two tokens."""
        once = format_source(text)
        assert _same_module(once, text)
        assert format_source(once) == once

    @PROPERTY
    @given(laid_out_specs())
    def test_law_layout_does_not_matter(self, text: str) -> None:
        """Law: the output does not depend on spacing (only on line breaks in maps and lists)."""
        once = format_source(text)
        squeezed = format_source(once.replace("  ", " "))
        assert squeezed == once


    @PROPERTY
    @given(specs().flatmap(mutations))
    def test_law_holds_for_any_parsable_text(self, data: bytes) -> None:
        """Law: round trip and idempotence hold for broken specs that still parse."""
        result = parse(data)
        if result.module is None:
            return
        once = format_module(result.module)
        assert parse(once).module == result.module
        assert format_source(once) == once


class TestLayout:
    def test_canonical_spacing(self) -> None:
        """Spaces, indents and trailing commas are normalised."""
        text = ('check   p=judge( criteria :"x" , scale:10 , )\n'
                'outcome{\n a if p>=0.5\n b otherwise}\n')
        assert format_source(text) == (
            'check p = judge(criteria: "x", scale: 10)\n'
            "\n"
            "outcome {\n"
            "  a if p >= 0.5\n"
            "  b otherwise\n"
            "}\n"
        )

    def test_metric_by_prints_after_where(self) -> None:
        """`by` keys print back after the `where`, one space after each comma."""
        text = "metric m=rate(p)where case.ok  by case.lang ,case.domain\n"
        assert format_source(text) == (
            "metric m = rate(p) where case.ok by case.lang, case.domain\n")

    @pytest.mark.parametrize("clause", ["lower is better", "越低越好", "higher is better"])
    def test_metric_direction_is_kept_as_written(self, clause: str) -> None:
        """`evaldsl fmt` keeps a metric's direction clause, last, in the words written."""
        text = f"metric v=rate(p)  where case.ok by case.lang\n   {clause}\n"
        assert format_source(text) == (
            f"metric v = rate(p) where case.ok by case.lang {clause}\n")

    def test_multi_line_maps_stay_multi_line(self) -> None:
        """A map written over several lines keeps one entry per line, with trailing commas."""
        text = 'let m = {a: 1,\n b: 2}\nlet n = {a: 1, b: 2}\n'
        assert format_source(text) == "let m = {\n  a: 1,\n  b: 2,\n}\n\nlet n = {a: 1, b: 2}\n"

    def test_last_map_argument_hugs_the_call(self) -> None:
        """A multi-line map as the last argument opens on the check's line."""
        text = 'check s = slots(min: 0.6, slots: {\n a: "x",\n b: "y"})\n'
        assert format_source(text) == (
            'check s = slots(min: 0.6, slots: {\n  a: "x",\n  b: "y",\n})\n')

    def test_long_calls_break_one_argument_per_line(self) -> None:
        """Arguments that do not fit in 100 columns go one per line."""
        criteria = "礼貌" * 40
        text = f'check p = judge(criteria: "{criteria}", scale: 10)\n'
        assert format_source(text) == (
            f'check p = judge(\n  criteria: "{criteria}",\n  scale: 10,\n)\n')

    def test_blank_lines(self) -> None:
        """Blank lines are kept (one at most) and separate statements of different kinds."""
        text = "let a = 1\n\n\n\nlet b = 2\nlet c = 3\nmetric m = mean(a)\n"
        assert format_source(text) == "let a = 1\n\nlet b = 2\nlet c = 3\n\nmetric m = mean(a)\n"

    def test_statements_on_one_line_are_split(self) -> None:
        """One statement per line."""
        assert format_source("let a = 1 let b = 2\n") == "let a = 1\nlet b = 2\n"

    def test_literals_keep_their_spelling(self) -> None:
        """Numbers and percentages keep what the author wrote; texts are double-quoted."""
        text = "let a = [1.50, 1e3, 30%, 'it\\'s', \"tab\\tx\"]\n"
        assert format_source(text) == 'let a = [1.50, 1e3, 30%, "it\'s", "tab\\tx"]\n'

    def test_every_form(self) -> None:
        """Tables, review, examples and named outcomes in their canonical form."""
        text = (
            'spec "t"\ncase { intent: text  ref: text? }\n'
            'table t (nfkc, casefold, remove: ",.") { "A", "a" -> "x" }\n'
            'check p = judge(criteria: "x")\n'
            'outcome level { good if p >= 0.8 bad otherwise }\n'
            "review (seed: 7) { sample 5% where not p priority 100 - p.value }\n"
            'example "e" { case {intent: "x"} user "hi" assistant "hello" {latency_ms: 800} '
            "given p = 8 given p.passed = true expect good }\n"
        )
        assert format_source(text) == (
            'spec "t"\n'
            "\n"
            "case {\n  intent: text\n  ref: text?\n}\n"
            "\n"
            'table t (nfkc, casefold, remove: ",.") {\n  "A", "a" -> "x"\n}\n'
            "\n"
            'check p = judge(criteria: "x")\n'
            "\n"
            "outcome level {\n  good if p >= 0.8\n  bad otherwise\n}\n"
            "\n"
            "review (seed: 7) {\n  sample 5% where not p priority 100 - p.value\n}\n"
            "\n"
            'example "e" {\n  case {intent: "x"}\n  user "hi"\n'
            '  assistant "hello" {latency_ms: 800}\n  given p = 8\n  given p.passed = true\n'
            "  expect good\n}\n"
        )

    def test_parentheses_are_kept(self) -> None:
        """Groups stay as written (they are part of the AST)."""
        assert format_source("let a = (1 + 2) * 3\n") == "let a = (1 + 2) * 3\n"

    def test_empty_spec(self) -> None:
        """Nothing formats to nothing."""
        assert format_source("") == ""
        assert format_source("\n\n") == ""


class TestComments:
    def test_trailing_and_own_line(self) -> None:
        """Trailing comments stay on their line, own-line ones before the next line."""
        text = "# header\nlet a = 1   # one\n  # about b\nlet b = 2\n# end\n"
        assert format_source(text) == "# header\nlet a = 1  # one\n# about b\nlet b = 2\n# end\n"

    def test_comments_inside_blocks(self) -> None:
        """Comments inside a block are indented with it; before `}` they stay inside."""
        text = "outcome {\n# first\n  a if x  # why\n        b otherwise\n   # last\n}\n"
        assert format_source(text) == (
            "outcome {\n  # first\n  a if x  # why\n  b otherwise\n  # last\n}\n")

    def test_comment_inside_an_expression(self) -> None:
        """A comment in the middle of a joined expression moves to its end."""
        text = "let a = 1 +  # why\n  2\n"
        assert format_source(text) == "let a = 1 + 2  # why\n"

    def test_two_comments_for_one_line(self) -> None:
        """A second trailing comment goes on its own line after the first."""
        text = "let a = 1 +  # one\n  2  # two\n"
        assert format_source(text) == "let a = 1 + 2  # one\n# two\n"

    def test_comments_in_maps(self) -> None:
        """Comments between map entries stay between them."""
        text = "let m = {\n  # lead\n  a: 1,  # one\n  b: 2,\n}\n"
        assert format_source(text) == text

    def test_only_comments(self) -> None:
        """A file of comments is kept as is."""
        assert format_source("# a\n\n# b\n") == "# a\n\n# b\n"

    def test_hash_inside_text_is_not_a_comment(self) -> None:
        """`#` inside quotes is text."""
        assert format_source('let a = "#1"  # real\n') == 'let a = "#1"  # real\n'


class TestApi:
    def test_syntax_error_raises(self) -> None:
        """Text that does not parse cannot be formatted."""
        with pytest.raises(SpecError) as info:
            format_source("let a = ")
        assert info.value.diagnostics[0].code == "E012"

    def test_format_module(self) -> None:
        """`format_module` works on a parsed module."""
        module = parse("let  a=1\n").module
        assert module is not None
        assert format_module(module) == "let a = 1\n"

    @pytest.mark.parametrize("text", ["", "a", 'say "hi"\\', "\n\t\r", "\x00\x1f", "中文"])
    def test_quote_round_trips(self, text: str) -> None:
        """`quote` gives a literal that parses back to the same text."""
        let = parse(f"let a = {quote(text)}\n").module
        assert let is not None and let.statements[0].value.value == text  # type: ignore[union-attr]
