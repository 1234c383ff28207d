"""Answers as token sequences: SQuAD's normalization, and Chinese read by character.

`exact` and `f1` compare a reply with an expected answer after the
normalization reading-comprehension benchmarks use (SQuAD's): lower case,
punctuation removed, the articles `a`, `an`, `the` dropped, white space
folded. Two refinements keep numbers whole: a token that is a number once
the punctuation at its edges is gone keeps its decimal point (`(3.14)` is
`3.14`, not `314`), and numbers compare by value (`3,000` is `3000.0`).
Chinese, Japanese and Korean text has no spaces between words, so each of
its characters is a token of its own (as CMRC and MLQA score Chinese).
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


def tokens(text: str, stop_words: Iterable[str] = ()) -> list[str]:
    """The normalized tokens of `text`, in order.

    >>> tokens("The answer is $1,000.")
    ['answer', 'is', '1000.0']
    >>> tokens("北京大学")
    ['北', '京', '大', '学']
    """
    stop = frozenset(t for w in stop_words for t in _raw_tokens(w))
    return [t for t in _raw_tokens(text) if t not in stop]


def normalized(text: str) -> str:
    """`text` as its tokens joined by single spaces; idempotent."""
    return " ".join(tokens(text))


def _raw_tokens(text: str) -> list[str]:
    out: list[str] = []
    for word in text.casefold().split():
        core = word.strip(_ASCII_EDGES)
        if core.isascii() and core.isalpha():
            if core not in ARTICLES:
                out.append(core)
            continue
        number = _number(_strip_edges(word).replace(",", ""))
        if number is not None:
            out.append(number)
            continue
        for part in word.split("-"):
            for piece in _split_cjk(part) if not part.isascii() else (part,):
                token = piece if _CJK_CHAR.fullmatch(piece) else _token(piece)
                if token and token not in ARTICLES:
                    out.append(token)
    return out


def _token(word: str) -> str:
    """One word without punctuation; a number keeps its value (`3,000.` is `3000.0`)."""
    if len(word) == 1 and not word.isdigit():
        return "" if _is_punct(word) else word
    number = _number(_strip_edges(word).replace(",", ""))
    if number is not None:
        return number
    bare = "".join(c for c in word if not _is_punct(c))
    number = _number(bare)
    return number if number is not None else bare


def _number(text: str) -> str | None:
    if not text or text[0] not in _NUMBER_STARTS or not any(c.isdigit() for c in text):
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return repr(value) if value == value and abs(value) != float("inf") else None


def _strip_edges(word: str) -> str:
    start, end = 0, len(word)
    while start < end and _is_punct(word[start]) and not (
            word[start] in "-+" and word[start + 1:start + 2].isdigit()):
        start += 1
    while end > start and _is_punct(word[end - 1]):
        end -= 1
    return word[start:end]


def _is_punct(char: str) -> bool:
    return char in _ASCII_PUNCT or unicodedata.category(char).startswith("P")


_CJK = "\u4e00-\u9fff\u3400-\u4dbf\u3040-\u30ff\uac00-\ud7af\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{_CJK}]")
_CJK_PIECES = re.compile(f"[{_CJK}]|[^{_CJK}]+")


def _split_cjk(token: str) -> list[str]:
    """Each CJK character alone; runs of other characters stay one token."""
    return _CJK_PIECES.findall(token)
