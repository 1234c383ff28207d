"""The oracle of `edit_distance`: Levenshtein distance in pure Python, two ways.

`edit_distance` reads the distance from `rapidfuzz.distance.Levenshtein`
(C++). Its results are tested against these: `distance`, the bit-vector
algorithm (Myers 1999, Hyyrö 2001) the primitive used before, where a column
of the table is the bits of one integer, and `table_distance`, the textbook
table of len(a) * len(b) steps.
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
    start, end = 0, len(a)
    while start < end and a[start] == b[start]:  # a common prefix costs no edit
        start += 1
    shift = len(b) - len(a)
    while end > start and a[end - 1] == b[end - 1 + shift]:  # nor a common suffix
        end -= 1
    if start or end < len(a):
        a, b = a[start:end], b[start:end + shift]
    width = len(b)
    if not a:
        return width
    masks: dict[str, int] = {}
    for i, char in enumerate(b):
        masks[char] = masks.get(char, 0) | (1 << i)
    full = (1 << width) - 1
    plus, minus = full, 0
    for eq in [masks.get(char, 0) for char in a]:
        xv = eq | minus
        xh = (((eq & plus) + plus) ^ plus) | eq
        hp = minus | ~(xh | plus)
        hm = plus & xh
        hp = (hp << 1) | 1
        hm <<= 1
        plus = (hm | ~(xv | hp)) & full
        minus = hp & xv
    # `plus` and `minus` are the last column's vertical steps, from the top row's len(a)
    return len(a) + plus.bit_count() - minus.bit_count()


def table_distance(a: str, b: str) -> int:
    """The textbook dynamic programme, one row at a time."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[-1]
