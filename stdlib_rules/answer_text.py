"""Answers as token sequences: SQuAD's normalization, and Chinese read by character.

`exact` and `f1` compare a reply with an expected answer after the
normalization reading-comprehension benchmarks use (SQuAD's): lower case,
punctuation removed, the articles `a`, `an`, `the` dropped, white space
folded. Two refinements keep numbers whole: a token that is a number once
the punctuation at its edges is gone keeps its decimal point (`(3.14)` is
`3.14`, not `314`), and numbers compare by value (`3,000` is `3000.0`).
Chinese, Japanese and Korean text has no spaces between words, so each of
its characters is a token of its own (as CMRC and MLQA score Chinese).

Each white-space-separated word is read once and remembered with its tokens
(`KNOWN_WORDS`): replies differ, their words recur.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Iterable

ARTICLES = frozenset({"a", "an", "the"})
_ASCII_PUNCT = frozenset(string.punctuation)
_ASCII_EDGES = string.punctuation
_NUMBER_STARTS = frozenset("0123456789-+.")
_DIGIT = re.compile(r"\d")
"""A decimal digit: `float` reads no number from a text without one."""


def tokens(text: str, stop_words: Iterable[str] = ()) -> list[str]:
    """The normalized tokens of `text`, in order.

    >>> tokens("The answer is $1,000.")
    ['answer', 'is', '1000.0']
    >>> tokens("北京大学")
    ['北', '京', '大', '学']
    """
    return without(raw_tokens(text), stop_set(stop_words))


def stop_set(stop_words: Iterable[str]) -> frozenset[str]:
    """The tokens of `stop_words`, as `without` leaves them out (made once per check)."""
    return frozenset(t for w in stop_words for t in raw_tokens(w))


def without(found: list[str], stop: frozenset[str]) -> list[str]:
    """`found` without the tokens in `stop`."""
    return [t for t in found if t not in stop] if stop else found


def normalized(text: str) -> str:
    """`text` as its tokens joined by single spaces; idempotent."""
    return " ".join(raw_tokens(text))


def raw_tokens(text: str) -> list[str]:
    """The normalized tokens of `text` with no stop words left out."""
    out: list[str] = []
    known = _KNOWN
    for word in text.casefold().split():
        found = known.get(word)
        if found is None:
            found = _word_tokens(word)
            if len(word) <= KNOWN_LENGTH:
                if len(known) >= KNOWN_WORDS:
                    known.clear()
                known[word] = found
        out += found
    return out


KNOWN_WORDS = 1 << 14
"""Most words `raw_tokens` remembers with their tokens; then it starts again."""
KNOWN_LENGTH = 16
"""Longest word remembered. English replies repeat their words (87-93% of the words of
MultiWOZ's, SGD's and FED's replies were met before in the same set), so a word is read
once; Chinese puts no spaces between words, so what white space separates there is a
clause, rarely met twice and seldom this short."""
_KNOWN: dict[str, tuple[str, ...]] = {}


def _word_tokens(word: str) -> tuple[str, ...]:
    """The tokens of one casefolded word (a run of characters without white space)."""
    core = word.strip(_ASCII_EDGES)
    if core.isascii() and core.isalpha():
        return () if core in ARTICLES else (core,)
    if _DIGIT.search(word) is not None:
        number = _number(_strip_edges(word).replace(",", ""))
        if number is not None:
            return (number,)
    out: list[str] = []
    for part in word.split("-"):
        if part.isascii():
            token = _token(part)
            if token and token not in ARTICLES:
                out.append(token)
            continue
        if _DIGIT.search(part) is None:
            # No number to keep whole: the punctuation outside CJK characters goes first,
            # which leaves the same runs but those that were punctuation only.
            for cjk, other in _CJK_RUNS.findall(part.translate(_PUNCT_BUT_CJK_GONE)):
                if cjk:
                    out.extend(cjk)
                elif other not in ARTICLES:
                    out.append(other)
            continue
        for cjk, other in _CJK_RUNS.findall(part):
            if cjk:
                out.extend(cjk)
                continue
            token = _token(other)
            if token and token not in ARTICLES:
                out.append(token)
    return tuple(out)


def _token(word: str) -> str:
    """One word without punctuation; a number keeps its value (`3,000.` is `3000.0`)."""
    if _DIGIT.search(word) is None:
        # No decimal digit: no number can be read, so the word is its letters.
        return word.translate(_PUNCT_GONE)
    if len(word) == 1 and not word.isdigit():
        return "" if _is_punct(word) else word
    number = _number(_strip_edges(word).replace(",", ""))
    if number is not None:
        return number
    bare = word.translate(_PUNCT_GONE)
    number = _number(bare)
    return number if number is not None else bare


def _number(text: str) -> str | None:
    if not text or text[0] not in _NUMBER_STARTS or _DIGIT.search(text) is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return repr(value) if value == value and abs(value) != float("inf") else None


def _strip_edges(word: str) -> str:
    """`word` without the punctuation at its edges, but for a sign before a digit (`-5`)."""
    if word.isascii():
        start = len(word) - len(word.lstrip(_ASCII_EDGES))
        end = max(len(word.rstrip(_ASCII_EDGES)), start)
    else:
        start, end = 0, len(word)
        while start < end and _is_punct(word[start]):
            start += 1
        while end > start and _is_punct(word[end - 1]):
            end -= 1
    if start and word[start - 1] in "-+" and word[start:start + 1].isdigit():
        start -= 1
    return word[start:end]


def _is_punct(char: str) -> bool:
    return char in _ASCII_PUNCT or unicodedata.category(char).startswith("P")


_CJK = "\u4e00-\u9fff\u3400-\u4dbf\u3040-\u30ff\uac00-\ud7af\uf900-\ufaff"
_CJK_RUNS = re.compile(f"([{_CJK}]+)|([^{_CJK}]+)")
"""Runs of CJK characters (each character a token) and runs of other characters (one token)."""
_CJK_CHAR = re.compile(f"[{_CJK}]")


class _Punctuation(dict[int, int | None]):
    """A `str.translate` table that deletes punctuation (`_is_punct`) and keeps every other
    character, filled in as characters are met; with `cjk` false it keeps the punctuation
    among the CJK characters too (`・`, a token of its own there)."""

    def __init__(self, cjk: bool) -> None:
        super().__init__((code, None if chr(code) in _ASCII_PUNCT else code)
                         for code in range(128))
        self.cjk = cjk

    def __missing__(self, code: int) -> int | None:
        char = chr(code)
        gone = _is_punct(char) and (self.cjk or _CJK_CHAR.match(char) is None)
        kept = None if gone else code
        if len(self) < _PUNCTUATION_KEPT:
            self[code] = kept
        return kept


_PUNCTUATION_KEPT = 1 << 16
"""Characters a table remembers; rarer ones are looked up each time they are met."""
_PUNCT_GONE = _Punctuation(cjk=True)
_PUNCT_BUT_CJK_GONE = _Punctuation(cjk=False)
