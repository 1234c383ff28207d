"""Every `did you mean` hint also carries its name as `Diagnostic.suggestion`, at a span that
covers exactly the misspelt word, so an editor can offer the replacement as a quick fix."""

from __future__ import annotations

import pytest

from evaldsl.syntax.source import Source
from tests.checker.helpers import BASE, of

CASE_BLOCK = "case {\n  intent: text\n}\n"

SUGGESTED = [
    ("unknown name", BASE.replace("success if intent and", "success if intnt and"),
     "E101", "intnt", "intent"),
    ("unknown table", BASE + 'table units {}\ncheck k = keyword(any: ["a"], table: unitz)\n',
     "E104", "unitz", "units"),
    ("unknown label", BASE + "metric m = rate(sucess)\n", "E105", "sucess", "success"),
    ("unknown primitive", BASE + 'check k = keywrd(any: ["a"])\n', "E106", "keywrd", "keyword"),
    ("unknown case field", CASE_BLOCK + BASE.replace("case.intent", "case.intnt"),
     "E103", "intnt", "intent"),
    ("unknown check field", BASE + "metric m = rate(intent.pased)\n", "E102", "pased",
     "passed"),
    ("unknown parameter", BASE + 'check k = keyword(anny: ["a"])\n', "E201", "anny", "any"),
    ("unknown scope", BASE + 'check k = keyword(scope: last_replie, any: ["a"])\n', "E210",
     "last_replie", "last_reply"),
    ("unknown example case field",
     CASE_BLOCK + BASE + 'example "e" {\n  case {intnt: "a"}\n  user "hi"\n  expect success\n}\n',
     "E103", "intnt", "intent"),
    ("unknown case type", "case {\n  intent: txt\n}\n" + BASE, "E111", "txt", "text"),
    ("unknown function", BASE + "metric m = mena(polite)\n", "E110", "mena", "mean"),
    ("unknown table flag",
     BASE + "table t (casfold) {}\n" + 'check k = keyword(any: ["a"], table: t)\n',
     "E208", "casfold", "casefold"),
    ("unknown role", BASE + 'example "e" {\n  usr "hi"\n  expect success\n}\n', "E501",
     "usr", "user"),
]


@pytest.mark.parametrize(("text", "code", "wrong", "right"),
                         [s[1:] for s in SUGGESTED], ids=[s[0] for s in SUGGESTED])
def test_a_close_name_is_a_structured_suggestion(text: str, code: str, wrong: str,
                                                 right: str) -> None:
    """The suggestion is the close name, and the span is the word it replaces."""
    found = of(text, code)
    assert [d.suggestion for d in found] == [right]
    span = found[0].span
    assert span.line == span.end_line
    line = Source(text).line_text(span.line)
    assert line[span.col - 1 : span.end_col - 1] == wrong


def test_nothing_close_suggests_nothing() -> None:
    """Without a close name there is nothing to replace the word with."""
    assert [d.suggestion for d in of(BASE + "metric m = rate(zzz)\n", "E101")] == [""]


def test_promoting_a_warning_keeps_its_suggestion() -> None:
    """`--strict` turns warnings into errors and must not drop their quick fix."""
    from evaldsl.diagnostics import Diagnostic, Severity
    from evaldsl.syntax.source import Span

    warning = Diagnostic("W101", "m", Span.point("t", 1, 1), "h", Severity.WARNING, "x")
    assert warning.as_error().suggestion == "x"


def test_a_misspelt_pin_suggests_the_check() -> None:
    """`given` names checks by their bare name, so the close check is the fix."""
    text = BASE + 'example "e" {\n  user "hi"\n  given polit = 8\n  expect success\n}\n'
    assert [d.suggestion for d in of(text, "E502")] == ["polite"]


def test_a_quoted_key_gets_no_replacement() -> None:
    """The span of `"intnt"` holds its quotes: a bare name put there would drop them."""
    text = (CASE_BLOCK + BASE
            + 'example "e" {\n  case {"intnt": "a"}\n  user "hi"\n  expect success\n}\n')
    found = of(text, "E103")
    assert [(d.hint, d.suggestion) for d in found] == [("did you mean `intent`?", "")]


def test_a_table_option_with_a_value_gets_no_replacement() -> None:
    """`remov: "x"` spans its value too: replacing the span would drop the value."""
    text = BASE + 'table t (remov: " ") {}\ncheck k = keyword(any: ["a"], table: t)\n'
    assert [d.suggestion for d in of(text, "E208")] == [""]
