"""Sentences, and the closing and courtesy formulas a check can leave out.

A check over a whole reply sees "The phone number is 01223 351880. Is there
anything else I can help with?" as one text, so a pattern for "asks the user a
question" fires on the courtesy formula, and "answers without a digit" misses
nothing. Sentence units let a check read what was said, sentence by sentence,
and the shipped lexicon (`lexicons/formulas.json`, Chinese and English) names the
formulas that say nothing of the task: "Is there anything else?", "No, that's
it", "不用了谢谢", "还有什么可以帮您". A sentence is a formula only when the whole of it
is one; a sentence with anything more in it is kept.
"""

from __future__ import annotations

import json
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Any

import regex

_END = regex.compile(r"(?<=[。！？!?；;…\n])|(?<=\.)(?=\s)")
"""Where a sentence ends: after 。！？!?；; or a line break; after a full stop followed by a
space (not the point of `3.5`; the spaced ` . ` of tokenized corpora too)."""
_CLAUSE = regex.compile(r"[,，;；、]|\s+and\s+", regex.IGNORECASE)
"""Where a clause of a sentence ends: a comma, a semicolon, a joining "and"."""
_NOISE = regex.compile(r"[\s\p{P}\p{S}]+")
"""Spaces, punctuation and symbols: left out before a sentence is compared with a formula."""


def sentences(text: str) -> list[str]:
    """The sentences of `text`, in order, stripped; empty pieces dropped."""
    return [piece.strip() for piece in _END.split(text) if piece.strip()]


def is_formula(sentence: str) -> bool:
    """Whether the whole sentence is a closing or courtesy formula of the lexicon."""
    key = normalized(sentence)
    if not key:
        return False
    formulas, acknowledgements = _formulas(), _acknowledgements()
    if formulas.fullmatch(key) is not None:
        return True
    clauses = [k for k in (normalized(c) for c in _CLAUSE.split(sentence)) if k]
    return (len(clauses) > 1
            and all(formulas.fullmatch(k) or acknowledgements.fullmatch(k) for k in clauses)
            and any(formulas.fullmatch(k) for k in clauses))


def content(text: str) -> list[str]:
    """The sentences of `text` that are not formulas: what it says of the task. A text of
    nothing but formulas and bare acknowledgements ("Okay. Have a great day.") says nothing."""
    kept = [s for s in sentences(text) if not is_formula(s)]
    if kept and len(kept) < len(sentences(text)) and all(
            _acknowledgements().fullmatch(normalized(s)) for s in kept):
        return []
    return kept


def without_formulas(text: str) -> str:
    """`text` with its formula sentences left out, the others joined by a space."""
    return " ".join(content(text))


def normalized(sentence: str) -> str:
    """Lower case, NFKC, with every space, apostrophe and punctuation mark removed: the
    form the lexicon's patterns are written against."""
    return str(_NOISE.sub("", unicodedata.normalize("NFKC", sentence).casefold()))


@lru_cache(maxsize=1)
def _lexicon() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(resources.files("evaldsl.stdlib").joinpath(
        "lexicons", "formulas.json").read_text(encoding="utf-8"))
    return data


@lru_cache(maxsize=1)
def _formulas() -> regex.Pattern[str]:
    data = _lexicon()
    return _alternatives({language: data[language] for language in ("zh", "en")})


@lru_cache(maxsize=1)
def _acknowledgements() -> regex.Pattern[str]:
    """The bare acknowledgements ("okay", "好的") a formula clause may stand beside."""
    return _alternatives(_lexicon()["acknowledgements"])


def _alternatives(by_language: dict[str, list[str]]) -> regex.Pattern[str]:
    """One pattern of every entry; a language's entries may end in its modal particles
    (`particles`: "不客气哦" is "不客气"), which say nothing more."""
    particles = _lexicon().get("particles", {})
    patterns = [f"(?:{p}){particles.get(language, '')}"
                for language in ("zh", "en") for p in by_language[language]]
    return regex.compile("|".join(f"(?:{p})" for p in patterns))
