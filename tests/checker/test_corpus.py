"""The spec corpus: every bad spec names the code and position of its first diagnostic.

Each file in tests/corpus/bad starts with `# expect: CODE LINE:COL`; the
checker (with the standard library) must report exactly that as the first
diagnostic. Every spec in tests/corpus/good must check clean, even with
`--strict`, and be formatted already.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evaldsl.checker import check_source
from evaldsl.codes import CODES
from evaldsl.syntax.formatter import format_source

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
BAD = sorted((CORPUS / "bad").glob("*.eval"))
GOOD = sorted((CORPUS / "good").glob("*.eval"))
EXPECT = re.compile(r"^# expect: ([EW]\d{3}) (\d+):(\d+)$")


def _expectation(path: Path) -> tuple[str, int, int]:
    first = path.read_text("utf-8").split("\n", 1)[0]
    match = EXPECT.match(first)
    assert match, f"{path.name}: the first line must be `# expect: CODE LINE:COL`"
    return match.group(1), int(match.group(2)), int(match.group(3))


class TestBadCorpus:
    def test_size(self) -> None:
        """At least 70 bad specs, at least 12 of them in Chinese."""
        chinese = [p for p in BAD if re.search(r"[\u4e00-\u9fff]", p.read_text("utf-8"))]
        assert len(BAD) >= 70
        assert len(chinese) >= 12

    @pytest.mark.parametrize("path", BAD, ids=[p.stem for p in BAD])
    def test_first_diagnostic(self, path: Path) -> None:
        """The first diagnostic has the expected code and position."""
        code, line, col = _expectation(path)
        _, found = check_source(path.read_bytes(), path.name)
        assert found, f"{path.name}: no diagnostic"
        first = found[0]
        assert (first.code, first.span.line, first.span.col) == (code, line, col), \
            f"{path.name}: {first.code} {first.span.line}:{first.span.col} {first.message}"

    def test_every_code_has_a_bad_spec(self) -> None:
        """Each code in the catalogue is shown by at least one bad spec."""
        shown = {_expectation(p)[0] for p in BAD}
        untestable = {"E001", "E002"}
        assert set(CODES) - untestable - shown == set()


class TestGoodCorpus:
    @pytest.mark.parametrize("path", GOOD, ids=[p.stem for p in GOOD])
    def test_clean(self, path: Path) -> None:
        """A good spec has no diagnostic at all."""
        _, found = check_source(path.read_bytes(), path.name)
        assert [f"{d.code} {d.span.line}:{d.span.col} {d.message}" for d in found] == []

    @pytest.mark.parametrize("path", GOOD, ids=[p.stem for p in GOOD])
    def test_formatted(self, path: Path) -> None:
        """A good spec is already in the canonical layout."""
        text = path.read_text("utf-8")
        assert format_source(text, path.name) == text
