"""The most steps a search of a pattern can take, for patterns simple enough to say.

A search under a time limit (`timed_match`) reads the process's CPU clock when it
starts and again as it goes: two system calls, which in a run cost more than the
search of a short reply itself (about 6 µs against 4 on the peer workload). A
search that cannot take long needs no clock. This module says when that is.

It reads a small, safe part of the pattern language and refuses the rest: literals,
escapes of classes and characters, `.`, `^`, `$`, sets without nested sets, groups
(capturing, `(?:`, named) and alternation, each quantifier (`*`, `+`, `?`, `{m,n}`,
lazy or greedy) applied to a single character, a set or a group holding no
quantifier and no alternation. Anything else (a quantifier inside a quantified
group, back-references, lookarounds, inline flags, `\\p{..}`, fuzzy `{e<=1}`,
possessive quantifiers, a `{` that is no quantifier) is refused: no bound.

For the part it reads, a backtracking matcher (the `regex` module is one, and prunes
more) tries from each of the `n + 1` start positions at most one path per choice:
a quantifier `{m,n}` offers `n - m + 1` counts, an unbounded one at most `n + 1`
(each repetition takes a character), an alternation the sum of its branches, a
sequence the product. Its search tree from one start has at most one node per path
and pattern position, and one per repetition, which a path's prefix shares: at most
`2 * paths(n) * (len(pattern) + 1)` nodes, `paths` a polynomial in `n + 1`. A node
taken as 20 ns (`STEPS_PER_SECOND`) gives the longest text a search may run on without
the clock: `unclocked_length`. Searches built to be slow (`[a-z]+[a-z]+[0-9]` on
`abab...`, 2.6 s for 1,000 characters) took at most 0.08 ns per node of this bound, so
one run without the clock ends hundreds of times inside its limit.
"""

from __future__ import annotations

from functools import lru_cache

import regex

Polynomial = tuple[int, ...]
"""Coefficients by degree in `n + 1`, `n` the length of the text."""

STEPS_PER_SECOND = 50_000_000
"""Nodes of the bound a search is taken to walk per second of its time limit."""

_ALLOWED_FLAGS = regex.IGNORECASE | regex.UNICODE | regex.ASCII | regex.VERSION0
"""Flags that keep every character matching one character (simple case folding)."""
_ZERO_WIDTH_ESCAPES = frozenset("bBAZ")
_CLASS_ESCAPES = frozenset("dDwWsSntrfva")
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_LONGEST_CONSIDERED = 1 << 24


class _Refused(Exception):
    """The pattern leaves the part of the language this module reads."""


def paths(pattern: str) -> Polynomial | None:
    """The paths a search may try from one start position, or None when not bounded here."""
    reader = _Reader(pattern)
    try:
        part = reader.alternation()
        if reader.at != len(pattern):
            raise _Refused  # a `)` without its `(`
    except _Refused:
        return None
    return part.paths


@lru_cache(maxsize=4096)
def unclocked_length(pattern: str, flags: int, timeout: float) -> int:
    """The longest text a search of `pattern` (compiled with `flags`) may run on without
    its clock and still end within `timeout` seconds; -1 when there is no bound."""
    if flags & ~_ALLOWED_FLAGS:
        return -1
    found = paths(pattern)
    if found is None:
        return -1
    budget = timeout * STEPS_PER_SECOND
    low, high = -1, _LONGEST_CONSIDERED
    while low < high:  # the longest n whose steps fit: steps grow with n
        n = (low + high + 1) // 2
        if steps(found, len(pattern), n) <= budget:
            low = n
        else:
            high = n - 1
    return low


def steps(found: Polynomial, pattern_length: int, n: int) -> int:
    """The most nodes the searches from every start of a text of `n` characters walk."""
    return 2 * (n + 1) * _value(found, n + 1) * (pattern_length + 1)


def _value(poly: Polynomial, x: int) -> int:
    return sum(coefficient * x**degree for degree, coefficient in enumerate(poly))


def _add(a: Polynomial, b: Polynomial) -> Polynomial:
    longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
    return tuple(c + (shorter[i] if i < len(shorter) else 0) for i, c in enumerate(longer))


def _product(a: Polynomial, b: Polynomial) -> Polynomial:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return tuple(out)


class _Part:
    """What a piece of the pattern contributes: its paths, and whether it is a single
    path of a fixed width (no quantifier, no alternation inside), which a quantifier
    may then repeat."""

    __slots__ = ("paths", "width")

    def __init__(self, paths: Polynomial, width: int | None) -> None:
        self.paths = paths
        self.width = width
        """The characters it matches when it is a single path; None otherwise."""


_ONE = (1,)


class _Reader:
    """A recursive descent over the pattern's text; `_Refused` for anything outside."""

    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.at = 0

    def peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        if not char:
            raise _Refused
        self.at += 1
        return char

    def alternation(self) -> _Part:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.at += 1
            branches.append(self.sequence())
        if len(branches) == 1:
            return branches[0]
        total: Polynomial = ()
        for branch in branches:
            total = _add(total, branch.paths)
        return _Part(total, None)

    def sequence(self) -> _Part:
        total: Polynomial = _ONE
        width: int | None = 0
        while self.peek() not in ("", "|", ")"):
            part = self.quantified(self.atom())
            total = _product(total, part.paths)
            width = None if width is None or part.width is None else width + part.width
        return _Part(total, width)

    def atom(self) -> _Part:
        char = self.take()
        if char == "(":
            return self.group()
        if char == "[":
            self.char_set()
            return _Part(_ONE, 1)
        if char == "\\":
            return _Part(_ONE, self.escape())
        if char in "^$":
            return _Part(_ONE, 0)
        if char in "*+?{":
            raise _Refused  # nothing to repeat, or a `{` that is no quantifier
        return _Part(_ONE, 1)

    def group(self) -> _Part:
        if self.peek() == "?":  # only `(?:` and named groups: `(?P<name>` and `(?<name>`
            self.at += 1
            if self.peek() == ":":
                self.at += 1
            else:
                if self.text.startswith("P<", self.at):
                    self.at += 1
                if self.peek() != "<" or self.text[self.at + 1:self.at + 2] in ("=", "!"):
                    raise _Refused  # lookarounds, inline flags, conditionals, comments
                end = self.text.find(">", self.at)
                if end < 0:
                    raise _Refused
                self.at = end + 1
        inner = self.alternation()
        if self.take() != ")":
            raise _Refused
        return inner

    def char_set(self) -> None:
        """A set up to its closing `]`; a `]` first (after a `^`) is a member."""
        if self.peek() == "^":
            self.at += 1
        if self.peek() == "]":
            self.at += 1
        while True:
            char = self.take()
            if char == "]":
                return
            if char == "[":
                raise _Refused  # a nested set, or a POSIX class
            if char == "\\":
                self.escape()

    def escape(self) -> int:
        """An escape's width: 0 for an anchor, else 1."""
        char = self.take()
        if char in _ZERO_WIDTH_ESCAPES:
            return 0
        if char in _CLASS_ESCAPES:
            return 1
        if char in _HEX_ESCAPES:
            digits = self.text[self.at:self.at + _HEX_ESCAPES[char]]
            if len(digits) != _HEX_ESCAPES[char] or any(d not in "0123456789abcdefABCDEF"
                                                        for d in digits):
                raise _Refused
            self.at += len(digits)
            return 1
        if char.isascii() and not char.isalnum():
            return 1  # an escaped punctuation mark: itself
        raise _Refused  # back-references, \p, \N, \X, \G, \K and the rest

    def quantified(self, part: _Part) -> _Part:
        bounds = self.quantifier()
        if bounds is None:
            return part
        if self.peek() == "?":
            self.at += 1  # lazy: the same counts, tried in the other order
        if self.peek() and self.peek() in "*+?{":
            raise _Refused  # possessive, or a quantifier of a quantifier
        if not part.width:
            raise _Refused  # a repeated alternation, quantifier or empty match
        low, high = bounds
        if high is None:
            return _Part(_product(part.paths, (0, 1)), None)
        return _Part(_product(part.paths, (high - low + 1,)), None)

    def quantifier(self) -> tuple[int, int | None] | None:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.at += 1
            return (0, None) if char == "*" else (1, None) if char == "+" else (0, 1)
        if char != "{":
            return None
        end = self.text.find("}", self.at)
        if end < 0:
            raise _Refused
        body = self.text[self.at + 1:end]
        low_text, comma, high_text = body.partition(",")
        if not (low_text.isdigit() or (comma and not low_text)) or \
                not (high_text.isdigit() or not high_text) or not (low_text or high_text):
            raise _Refused  # fuzzy constraints (`{e<=1}`) and `{` as a character
        if not low_text.isascii() or not high_text.isascii():
            raise _Refused
        self.at = end + 1
        low = int(low_text) if low_text else 0
        if not comma:
            return low, low
        high = int(high_text) if high_text else None
        if high is not None and high < low:
            raise _Refused
        return low, high
