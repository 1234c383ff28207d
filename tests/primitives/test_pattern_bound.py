"""Patterns searched without the clock: only those whose backtracking is bounded, on texts
short enough that the bound ends well within the time limit."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.primitives import pattern_bound
from evaldsl.primitives.pattern_bound import STEPS_PER_SECOND, paths, steps, unclocked_length
from evaldsl.primitives.timed_match import timed_finditer, timed_search

CATASTROPHIC = [r"^(a+)+$", r"(a|aa)+$", r"^(\w+\s?)*$", r"(a*)*b", r"(x+x+)+y", r"(?:a|a)*c",
                r"(ab?)+c"]
"""Quantifiers over quantifiers or alternations: exponential on the right text (the
`regex` module prunes most of these; `(a|aa)+$` it does not)."""

OUTSIDE = [r"(a)\1", r"(?P<n>a)(?P=n)", r"(?=a)b", r"(?<=a)b", r"(?<!a)b", r"(?i)a",
           r"(?:ab){e<=1}", r"\p{L}+", r"a++", r"(?>a+)b", r"[[:alpha:]]", r"[[a]--[b]]", r"{",
           r"a{", r"a**", r"a{2}{3}", r"(a", r"a)", r"()*", r"\b+", r"^*", r"(?#c)a", r"\K",
           r"\x4", "a\\"]
"""Syntax the bound does not read (back-references, lookarounds, inline flags, fuzzy
matching, possessive and atomic forms, nested sets) and malformed text."""


@pytest.mark.parametrize("pattern", CATASTROPHIC + OUTSIDE)
def test_patterns_outside_the_simple_part_have_no_bound(pattern: str) -> None:
    assert paths(pattern) is None
    assert unclocked_length(pattern, 0, 1.0) == -1


@pytest.mark.parametrize(("pattern", "expected"), [
    (r"SF\d{10}", (1,)),
    (r"a{2,5}", (4,)),
    (r"a?b?", (4,)),
    (r"\s*x", (0, 1)),
    (r"(code|验证码)[:：]\s*\d{6}", (0, 2)),
    (r"a*b+", (0, 0, 1)),
    (r"(?P<name>ab)+|c", (1, 1)),
    (r"(?:x|y)(?<v>ab)?", (4,)),
    (r"[^]a-z\]]+", (0, 1)),
    (r"\x41\u00e9*?", (0, 1)),
    ("", (1,)),
])
def test_paths_multiply_along_a_sequence_and_add_across_branches(
        pattern: str, expected: tuple[int, ...]) -> None:
    """Each bounded quantifier offers its counts, an unbounded one `n + 1`."""
    assert paths(pattern) == expected


def test_the_longest_unclocked_text_is_the_last_within_the_budget() -> None:
    pattern = r'"date":\s*"\d{4}-\d{2}-\d{2}"'
    found = paths(pattern)
    assert found is not None
    longest = unclocked_length(pattern, 0, 0.5)
    assert steps(found, len(pattern), longest) <= 0.5 * STEPS_PER_SECOND
    assert steps(found, len(pattern), longest + 1) > 0.5 * STEPS_PER_SECOND
    assert unclocked_length(pattern, 0, 2.0) > longest  # a longer limit, a longer text


def test_flags_that_change_what_a_character_matches_have_no_bound() -> None:
    assert unclocked_length("a*", regex.VERBOSE, 1.0) == -1
    assert unclocked_length("a*", regex.FULLCASE | regex.IGNORECASE, 1.0) == -1
    assert unclocked_length("a*", regex.compile("a*", regex.IGNORECASE).flags, 1.0) > 0


def test_a_catastrophic_search_still_stops_at_its_limit() -> None:
    with pytest.raises(TimeoutError):
        timed_search(regex.compile(r"(a|aa)+$"), "a" * 40 + "!", timeout=0.05)


def test_a_text_past_the_unclocked_length_is_searched_with_the_clock(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the bound's length the search gets its limit again (a limit of 0 s fails it)."""
    monkeypatch.setattr(pattern_bound, "STEPS_PER_SECOND", 10**12)
    pattern_bound.unclocked_length.cache_clear()
    try:
        compiled = regex.compile(r"(a|b)c*d")
        assert timed_search(compiled, "acccd" * 2, timeout=1.0) is not None
        long_text = "x" * (unclocked_length(compiled.pattern, compiled.flags, 1e-9) + 1)
        with pytest.raises(TimeoutError):
            timed_search(compiled, long_text, timeout=1e-9)
    finally:
        pattern_bound.unclocked_length.cache_clear()


SIMPLE_PIECES = st.sampled_from(["a", "b", ".", r"\d", "[ab]", "(?:ab)", "(a|b)", "^", "$"])
QUANTIFIERS = st.sampled_from(["", "", "*", "+", "?", "{2}", "{1,3}", "*?"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(SIMPLE_PIECES, QUANTIFIERS), max_size=6),
       st.text(alphabet="ab1 ", max_size=30))
def test_a_search_without_the_clock_finds_what_the_clocked_search_finds(
        pieces: list[tuple[str, str]], text: str) -> None:
    """Every match (first and all) is the same with and without the clock."""
    pattern = "".join(piece + quantifier for piece, quantifier in pieces)
    try:
        compiled = regex.compile(pattern)
    except regex.error:
        return
    first = timed_search(compiled, text)
    clocked = compiled.search(text, timeout=1.0)
    assert (first and first.span()) == (clocked and clocked.span())
    assert [m.span() for m in timed_finditer(compiled, text)] == \
        [m.span() for m in compiled.finditer(text, timeout=1.0)]
