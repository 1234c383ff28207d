"""The statements that parse when the whole text does not (`evaldsl.syntax.recovery`)."""

from __future__ import annotations

from evaldsl.syntax import nodes as n
from evaldsl.syntax.parser import parse
from evaldsl.syntax.recovery import recover

WHOLE = 'spec "s"\n\nlet a = 1\n\nmetric m = rate(a > 0)\n'


def _names(module: n.Module) -> list[str]:
    return [getattr(s, "name", type(s).__name__) for s in module.statements]


class TestRecover:
    def test_a_broken_statement_in_the_middle_is_set_aside(self) -> None:
        text = WHOLE.replace("let a = 1\n", "let a = 1\ncheck b = judge(criteria: \"x\",\n")
        found = recover(text)
        assert found is not None and _names(found.module) == ["SpecHeader", "a", "m"]
        start = text.index("check b")
        assert found.blanked == ((start, text.index("\nmetric") + 1),)

    def test_spans_stay_where_they_are_in_the_text(self) -> None:
        text = 'let x = (\n\nlet a = 1\n'
        found = recover(text)
        assert found is not None
        [let] = found.module.statements
        assert (let.span.line, let.span.col) == (3, 1)
        assert len(found.text) == len(text) and found.text.count("\n") == text.count("\n")

    def test_several_broken_statements(self) -> None:
        text = "let a = \nlet b = 2\nmetric = \nlet c = b\noutcome {\n  x if\n"
        found = recover(text)
        assert found is not None and _names(found.module) == ["b", "c"]
        assert len(found.blanked) == 3

    def test_a_statement_indented_as_a_block_item_does_not_end_the_broken_one(self) -> None:
        text = 'example "e" {\n  case {x: }\n}\nlet a = 1\n'
        found = recover(text)
        assert found is not None and _names(found.module) == ["a"]

    def test_the_same_module_as_the_parser_for_what_parses(self) -> None:
        found = recover(WHOLE)
        assert found is not None and found.module == parse(WHOLE).module
        assert found.blanked == ()

    def test_nothing_parses_but_the_module_is_empty(self) -> None:
        found = recover("check = (\n")
        assert found is not None and found.module.statements == ()
