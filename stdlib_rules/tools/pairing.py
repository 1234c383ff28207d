"""Pairing expected tool calls with the calls an agent made, and the verdict.

See `evaldsl.stdlib.tools.argmatch` for the pairing rule. The assignment is exact (a
dynamic program over subsets of actual calls) up to `EXACT_LIMIT` actual
calls, which covers every realistic turn; beyond it, calls pair greedily in
order, which is exact whenever names are unique.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from evaldsl.stdlib.tools.argmatch import Call, Comparer, Options, Verdict, compare_args
from evaldsl.stdlib.tools.argtypes import FunctionDocs, Missing

EXACT_LIMIT = 12
_PASS, _PAIR = 1_000_000, 1_000


class PairOutcome(NamedTuple):
    pairs: list[tuple[int, int]]
    mismatches: list[list[str]]
    """Per expected call: its mismatches (missing call -> one message)."""
    extra: list[int]
    """Actual calls left unpaired."""


def match_calls(expected: Sequence[Call], actual: Sequence[Call], options: Options,
                docs: FunctionDocs | None = None) -> Verdict:
    """The full verdict: normalized and strict comparisons, each with its own pairing."""
    norm = pair_calls(expected, actual, Comparer(options, exact=False), docs)
    strict = pair_calls(expected, actual, Comparer(options, exact=True), docs)
    messages = _messages(expected, actual, norm, options)
    strict_messages = _messages(expected, actual, strict, options)
    if expected:
        fields = sum(max(1, _field_count(c)) for c in expected)
        matched = _matched_fields(expected, norm)
    else:
        fields, matched = 1, (0 if messages else 1)
    return Verdict(not messages, not strict_messages, messages, strict_messages,
                   norm.pairs, fields, matched)


def pair_calls(expected: Sequence[Call], actual: Sequence[Call], comparer: Comparer,
               docs: FunctionDocs | None) -> PairOutcome:
    """Pairs (expected, actual) and each expected call's mismatches."""
    diffs = [[_diff(e, a, comparer, docs) for a in actual] for e in expected]
    if comparer.options.order_matters:
        pairs = [(i, i) for i in range(min(len(expected), len(actual)))
                 if diffs[i][i] is not None]
    elif len(actual) <= EXACT_LIMIT:
        pairs = _optimal(diffs, len(actual))
    else:
        pairs = _greedy(diffs, len(actual))
    paired = dict(pairs)
    mismatches = [(diffs[i][paired[i]] or []) if i in paired else ["missing"]
                  for i in range(len(expected))]
    used = set(paired.values())
    return PairOutcome(pairs, mismatches, [j for j in range(len(actual)) if j not in used])


def _diff(expected: Call, actual: Call, comparer: Comparer,
          docs: FunctionDocs | None) -> list[str] | None:
    """Mismatches of a pair, or None when the names differ (they cannot pair)."""
    if not same_name(expected.name, actual.name, comparer.options.dotted_names):
        return None
    if not isinstance(expected.args, dict):
        return ["expected arguments are not a map"]
    name = expected.name or actual.name
    return compare_args(expected.args, actual.args, comparer, docs, name)


def same_name(expected: str | None, actual: str | None, dotted: bool) -> bool:
    if expected is None or expected == actual:
        return True
    return dotted and actual is not None and expected.replace(".", "_") == actual


def _value(diff: list[str] | None) -> int:
    if diff is None:
        return -1
    return (_PASS if not diff else 0) + _PAIR - min(len(diff), _PAIR - 1)


def _optimal(diffs: list[list[list[str] | None]], n: int) -> list[tuple[int, int]]:
    values = tuple(tuple(_value(d) for d in row) for row in diffs)

    @cache
    def best(i: int, used: int) -> tuple[int, tuple[tuple[int, int], ...]]:
        if i == len(values):
            return 0, ()
        top = best(i + 1, used)
        for j in range(n):
            if not used >> j & 1 and values[i][j] >= 0:
                score, rest = best(i + 1, used | 1 << j)
                if score + values[i][j] > top[0]:
                    top = (score + values[i][j], ((i, j), *rest))
        return top

    return list(best(0, 0)[1])


def _greedy(diffs: list[list[list[str] | None]], n: int) -> list[tuple[int, int]]:
    used: set[int] = set()
    pairs = []
    for i, row in enumerate(diffs):
        options = [(-_value(d), j) for j, d in enumerate(row) if d is not None and j not in used]
        if options:
            j = min(options)[1]
            used.add(j)
            pairs.append((i, j))
    return pairs


def _messages(expected: Sequence[Call], actual: Sequence[Call], outcome: PairOutcome,
              options: Options) -> list[str]:
    labels = _labels(expected)
    out: list[str] = []
    for i, problems in enumerate(outcome.mismatches):
        if problems == ["missing"] and i not in dict(outcome.pairs):
            out.append(f"call `{labels[i]}`: missing")
        else:
            prefix = f"{labels[i]}: " if len(expected) > 1 else ""
            out.extend(p.prefixed(prefix) if isinstance(p, Missing) else prefix + p
                       for p in problems)
    if not options.allow_extra_calls:
        out.extend(f"call `{actual[j].name}`: unexpected" for j in outcome.extra)
    return out


def _labels(expected: Sequence[Call]) -> list[str]:
    names = [c.name or "call" for c in expected]
    return [n if names.count(n) == 1 else f"{n}#{names[:i + 1].count(n)}"
            for i, n in enumerate(names)]


def _field_count(call: Call) -> int:
    return len(call.args) if isinstance(call.args, dict) else 1


def _matched_fields(expected: Sequence[Call], outcome: PairOutcome) -> int:
    """Expected arguments that matched, over the paired calls."""
    paired = dict(outcome.pairs)
    total = 0
    for i, call in enumerate(expected):
        if i not in paired:
            continue
        problems = outcome.mismatches[i]
        keys = set(call.args) if isinstance(call.args, dict) else set()
        if not keys:
            total += 0 if problems else 1
            continue
        bad = {_field_of(p) for p in problems}
        total += len(keys) - len(bad & keys) if "arguments" not in bad else 0
    return total


def _field_of(problem: str) -> str:
    """`address.city: missing` -> `address`: the top-level argument a message is about."""
    head = problem.split(":", 1)[0]
    return head.split(".", 1)[0].split("[", 1)[0]
