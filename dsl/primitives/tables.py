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
- `replace: {"'": "\""}`: replace texts by others, all at once, the longest first (BFCL
  turns `'` into `"`)
- `tolerance: 0.01` (absolute), `tolerance: 0.1%` (relative) or both as a list: numbers
  that close are equal where numbers are compared (`args_match`)
- `units: "km"` or `units: ["km", "kg"]`: a value that is wholly a quantity (`5000 m`,
  `30分钟`) reads as a number in the table's unit of its dimension (see
  `evaldsl.primitives.units`; pint is imported only then)
- `clock`: a value that is wholly a time of day becomes `HH:MM` (`4:30 pm`,
  `half past 4 in the evening`, `下午四点半` -> `16:30`; see `evaldsl.primitives.clock`)

The text options apply in this order: nfkc, casefold, clock, replace, remove, punct,
nospace or collapse, strip; then the whole-value mapping.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from evaldsl.primitives.units import RELATIVE_ROUNDING, magnitude

FLAG_OPTIONS = ("nfkc", "casefold", "strip", "collapse", "nospace", "punct", "clock")
VALUE_OPTIONS = ("remove", "replace", "tolerance", "units")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Tolerance:
    """How far apart two numbers may be and still be equal; either bound suffices."""

    absolute: float = 0.0
    relative: float = 0.0
    """A share of the larger magnitude, as `math.isclose` reads `rel_tol`."""


@dataclass(frozen=True)
class NormalizationTable:
    name: str
    flags: frozenset[str] = frozenset()
    remove: str = ""
    mapping: Mapping[str, str] = field(default_factory=dict)
    """Normalized source -> normalized target."""
    replace: Mapping[str, str] = field(default_factory=dict)
    """Text -> its replacement, applied in one pass."""
    tolerance: Tolerance = Tolerance()
    units: tuple[str, ...] = ()
    """The units quantities are converted to, one per dimension."""

    @classmethod
    def build(cls, name: str, flags: frozenset[str], remove: str,
              entries: Mapping[str, str], **settings: Any) -> NormalizationTable:
        """The table with its entries cleaned by its own options; `settings` are the
        value options other than `remove` (`replace`, `tolerance`, `units`)."""
        table = cls(name, flags, remove, {}, **settings)
        mapping = {table.clean(src): table.clean(dst) for src, dst in entries.items()}
        return cls(name, flags, remove, mapping, **settings)

    def clean(self, text: str) -> str:
        """Apply the options only (no mapping)."""
        flags = self.flags
        if "nfkc" in flags:
            text = unicodedata.normalize("NFKC", text)
        if "casefold" in flags:
            text = text.casefold()
        if "clock" in flags:
            text = _clock(text)
        if self.replace:
            text = self._replacer.sub(lambda m: self.replace[m.group(0)], text)
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

    def quantity(self, text: str) -> float | None:
        """`text` as a number in the table's unit when it is wholly a quantity (`units` only)."""
        return magnitude(text, self.units) if self.units else None

    def close(self, a: float, b: float) -> bool:
        """Whether two numbers are equal within the table's tolerance.

        >>> NormalizationTable("t", tolerance=Tolerance(absolute=0.01)).close(4.18, 4.184)
        True
        """
        relative = self.tolerance.relative
        if self.units:
            relative = max(relative, RELATIVE_ROUNDING)
        return a == b or math.isclose(a, b, rel_tol=relative, abs_tol=self.tolerance.absolute)

    @cached_property
    def _replacer(self) -> re.Pattern[str]:
        """One pattern for every text `replace` names, the longest first."""
        keys = sorted(self.replace, key=len, reverse=True)
        return re.compile("|".join(re.escape(k) for k in keys))



def _clock(text: str) -> str:
    """`normalize_clock`, imported by the first table with the `clock` option: its patterns
    cost every process that reads a table otherwise."""
    from evaldsl.primitives.clock import normalize_clock

    return normalize_clock(text)


IDENTITY = NormalizationTable("identity")
