"""The checker's public contract: `check_module`, `check_source`, `RULES`."""

from __future__ import annotations

import inspect

from evaldsl import checker
from evaldsl.checker import RULES, check_module, check_source
from evaldsl.codes import CODES
from evaldsl.diagnostics import sort_key
from evaldsl.syntax.parser import parse
from tests.checker.helpers import BASE, diagnose, registry


class TestCheckSource:
    def test_valid_spec_has_no_diagnostics(self) -> None:
        """The base spec is clean."""
        assert diagnose(BASE) == []

    def test_syntax_errors_are_returned_alone(self) -> None:
        """A spec that does not parse yields its syntax diagnostics and no module."""
        result, found = check_source("check x = ", "t.eval", registry())
        assert result.module is None
        assert [d.code for d in found] == ["E012"]

    def test_bytes_are_accepted(self) -> None:
        """Raw bytes are decoded as UTF-8 like files."""
        assert check_source(BASE.encode(), "t.eval", registry())[1] == []

    def test_diagnostics_are_sorted(self) -> None:
        """Diagnostics come sorted by file, line, column and code."""
        found = diagnose("let a = zz\nlet b = yy\nmetric m = rate(a)\n")
        assert found == sorted(found, key=sort_key)
        assert [d.span.line for d in found] == sorted(d.span.line for d in found)

    def test_default_registry_is_used(self) -> None:
        """Without a registry the standard library is checked against."""
        module = parse("check x = keyword(all: [\"hi\"])\n").module
        assert module is not None
        assert check_module(module, parse("").source) == []


class TestRules:
    def test_rules_are_functions_of_the_context(self) -> None:
        """Every rule takes one argument and lives in a family module of the checker."""
        for rule in RULES:
            assert len(inspect.signature(rule).parameters) == 1
            assert rule.__module__.startswith("evaldsl.checker.")

    def test_rules_are_unique(self) -> None:
        """No rule is registered twice."""
        assert len(set(RULES)) == len(RULES)

    def test_codes_come_from_the_catalogue(self) -> None:
        """Every code the checker source emits is in `CODES`."""
        import re
        from pathlib import Path

        folder = Path(checker.__file__).parent
        used = set()
        for path in folder.glob("*.py"):
            used |= set(re.findall(r'"([EW]\d{3})"', path.read_text("utf-8")))
        assert used and used <= set(CODES)

    def test_every_code_is_documented(self) -> None:
        """docs/diagnostics.md has a section with an example and a fix for every code."""
        from pathlib import Path

        docs = Path(__file__).resolve().parents[2] / "docs" / "diagnostics.md"
        text = docs.read_text("utf-8")
        for code, meaning in CODES.items():
            assert f"### {code}: {meaning}" in text, code

    def test_public_names(self) -> None:
        """`__all__` lists the sorted public API."""
        assert checker.__all__ == sorted(checker.__all__)
        assert {"check_module", "check_source", "infer_type", "RULES"} <= set(checker.__all__)
