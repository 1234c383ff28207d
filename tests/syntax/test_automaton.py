"""The generated parser tables: made from the grammar, current, and enough to parse valid specs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from evaldsl import grammar
from evaldsl.syntax import automaton, automaton_export, larkparse
from evaldsl.syntax.builder import Builder
from evaldsl.syntax.fastparse import load_tables

SPECS = Path(__file__).resolve().parents[2] / "specs"


class TestGenerated:
    def test_current(self) -> None:
        """automaton.py is what the exporter writes for today's grammar: regenerate it after
        editing grammar/evaldsl.lark (`python -m evaldsl.syntax.automaton_export`)."""
        expected = automaton_export.render(automaton_export.export(larkparse.lark()),
                                           grammar.sha256())
        assert automaton_export.GENERATED.read_text("utf-8") == expected

    def test_every_rule_has_its_builder_method(self) -> None:
        """The generated rules resolve against `Builder`: the fast path is available."""
        assert load_tables(automaton.AUTOMATON, Builder) is not None

    def test_lexer_holds_every_token_terminal(self) -> None:
        """Each terminal the parser shifts is a group of the lexer or embedded in one."""
        lexer = re.compile(automaton.AUTOMATON.lexer)
        embedded = {name for texts in automaton.AUTOMATON.embedded.values()
                    for names in texts.values() for name in names}
        shifted = {symbol for actions in automaton.AUTOMATON.states.values()
                   for symbol in actions if symbol == symbol.upper()}
        assert shifted - {"$END"} <= set(lexer.groupindex) | embedded

    def test_valid_spec_parses_without_lark(self) -> None:
        """A fresh process parses a valid spec without importing lark, which costs 0.15 s;
        a syntax error brings lark in for its worded diagnostic."""
        spec = next(iter(sorted(SPECS.glob("*.eval"))))
        code = (
            "import sys\nfrom evaldsl.syntax.parser import parse\n"
            f"assert parse(open({str(spec)!r}, encoding='utf-8').read()).diagnostics == []\n"
            "print('lark' in sys.modules)\n"
            "assert parse('let x = ').diagnostics\nprint('lark' in sys.modules)\n"
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True)
        assert done.stdout.split() == ["False", "True"]

    def test_an_edited_grammar_is_exported_afresh(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """When the grammar's digest differs from the generated one, the parser takes lark's
        tables at run time instead of stale ones, and parses the same."""
        from evaldsl.syntax import parser

        text = 'check a = keyword(any: ["hi"])  # greets\n'
        expected = repr(parser.parse(text).module)
        monkeypatch.setattr(automaton, "GRAMMAR_SHA256", "edited")
        parser._fast_tables.cache_clear()
        try:
            tables = parser._fast_tables()
            assert tables is not None and tables.states is not automaton.AUTOMATON.states
            assert repr(parser.parse(text).module) == expected
        finally:
            parser._fast_tables.cache_clear()
