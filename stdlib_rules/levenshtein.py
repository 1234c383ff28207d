"""Levenshtein distance by bit vectors (Myers 1999, Hyyrö 2001), in pure Python.

The textbook table costs len(a) * len(b) steps; here a column of the table
is the bits of one integer, so each character of the shorter text costs a
handful of integer operations whatever the other's length: two 2,000-character
replies take some tens of milliseconds, not seconds.
"""

from __future__ import annotations


def distance(a: str, b: str) -> int:
    """The fewest single-character insertions, deletions and substitutions from `a` to `b`.

    >>> distance("kitten", "sitting")
    3
    >>> distance("北京大学", "北京大楼")
    1
    """
    if len(a) > len(b):
        a, b = b, a
    width = len(b)
    if not a:
        return width
    masks: dict[str, int] = {}
    for i, char in enumerate(b):
        masks[char] = masks.get(char, 0) | (1 << i)
    full = (1 << width) - 1
    top = 1 << (width - 1)
    plus, minus, score = full, 0, width
    for char in a:
        eq = masks.get(char, 0)
        xv = eq | minus
        xh = (((eq & plus) + plus) ^ plus) | eq
        hp = minus | ~(xh | plus)
        hm = plus & xh
        if hp & top:
            score += 1
        elif hm & top:
            score -= 1
        hp = (hp << 1) | 1
        hm <<= 1
        plus = (hm | ~(xv | hp)) & full
        minus = hp & xv & full
    return score
