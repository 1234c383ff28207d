"""Normalization tables: how a spec says which spellings mean the same thing.

`table regions (nfkc, casefold, strip) { "East China", "华东" -> "east" }`
first applies the options to both sides, then maps whole values. Options:

- `nfkc`: Unicode NFKC (full-width digits and letters to ASCII, ...)
- `casefold`: case-insensitive comparison
- `strip`: trim white space at both ends
- `collapse`: fold runs of white space into one space
- `nospace`: remove all white space
- `punct`: remove punctuation (Unicode categories P*)
- `remove: ",./-_*^"`: remove exactly these characters (BFCL's checker)
- `clock`: a value that is wholly a time of day becomes `HH:MM` (`4:30 pm`,
  `half past 4 in the evening`, `下午四点半` -> `16:30`; see `evaldsl.primitives.clock`)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

from evaldsl.primitives.clock import normalize_clock

FLAG_OPTIONS = ("nfkc", "casefold", "strip", "collapse", "nospace", "punct", "clock")
VALUE_OPTIONS = ("remove",)
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class NormalizationTable:
    name: str
    flags: frozenset[str] = frozenset()
    remove: str = ""
    mapping: Mapping[str, str] = field(default_factory=dict)
    """Normalized source -> normalized target."""

    @classmethod
    def build(cls, name: str, flags: frozenset[str], remove: str,
              entries: Mapping[str, str]) -> NormalizationTable:
        table = cls(name, flags, remove, {})
        mapping = {table.clean(src): table.clean(dst) for src, dst in entries.items()}
        return cls(name, flags, remove, mapping)

    def clean(self, text: str) -> str:
        """Apply the options only (no mapping)."""
        flags = self.flags
        if "nfkc" in flags:
            text = unicodedata.normalize("NFKC", text)
        if "casefold" in flags:
            text = text.casefold()
        if "clock" in flags:
            text = normalize_clock(text)
        if self.remove:
            text = text.translate({ord(c): None for c in self.remove})
        if "punct" in flags:
            text = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
        if "nospace" in flags:
            text = _SPACES.sub("", text)
        elif "collapse" in flags:
            text = _SPACES.sub(" ", text)
        if "strip" in flags:
            text = text.strip()
        return text

    def normalize(self, text: str) -> str:
        """Options, then the whole-value mapping; idempotent when targets map to themselves."""
        cleaned = self.clean(text)
        return self.mapping.get(cleaned, cleaned)

    def same(self, a: str, b: str) -> bool:
        return self.normalize(a) == self.normalize(b)


IDENTITY = NormalizationTable("identity")
