"""Expressions to Python closures, compiled once per spec from the AST.

Nothing here evaluates author text: each AST node becomes a small closure
over its children's closures, and a case is evaluated by calling the root
closure with the case's `Frame`. The compiler reads the checker's facts
(`checker.facts.analysis`) and analyses nothing itself: the static type of an
operand decides, once at compile time, that a bare check name becomes
`.passed` in a condition and `.score` in a number (LANGUAGE.md); expressions
the checker found constant are folded; the operands of `and`/`or` are
reordered cheapest first (they commute), so a model check is reached only
when the cheap operands leave the result open. The closures themselves live in
`evaldsl.runtime.closures`, the frame they read in `evaldsl.runtime.frame`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import evaldsl.runtime.closures as C
from evaldsl.checker.facts.consts import NOT_CONSTANT, number_value
from evaldsl.checker.facts.symbols import CASE
from evaldsl.primitives.valuetypes import ValueType as T
from evaldsl.runtime.frame import EMPTY_FRAME, MISSING, Fn, Frame
from evaldsl.runtime.graph import Graph, flatten
from evaldsl.runtime.logic import (
    first_unknown,
    not_value,
    to_condition,
    to_number,
)
from evaldsl.syntax import nodes as n
from evaldsl.values import ErrorValue


class Compiled(NamedTuple):
    fn: Fn
    type: T
    const: bool
    """Whether `fn` returns the same value for every case (already folded)."""


@dataclass
class Slots:
    """Where each per-case value lives in a frame."""

    checks: dict[str, int] = field(default_factory=dict)
    lets: dict[str, int] = field(default_factory=dict)
    blocks: dict[str, int] = field(default_factory=dict)
    size: int = 0

    def add(self, where: dict[str, int], name: str) -> int:
        where[name] = self.size
        self.size += 1
        return where[name]


def const(value: Any) -> Fn:
    return lambda fr: value


class Compiler:
    """Compiles the expressions of one graph against one slot layout."""

    def __init__(self, graph: Graph, slots: Slots) -> None:
        self.graph = graph
        self.facts = graph.facts
        self.slots = slots
        self._let_cache: dict[str, Compiled] = {}

    # ---------------------------------------------------------------- entry points

    def condition(self, expr: n.Expr) -> Fn:
        return self.compile(expr, T.BOOL).fn

    def number(self, expr: n.Expr) -> Fn:
        return self.compile(expr, T.NUMBER).fn

    def value(self, expr: n.Expr) -> Fn:
        return self.compile(expr, T.ANY).fn

    def constant(self, expr: n.Expr) -> Any:
        """The value of an expression that reads nothing per case."""
        return self.compile(expr, T.ANY).fn(EMPTY_FRAME)

    def compile(self, expr: n.Expr, want: T) -> Compiled:
        c = self._compile(expr, want)
        if want is T.BOOL and c.type is not T.BOOL:
            c = _wrap(c, to_condition, T.BOOL)
        elif want is T.NUMBER and c.type is not T.NUMBER:
            c = _wrap(c, to_number, T.NUMBER)
        if not c.const and not self.graph.expr_per_case(expr):
            return Compiled(const(c.fn(EMPTY_FRAME)), c.type, True)
        return c

    # ---------------------------------------------------------------- dispatch

    def _compile(self, e: n.Expr, want: T) -> Compiled:
        if isinstance(e, n.Group):
            return self.compile(e.expr, want)
        if isinstance(e, (n.Number, n.Percent)):
            return Compiled(const(number_value(e)), T.NUMBER, True)
        if isinstance(e, n.String):
            return Compiled(const(e.value), T.TEXT, True)
        if isinstance(e, n.Bool):
            return Compiled(const(e.value), T.BOOL, True)
        if isinstance(e, n.Name):
            return self._name(e, want)
        if isinstance(e, n.Attribute):
            return self._attribute(e)
        if isinstance(e, n.Binary):
            return self._binary(e, want)
        if isinstance(e, n.Unary):
            return self._unary(e)
        if isinstance(e, n.ListLit):
            return self._list(e)
        if isinstance(e, n.MapLit):
            return self._map(e)
        if isinstance(e, n.Index):
            return self._index(e)
        assert isinstance(e, n.Call)
        return self._call(e)

    # ---------------------------------------------------------------- names

    def _name(self, e: n.Name, want: T) -> Compiled:
        kind = self.graph.symbols.kind_of(e.name)
        if kind == "check":
            return self._check(e.name, want)
        if kind == "let":
            return self._let(e.name, want)
        if kind == "table":
            return Compiled(const(self.facts.table(e.name)), T.TABLE, True)
        if kind == "label":
            return self._label(e.name)
        assert kind == "outcome", "the checker reports unknown names (E101)"
        return self._block_text(e.name)

    def _check(self, name: str, want: T) -> Compiled:
        i = self.slots.checks[name]
        if want is T.BOOL:
            return Compiled(C.check_field(i, "passed", name), T.BOOL, False)
        if want is T.NUMBER:
            return Compiled(C.check_field(i, "score", name), T.NUMBER, False)
        return Compiled(C.slot(i), T.CHECK, False)

    def _let(self, name: str, want: T) -> Compiled:
        if name in self.slots.lets:
            kind = self.let_value(name).type
            c = Compiled(C.slot(self.slots.lets[name]), kind, False)
            if kind is T.CHECK and want is T.BOOL:
                return _wrap(c, to_condition, T.BOOL)
            if kind is T.CHECK and want is T.NUMBER:
                return _wrap(c, to_number, T.NUMBER)
            return c
        return self.let_value(name)

    def let_value(self, name: str) -> Compiled:
        """A let's value, compiled once: its slot's forcer when per case, else a constant."""
        found = self._let_cache.get(name)
        if found is None:
            if name in self.slots.lets:
                found = self.compile(self.graph.symbols.lets[name].value, T.ANY)
            else:
                found = _constant(self._let_constant(name))
            self._let_cache[name] = found
        return found

    def _let_constant(self, name: str) -> Any:
        """The value of a let the same for every case: the checker's fold, else computed once."""
        value = self.facts.let_value(name)
        if value is NOT_CONSTANT:
            value = self.constant(self.graph.symbols.lets[name].value)
        return value

    def _label(self, label: str) -> Compiled:
        block = self.graph.block_of_label(label)
        i, index = self.slots.blocks[block.key], block.labels.index(label)

        def label_value(fr: Frame) -> Any:
            v = fr.vals[i]
            if v is MISSING:
                v = fr.force(i)
            return v == index if type(v) is int else v

        return Compiled(label_value, T.BOOL, False)

    def _block_text(self, key: str) -> Compiled:
        i, labels = self.slots.blocks[key], self.graph.block(key).labels

        def block_text(fr: Frame) -> Any:
            v = fr.vals[i]
            if v is MISSING:
                v = fr.force(i)
            return labels[v] if type(v) is int else v

        return Compiled(block_text, T.TEXT, False)

    # ---------------------------------------------------------------- attributes

    def _attribute(self, e: n.Attribute) -> Compiled:
        obj = e.obj
        while isinstance(obj, n.Group):
            obj = obj.expr
        kind = self.graph.symbols.kind_of(obj.name) if isinstance(obj, n.Name) else None
        if isinstance(obj, n.Name) and obj.name == CASE and kind is None:
            return self._case_field(e.name)
        if isinstance(obj, n.Name) and kind == "check":
            return self._check_field(obj.name, e.name)
        inner = self.compile(obj, T.ANY)
        read = C.get_attr(inner.fn, e.name)
        field = self._case_field_name(obj)
        if field is not None:  # `case.expect.regex`: the map's key read in one closure
            read = C.case_map_key(field, e.name, read)
        return Compiled(read, T.ANY, False)

    def _case_field_name(self, e: n.Expr) -> str | None:
        """The field `e` reads when it is `case.field` (not `case.id`), else None."""
        while isinstance(e, n.Group):
            e = e.expr
        if not isinstance(e, n.Attribute) or e.name == "id":
            return None
        obj = e.obj
        while isinstance(obj, n.Group):
            obj = obj.expr
        if isinstance(obj, n.Name) and obj.name == CASE \
                and self.graph.symbols.kind_of(obj.name) is None:
            return e.name
        return None

    def _case_field(self, name: str) -> Compiled:
        if name == "id" and name not in self.graph.symbols.case_fields:
            return Compiled(lambda fr: fr.case.id, T.TEXT, False)
        absent = ErrorValue(f"the case has no field `{name}`", f"case.{name}")

        def case_field(fr: Frame) -> Any:
            v = fr.case.fields.get(name)
            return absent if v is None else v

        return Compiled(case_field, T.ANY, False)

    def _check_field(self, check: str, name: str) -> Compiled:
        kind = T.BOOL if name == "passed" else T.NUMBER if name == "score" else T.ANY
        return Compiled(C.check_field(self.slots.checks[check], name, check), kind, False)

    # ---------------------------------------------------------------- operators

    def _binary(self, e: n.Binary, want: T) -> Compiled:
        op = e.op
        if op in n.LOGIC_OPS:
            operands = self.graph.order(flatten(e, op))
            fns = tuple(self.condition(x) for x in operands)
            return Compiled(C.and_chain(fns) if op == "and" else C.or_chain(fns), T.BOOL, False)
        if op in n.ARITH_OPS:
            left, right = self.number(e.left), self.number(e.right)
            return Compiled(C.arithmetic(op, left, right), T.NUMBER, False)
        if op in n.MEMBER_OPS:
            item, container = self._operand(e.left, T.ANY), self.value(e.right)
            return Compiled(C.membership(op == "not in", item, container), T.BOOL, False)
        left_type, right_type = self._type(e.left), self._type(e.right)
        lw = _comparison_want(op, left_type, right_type)
        rw = _comparison_want(op, right_type, left_type)
        return Compiled(C.comparison(op, self._operand(e.left, lw), self._operand(e.right, rw)),
                        T.BOOL, False)

    def _operand(self, e: n.Expr, want: T) -> Fn:
        """A comparison or `in` operand: a bare check reads as `.value` when no type is wanted."""
        if want is T.ANY and self._type(e) is T.CHECK:
            return C.get_attr(self.value(e), "value")
        return self.compile(e, want).fn

    def _type(self, e: n.Expr) -> T:
        return self.facts.type_of(e)

    def _unary(self, e: n.Unary) -> Compiled:
        if e.op == "not":
            inner = self.condition(e.operand)
            return Compiled(lambda fr: not_value(inner(fr)), T.BOOL, False)
        operand = self.number(e.operand)

        def negate(fr: Frame) -> Any:
            v = operand(fr)
            unknown = first_unknown(v)
            return -v if unknown is None else unknown

        return Compiled(negate, T.NUMBER, False)

    def _number_of(self, e: n.Expr) -> Compiled:
        """`number(c)`: 1 where `c` holds, 0 where it does not, its error where it is one."""
        inner = self.condition(e)

        def as_number(fr: Frame) -> Any:
            v = inner(fr)
            unknown = first_unknown(v)
            return (1 if v is True else 0) if unknown is None else unknown

        return Compiled(as_number, T.NUMBER, False)

    def _list(self, e: n.ListLit) -> Compiled:
        items = [self.value(x) for x in e.items]
        return Compiled(C.collect_list(items), T.LIST, False)

    def _map(self, e: n.MapLit) -> Compiled:
        entries = [(x.key, self.value(x.value)) for x in e.entries]
        return Compiled(C.collect_map(entries), T.MAP, False)

    def _index(self, e: n.Index) -> Compiled:
        obj, index = self.value(e.obj), self.value(e.index)
        return Compiled(C.get_index(obj, index), T.ANY, False)

    def _call(self, e: n.Call) -> Compiled:
        if e.func == "number" and len(e.args) == 1 and not e.kwargs:
            return self._number_of(e.args[0])
        raise AssertionError(f"the checker keeps `{e.func}(...)` out of per-case expressions "
                             "(E110, E304)")


def _constant(value: Any) -> Compiled:
    """A folded value, typed by what it is."""
    kind = T.BOOL if type(value) is bool else \
        T.NUMBER if type(value) is int or type(value) is float else T.ANY
    return Compiled(const(value), kind, True)


def _comparison_want(op: str, own: T, other: T) -> T:
    if own is not T.CHECK:
        return T.ANY
    if op not in ("==", "!="):
        return T.NUMBER
    if other is T.BOOL:
        return T.BOOL
    return T.NUMBER if other is T.NUMBER else T.ANY


def _wrap(c: Compiled, convert: Callable[[Any], Any], kind: T) -> Compiled:
    fn = c.fn
    return Compiled(lambda fr: convert(fn(fr)), kind, c.const)


