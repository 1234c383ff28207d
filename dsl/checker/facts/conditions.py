"""Conditions as sets of cases: which hold together, which imply which.

A condition is turned into a disjunction of conjunctions of simple facts
about values: a threshold on a number (`completion >= 0.8`), the truth of a
condition (`intent.passed`, `not fast`), a text equal or not to a constant
(`case.lang == "zh"`). That is enough to see that `b if x >= 0.8 and y`
can never fire after `a if x >= 0.5` (E405) and that
`where x >= 0.8 and x < 0.5` can never hold (W104). Anything richer is an
opaque fact: the analysis stays sound, it just proves less.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
from msgspec.structs import replace

from evaldsl.checker.facts.consts import NOT_CONSTANT, fold
from evaldsl.checker.facts.context import Context, unwrap
from evaldsl.syntax import nodes as n

MAX_DISJUNCTS = 32
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


class Interval(msgspec.Struct, frozen=True):
    """A set of numbers between `lo` and `hi`; `*_open` excludes the bound."""

    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = False
    hi_open: bool = False

    @property
    def empty(self) -> bool:
        return self.lo > self.hi or (self.lo == self.hi and (self.lo_open or self.hi_open))

    def meet(self, other: Interval) -> Interval:
        lo, lo_open = max((self.lo, self.lo_open), (other.lo, other.lo_open))
        hi, hi_open = min((self.hi, not self.hi_open), (other.hi, not other.hi_open))
        return Interval(lo, hi, lo_open, not hi_open)

    def within(self, other: Interval) -> bool:
        """Whether every number in `self` is in `other`."""
        if self.empty:
            return True
        lo_ok = self.lo > other.lo or (self.lo == other.lo and (self.lo_open or not other.lo_open))
        hi_ok = self.hi < other.hi or (self.hi == other.hi and (self.hi_open or not other.hi_open))
        return lo_ok and hi_ok

    def contains(self, x: float) -> bool:
        return Interval(x, x).within(self)


def threshold(op: str, c: float) -> Interval:
    """The numbers `v` with `v op c`."""
    return {
        ">=": Interval(lo=c), ">": Interval(lo=c, lo_open=True),
        "<=": Interval(hi=c), "<": Interval(hi=c, hi_open=True), "==": Interval(c, c),
    }[op]


class Conjunction(msgspec.Struct, frozen=True):
    """Facts that hold together; `contradiction` when they cannot."""

    numbers: dict[Any, Interval] = msgspec.field(default_factory=dict)
    excluded: dict[Any, frozenset[Any]] = msgspec.field(default_factory=dict)
    """Values a key is known to differ from (`!=`), numbers or texts."""
    truths: dict[Any, bool] = msgspec.field(default_factory=dict)
    equal: dict[Any, Any] = msgspec.field(default_factory=dict)
    """Non-numeric constants a key is equal to."""
    contradiction: bool = False

    def merge(self, other: Conjunction) -> Conjunction:
        out = self
        for key, interval in other.numbers.items():
            out = out.with_interval(key, interval)
        for key, values in other.excluded.items():
            out = out.with_excluded(key, values)
        for key, truth in other.truths.items():
            out = out.with_truth(key, truth)
        for key, value in other.equal.items():
            out = out.with_equal(key, value)
        return out

    def with_interval(self, key: Any, interval: Interval) -> Conjunction:
        current = self.numbers.get(key, Interval()).meet(interval)
        broken = current.empty or _excludes_all(current, self.excluded.get(key, frozenset()))
        return replace(self, numbers={**self.numbers, key: current},
                       contradiction=self.contradiction or broken)

    def with_excluded(self, key: Any, values: frozenset[Any]) -> Conjunction:
        merged = self.excluded.get(key, frozenset()) | values
        broken = _excludes_all(self.numbers.get(key, Interval()), merged) or (
            key in self.equal and self.equal[key] in merged)
        return replace(self, excluded={**self.excluded, key: merged},
                       contradiction=self.contradiction or broken)

    def with_truth(self, key: Any, truth: bool) -> Conjunction:
        broken = self.truths.get(key, truth) != truth
        return replace(self, truths={**self.truths, key: truth},
                       contradiction=self.contradiction or broken)

    def with_equal(self, key: Any, value: Any) -> Conjunction:
        broken = (key in self.equal and self.equal[key] != value) or value in self.excluded.get(
            key, frozenset())
        return replace(self, equal={**self.equal, key: value},
                       contradiction=self.contradiction or broken)

    def implies(self, other: Conjunction) -> bool:
        """Whether every case satisfying `self` satisfies `other`."""
        if self.contradiction:
            return True
        for key, interval in other.numbers.items():
            if not self.numbers.get(key, Interval()).within(interval):
                return False
        for key, values in other.excluded.items():
            mine = self.excluded.get(key, frozenset())
            span = self.numbers.get(key)
            for v in values - mine:
                if key in self.equal and self.equal[key] != v:
                    continue
                if span is None or not isinstance(v, float) or span.contains(v):
                    return False
        if any(self.truths.get(k) != t for k, t in other.truths.items()):
            return False
        return all(self.equal.get(k, NOT_CONSTANT) == v for k, v in other.equal.items())


def _excludes_all(interval: Interval, values: frozenset[Any]) -> bool:
    return interval.lo == interval.hi and not interval.empty and interval.lo in values


TRUE = Conjunction()


def dnf(expr: n.Expr, ctx: Context) -> list[Conjunction] | None:
    """`expr` as a disjunction of satisfiable conjunctions; None when too large to say.

    Memoised per expression node: several rules ask about the same conditions.
    """
    cache = ctx.conjunctions
    key = id(expr)
    if key not in cache:
        try:
            found: list[Conjunction] | None = [
                c for c in _dnf(expr, ctx, negate=False) if not c.contradiction]
        except _TooLarge:
            found = None
        cache[key] = found
    return cache[key]


class _TooLarge(Exception):
    pass


def _dnf(expr: n.Expr, ctx: Context, negate: bool) -> list[Conjunction]:
    e = unwrap(expr)
    if isinstance(e, n.Unary) and e.op == "not":
        return _dnf(e.operand, ctx, not negate)
    if isinstance(e, n.Binary) and e.op in n.LOGIC_OPS:
        conjunctive = (e.op == "and") != negate
        left, right = _dnf(e.left, ctx, negate), _dnf(e.right, ctx, negate)
        if not conjunctive:
            return _bounded(left + right)
        return _bounded([a.merge(b) for a in left for b in right])
    value = fold(e, ctx)
    if isinstance(value, bool):
        return [TRUE] if value != negate else []
    if isinstance(e, n.Binary) and e.op in n.COMPARE_OPS:
        atom = _comparison(e, ctx, negate)
        if atom is not None:
            return [atom]
    return [TRUE.with_truth(truth_key(e, ctx), not negate)]


def _bounded(items: list[Conjunction]) -> list[Conjunction]:
    if len(items) > MAX_DISJUNCTS:
        raise _TooLarge
    return items


def _comparison(e: n.Binary, ctx: Context, negate: bool) -> Conjunction | None:
    op = _NEGATE[e.op] if negate else e.op
    right = fold(e.right, ctx)
    subject = e.left
    if right is NOT_CONSTANT:
        right, subject, op = fold(e.left, ctx), e.right, _FLIP[op]
        if right is NOT_CONSTANT:
            return None
    if isinstance(right, bool):
        if op not in ("==", "!="):
            return None
        return TRUE.with_truth(truth_key(subject, ctx), right == (op == "=="))
    if isinstance(right, (int, float)):
        key = number_key(subject, ctx)
        if op == "!=":
            return TRUE.with_excluded(key, frozenset({float(right)}))
        return TRUE.with_interval(key, threshold(op, float(right)))
    if isinstance(right, str) and op in ("==", "!="):
        key = ("text", unwrap(subject))
        if op == "==":
            return TRUE.with_equal(key, right)
        return TRUE.with_excluded(key, frozenset({right}))
    return None


def number_key(e: n.Expr, ctx: Context) -> Any:
    """What a number is about: a bare check name means its `.score`."""
    return _field_key(e, ctx, "num", "score")


def truth_key(e: n.Expr, ctx: Context) -> Any:
    """What a condition is about: a bare check name means its `.passed`."""
    return _field_key(e, ctx, "bool", "passed")


def _field_key(e: n.Expr, ctx: Context, kind: str, field: str) -> Any:
    """`(kind, check, field)` for a check read bare or as `.field`, else `(kind, expr)`."""
    e = unwrap(e)
    if isinstance(e, n.Name) and e.name in ctx.symbols.checks:
        return (kind, e.name, field)
    if isinstance(e, n.Attribute) and isinstance(e.obj, n.Name) and e.name == field and (
            e.obj.name in ctx.symbols.checks):
        return (kind, e.obj.name, field)
    return (kind, e)


def never_holds(expr: n.Expr, ctx: Context) -> bool:
    """Whether no case can satisfy `expr` (as far as the analysis can tell)."""
    found = dnf(expr, ctx)
    return found is not None and not found


def covered_by(later: list[Conjunction], earlier: list[Conjunction]) -> bool:
    """Whether every case satisfying `later` satisfies `earlier` (both in DNF)."""
    return all(any(b.implies(a) for a in earlier) for b in later)
