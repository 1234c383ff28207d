"""Tool-call argument matching: expected calls against the calls an agent made.

Two comparisons run side by side. *Strict* compares JSON values exactly
(numbers by value, never a string for a number, strings character for
character). *Normalized* applies the spec's normalization tables to strings
(per field, or one table for all), compares numbers as numbers (`"10000"`,
`10000`, and `"1万"` once a table maps it to `"10000"`) and so accepts every
spelling the tables declare. A strict match is always a normalized match.

Expected values come in two styles. In the *values* style a field holds the
expected value itself; `accept` adds acceptable alternatives per field and
`optional` names fields that may be left out; `accept` adds alternatives in the
alternatives style too. In the *alternatives* style
(BFCL's gold) every field holds a list of acceptable values, `""` meaning the
field may be omitted, and a map inside an acceptable value is again a map of
alternatives.

Pairing. With `order_matters` the i-th expected call is paired with the i-th
actual call. Otherwise expected and actual calls are paired by an optimal
assignment: only calls with the same function name pair, and among all
assignments the one with the most passing pairs wins, then the one with the
most pairs, then the one with the fewest mismatches; ties go to the earliest
actual call. Unpaired expected calls are `missing`, unpaired actual calls are
`unexpected` (unless `allow_extra_calls`).
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import regex

from evaldsl.i18n import _
from evaldsl.primitives.tables import NormalizationTable
from evaldsl.stdlib.tools.argtypes import FunctionDocs, Missing
from evaldsl.values import ErrorValue, is_error

OMITTED = ""
"""In alternatives style, the acceptable value that means "may be left out"."""


@dataclass(frozen=True)
class Options:
    """How values compare; built once per check from its params."""

    table: NormalizationTable | None = None
    """Applied to every string field that `tables` does not name."""
    tables: Mapping[str, NormalizationTable] = field(default_factory=dict)
    """Field path (`region`, `address.city`), or one qualified by the function
    (`get_weather.location`) -> its table."""
    sets: frozenset[str] = frozenset()
    """Field paths whose lists compare as multisets."""
    all_sets: bool = False
    optional: frozenset[str] = frozenset()
    accept: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    """Field path -> further acceptable values (values style)."""
    alternatives: bool = False
    allow_extra_args: bool = False
    allow_missing_args: bool = False
    """Any expected field may be left out (trajectory's `args: subset`)."""
    allow_extra_calls: bool = False
    coerce_numbers: bool = True
    """Compare numeric strings with numbers (normalized comparison only)."""
    dotted_names: bool = True
    """`math.factorial` expected matches `math_factorial` (tool APIs forbid dots)."""
    order_matters: bool = False
    contained: frozenset[str] = frozenset()
    """Field paths whose texts also match when every word of one is a word of the other
    (`AMC Metreon` and `AMC Metreon 16`; normalized comparison only)."""


class Call(NamedTuple):
    name: str | None
    """None matches any function name."""
    args: Mapping[str, Any] | ErrorValue


class Verdict(NamedTuple):
    passed: bool
    strict: bool
    mismatches: list[str]
    strict_mismatches: list[str]
    pairs: list[tuple[int, int]]
    """(expected index, actual index) of the normalized pairing."""
    fields: int
    """Expected fields in all, the denominator of the score."""
    matched: int

    @property
    def score(self) -> float:
        return self.matched / self.fields if self.fields else (1.0 if self.passed else 0.0)


class Comparer:
    """One comparison mode (strict or normalized) of one check."""

    def __init__(self, options: Options, exact: bool, function: str | None = None) -> None:
        self.options = options
        self.exact = exact
        self.function = function
        """The function whose arguments are compared: `tables` keys may name it first."""

    def within(self, function: str | None) -> Comparer:
        """The same comparison for the arguments of a call of `function`."""
        return Comparer(self.options, self.exact, function)

    def keys(self, path: str, objects: bool = False) -> list[str]:
        """The keys that may name an argument path in `tables`, `sets`, `optional` and
        `accept`, the most specific first: qualified by the function (`get_weather.location`),
        then plain (`location`); with `objects`, a key naming the enclosing object
        (`address` for `address.city`) after each."""
        plain = _plain_path(path)
        keys = [plain, plain.split(".", 1)[0]] if objects else [plain]
        if self.function:
            keys = [f"{self.function}.{key}" for key in keys] + keys
        return keys

    def table_for(self, path: str) -> NormalizationTable | None:
        """The table of the most specific key of `tables` naming the path, else `table`."""
        if self.exact:
            return None
        tables = self.options.tables
        return next((tables[k] for k in self.keys(path, objects=True) if k in tables),
                    self.options.table)

    def is_set(self, path: str) -> bool:
        return self.options.all_sets or any(k in self.options.sets for k in self.keys(path))

    def equal(self, path: str, expected: Any, actual: Any, alt_maps: bool) -> bool:
        """Whether `actual` equals one expected value (recursively)."""
        if isinstance(expected, dict):
            if not isinstance(actual, dict):
                return False
            return not self.diff_map(path, expected, actual, alt_maps)
        if isinstance(expected, list):
            return isinstance(actual, list) and self.equal_lists(path, expected, actual, alt_maps)
        if isinstance(actual, (dict, list)):
            return False
        if self.exact:
            return strict_scalar(expected, actual)
        table = self.table_for(path)
        if normalized_scalar(expected, actual, table, self.options.coerce_numbers):
            return True
        return (isinstance(expected, str) and isinstance(actual, str)
                and any(k in self.options.contained for k in self.keys(path))
                and contained_words(expected, actual, table))

    def equal_lists(self, path: str, expected: list[Any], actual: list[Any],
                    alt_maps: bool) -> bool:
        if len(expected) != len(actual):
            return False
        if not self.is_set(path):
            return all(self.equal(f"{path}[{i}]", e, a, alt_maps)
                       for i, (e, a) in enumerate(zip(expected, actual, strict=True)))
        edges = [[j for j, a in enumerate(actual) if self.equal(f"{path}[]", e, a, alt_maps)]
                 for e in expected]
        return perfect_matching(edges, len(actual))

    def choices(self, path: str, spec: Any, alt_maps: bool) -> list[Any]:
        """The acceptable values of one field: its alternatives, or its value and `accept`."""
        accept = self.options.accept
        more = next((accept[k] for k in self.keys(path) if k in accept), ())
        if alt_maps:
            return [*(spec if isinstance(spec, list) else [spec]), *more]
        return [spec, *more]

    def diff_map(self, path: str, expected: Mapping[str, Any], actual: Mapping[str, Any],
                 alt_maps: bool) -> list[str]:
        """Mismatch messages between an expected and an actual map of fields."""
        out: list[str] = []
        for key, spec in expected.items():
            child = f"{path}.{key}" if path else key
            if key not in actual:
                if not self.may_omit(child, spec, alt_maps):
                    out.append(Missing(_("{field}: missing").format(field=child)))
                continue
            out.extend(self.diff_field(child, spec, actual[key], alt_maps))
        if not self.options.allow_extra_args:
            prefix = f"{path}." if path else ""
            out.extend(_("{field}: unexpected").format(field=f"{prefix}{key}")
                       for key in actual if key not in expected)
        return out

    def may_omit(self, path: str, spec: Any, alt_maps: bool) -> bool:
        if self.options.allow_missing_args or any(k in self.options.optional
                                                  for k in self.keys(path)):
            return True
        return alt_maps and isinstance(spec, list) and OMITTED in spec

    def diff_field(self, path: str, spec: Any, actual: Any, alt_maps: bool) -> list[str]:
        choices = self.choices(path, spec, alt_maps)
        if not alt_maps and isinstance(spec, dict) and isinstance(actual, dict) \
                and len(choices) == 1:
            return self.diff_map(path, spec, actual, False)
        if any(self.equal(path, c, actual, alt_maps) for c in choices):
            return []
        shown = " | ".join(_("(left out)") if alt_maps and c == OMITTED else show(c)
                           for c in choices)
        return [f"{path}: {show(actual)} ≠ {shown}"]


def compare_args(expected: Mapping[str, Any], actual: Mapping[str, Any] | ErrorValue,
                 comparer: Comparer, docs: FunctionDocs | None = None,
                 name: str | None = None) -> list[str]:
    """Mismatches of one call's arguments (type problems from `docs` first)."""
    if is_error(actual):
        assert isinstance(actual, ErrorValue)
        return [f"arguments: {actual.reason}"]
    assert isinstance(actual, Mapping)
    problems = docs.problems(name, expected, actual) if docs and name else []
    named = {p.split(":", 1)[0] for p in problems}
    diffs = comparer.within(name).diff_map("", expected, dict(actual),
                                           comparer.options.alternatives)
    return problems + [d for d in diffs if d.split(":", 1)[0].split(".", 1)[0] not in named]


def contained_words(expected: str, actual: str, table: NormalizationTable | None) -> bool:
    """Whether every word of one text (after the table, case folded) is a word of the other."""
    left, right = (_words(canonical_text(t, table)) for t in (expected, actual))
    return bool(left and right) and (left <= right or right <= left)


def _words(text: str) -> frozenset[str]:
    return frozenset(regex.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold()))


def strict_scalar(expected: Any, actual: Any) -> bool:
    """Exact JSON equality: no string for a number, no 1 for `true`."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if _is_number(expected) and _is_number(actual):
        return bool(expected == actual)
    return type(expected) is type(actual) and bool(expected == actual)


def normalized_scalar(expected: Any, actual: Any, table: NormalizationTable | None,
                      coerce: bool) -> bool:
    """Equality after normalization: numbers by value, strings through `table`.

    Numbers (and, with `coerce`, numeric strings; with a table's `units`,
    quantities) compare within the table's tolerance.
    """
    if strict_scalar(expected, actual):
        return True
    left, right = as_number(expected, table, coerce), as_number(actual, table, coerce)
    if left is not None and right is not None:
        return table.close(left, right) if table is not None else left == right
    if isinstance(expected, str) and isinstance(actual, str):
        return canonical_text(expected, table) == canonical_text(actual, table)
    if coerce and not (expected is None or actual is None):
        return canonical_text(_text(expected), table) == canonical_text(_text(actual), table)
    return False


def canonical_text(text: str, table: NormalizationTable | None) -> str:
    """The table's normal form, applied until it no longer changes (idempotent)."""
    if table is None:
        return text
    seen: list[str] = []
    current = text
    while current not in seen and len(seen) < 8:
        seen.append(current)
        current = table.normalize(current)
    if current in seen and current != seen[-1]:
        return min(seen[seen.index(current):])
    return current


def as_number(value: Any, table: NormalizationTable | None,
              coerce: bool = True) -> float | None:
    """A number; with `coerce`, a string that reads as one before or after normalization;
    with the table's `units`, a quantity in the table's unit (`5000 m` is 5 under `km`)."""
    if isinstance(value, bool):
        return None
    if _is_number(value):
        return float(value)
    if not isinstance(value, str):
        return None
    number = _parse_number(value) if coerce else None
    if number is None and table is not None:
        text = canonical_text(value, table)
        number = _parse_number(text) if coerce else None
        if number is None:
            number = _first_quantity(table, value, text)
    return number


def _first_quantity(table: NormalizationTable, *texts: str) -> float | None:
    """The first of `texts` that is wholly a quantity, in the table's unit."""
    for text in texts:
        number = table.quantity(text)
        if number is not None:
            return number
    return None


def _parse_number(text: str) -> float | None:
    cleaned = unicodedata.normalize("NFKC", text).strip().replace(",", "").replace("_", "")
    if not cleaned or not (cleaned[0].isdigit() or cleaned[0] in "+-."):
        return None
    try:
        number = float(cleaned)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _plain_path(path: str) -> str:
    """`items[2].name` -> `items.name`: tables and options name fields, not positions."""
    out, depth = [], 0
    for ch in path:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def show(value: Any, limit: int = 60) -> str:
    """A value as mismatch messages quote it: `'East'`, `10000`, `["a", "b"]`."""
    text = f"'{value}'" if isinstance(value, str) else _text(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def perfect_matching(edges: list[list[int]], n_right: int) -> bool:
    """Whether every left item pairs with a distinct right item (Kuhn's algorithm)."""
    owner = [-1] * n_right

    def augment(i: int, seen: list[bool]) -> bool:
        for j in edges[i]:
            if not seen[j]:
                seen[j] = True
                if owner[j] == -1 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(augment(i, [False] * n_right) for i in range(len(edges)))
