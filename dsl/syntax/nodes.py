"""The typed syntax tree of a spec.

Every node is a frozen `Node` with a `span`; names that a diagnostic may
point at keep their own span (`name_span`). The parser is the only producer;
nothing outside it ever sees a lark tree or token.

A node is a msgspec Struct rather than a frozen dataclass: a dataclass compiles
its methods from source when its class is made, about 3 million instructions a
class, so the 37 classes here cost every `check` and `run` about a tenth of its
start; a Struct's come from msgspec's C code. Nodes behave as the dataclasses
did: frozen, slotted, equal and hashed by the fields that say what a node is
and not where it stands (no `*span`, nor `_UNCOMPARED`), with keyword and
positional construction, `__match_args__` and the same `repr`; change one with
`msgspec.structs.replace`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import Any, ClassVar, TypeVar

import msgspec

from evaldsl.syntax.source import Span

_S = TypeVar("_S")


class Node(msgspec.Struct, frozen=True):
    """The base of every node: equality and hash by `_key`, set for each class below."""

    _key: ClassVar[Callable[[Any], tuple[Any, ...]]]
    """The compared fields of a node as a tuple, as a dataclass's `__eq__` compares them."""

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        key = type(self)._key
        return key(self) == key(other)

    def __hash__(self) -> int:
        return hash(type(self)._key(self))


# ---------------------------------------------------------------- expressions


class Number(Node, frozen=True):
    value: float
    text: str
    span: Span


class Percent(Node, frozen=True):
    """`30%`: `value` is the fraction (0.3), `text` what the author wrote."""

    value: float
    text: str
    span: Span


class String(Node, frozen=True):
    value: str
    span: Span


class Bool(Node, frozen=True):
    value: bool
    span: Span


class Name(Node, frozen=True):
    name: str
    span: Span


class Attribute(Node, frozen=True):
    """`obj.name`, e.g. `intent.passed` or `case.reference`."""

    obj: Expr
    name: str
    span: Span
    name_span: Span


class Index(Node, frozen=True):
    obj: Expr
    index: Expr
    span: Span


class KeywordArg(Node, frozen=True):
    name: str
    value: Expr
    span: Span
    name_span: Span


class Call(Node, frozen=True):
    """A function call in an expression: `rate(x)`, `percentile(latency, 90)`."""

    func: str
    args: tuple[Expr, ...]
    kwargs: tuple[KeywordArg, ...]
    span: Span
    func_span: Span


class Unary(Node, frozen=True):
    """`not x` or `-x`."""

    op: str
    operand: Expr
    span: Span


class Binary(Node, frozen=True):
    """Arithmetic (`+ - * /`), logic (`and or`), comparison and `in`/`not in`."""

    op: str
    left: Expr
    right: Expr
    span: Span
    op_span: Span


class ListLit(Node, frozen=True):
    items: tuple[Expr, ...]
    span: Span


class MapEntry(Node, frozen=True):
    key: str
    value: Expr
    span: Span
    key_span: Span
    quoted: bool = False
    """Whether the key was written as a string (kept for formatting)."""


class MapLit(Node, frozen=True):
    entries: tuple[MapEntry, ...]
    span: Span


class Group(Node, frozen=True):
    """A parenthesised expression, kept so the formatter can keep the parentheses."""

    expr: Expr
    span: Span


Expr = (
    Number | Percent | String | Bool | Name | Attribute | Index | Call | Unary | Binary | ListLit
    | MapLit | Group
)

LOGIC_OPS = frozenset({"and", "or"})
COMPARE_OPS = frozenset({"==", "!=", "<", "<=", ">", ">="})
MEMBER_OPS = frozenset({"in", "not in"})
ARITH_OPS = frozenset({"+", "-", "*", "/"})

# ---------------------------------------------------------------- statements


class SpecHeader(Node, frozen=True):
    title: str
    span: Span


class CaseField(Node, frozen=True):
    name: str
    type: str
    optional: bool
    span: Span
    name_span: Span
    type_span: Span


class CaseBlock(Node, frozen=True):
    fields: tuple[CaseField, ...]
    span: Span


class Option(Node, frozen=True):
    """A table or review option: `casefold` (a flag, `value` is None) or `seed: 7`."""

    name: str
    value: Expr | None
    span: Span


class TableEntry(Node, frozen=True):
    sources: tuple[String, ...]
    target: String
    span: Span


class Table(Node, frozen=True):
    name: str
    options: tuple[Option, ...]
    entries: tuple[TableEntry, ...]
    span: Span
    name_span: Span


class Let(Node, frozen=True):
    name: str
    value: Expr
    span: Span
    name_span: Span


class Check(Node, frozen=True):
    name: str
    primitive: str
    args: tuple[KeywordArg, ...]
    span: Span
    name_span: Span
    primitive_span: Span
    positional: tuple[Expr, ...] = ()
    """Arguments written without a name; always a checker error (E014)."""

    def arg(self, name: str) -> KeywordArg | None:
        return next((a for a in self.args if a.name == name), None)


class Branch(Node, frozen=True):
    """`label if condition`, or `label otherwise` when `condition` is None."""

    label: str
    condition: Expr | None
    span: Span
    label_span: Span


class Outcome(Node, frozen=True):
    """An outcome block; `name` is None for the case verdict."""

    name: str | None
    branches: tuple[Branch, ...]
    span: Span
    name_span: Span | None


class Metric(Node, frozen=True):
    name: str
    value: Expr
    where: Expr | None
    span: Span
    name_span: Span
    by: tuple[Expr, ...] = ()
    """The group keys of `by case.tenant, case.lang`, in order; empty when not grouped."""
    direction: str | None = None
    """The direction clause as written (`lower is better`, `越低越好`, `higher is better`,
    `越高越好`); None when unwritten, which is higher is better."""

    @property
    def lower_is_better(self) -> bool:
        """Whether a smaller value is the better one (gates, alerts and reports read it)."""
        return self.direction in LOWER_IS_BETTER


LOWER_IS_BETTER = ("lower is better", "越低越好")
"""The direction clauses of a metric whose smaller values are better."""


class SampleRule(Node, frozen=True):
    rate: Expr
    where: Expr | None
    priority: Expr | None
    span: Span


class Review(Node, frozen=True):
    options: tuple[Option, ...]
    rules: tuple[SampleRule, ...]
    span: Span


ORDERINGS = ("<", "<=", ">", ">=")
"""The comparisons a windowed alert may make: a rate or mean above or below a line."""


class AlertWindow(Node, frozen=True):
    """`over 1h [by case.tenant] min 30`: the window of arrival time, the groups of an
    aggregate written in place, and the fewest cases that may fire."""

    seconds: int
    text: str
    """The duration as written (`1h`), for the formatter and messages."""
    min_cases: Number | None
    span: Span
    by: tuple[Expr, ...] = ()


class Alert(Node, frozen=True):
    """`alert NAME when COND [over DURATION [by KEYS] [min N]] "message"`.

    Without a window the condition is judged per case; with one it compares a
    metric with a constant over each window of arrival time and each group.
    The metric is a declared one (`when poor_rate > 10%`) or an aggregate
    written in place (`when rate(poor) > 10% over 1h by case.tenant`), which
    the builder makes the alert's own `metric`, named after the alert: one
    mechanism computes, groups and reports both.
    """

    name: str
    when: Expr
    window: AlertWindow | None
    message: str
    span: Span
    name_span: Span
    message_span: Span
    metric: Metric | None = None
    """The metric an aggregate written in place makes; None for a declared metric's name."""

    def metric_name(self) -> str | None:
        """The metric a windowed alert compares: its own, or the name its condition compares
        (a declared metric, or an error the checker words); None when there is neither."""
        if self.metric is not None:
            return self.metric.name
        compared = ordering(self.when)
        left = unwrap(compared.left) if compared is not None else None
        return left.name if isinstance(left, Name) else None


class ExampleCase(Node, frozen=True):
    """`case {field: value, ...}`: the case fields of an example."""

    fields: MapLit
    span: Span


class ExampleMessage(Node, frozen=True):
    """`user "text"` or `assistant "text" {latency_ms: 800, tool_calls: [...]}`."""

    role: str
    content: str
    extra: MapLit | None
    span: Span
    role_span: Span


class ExampleGiven(Node, frozen=True):
    """`given polite = 8` or `given intent.label = "inquiry"`: a pinned check result."""

    check: str
    field: str | None
    value: Expr
    span: Span
    check_span: Span


class ExampleExpect(Node, frozen=True):
    condition: Expr
    span: Span


ExampleItem = ExampleCase | ExampleMessage | ExampleGiven | ExampleExpect


class Example(Node, frozen=True):
    name: str
    items: tuple[ExampleItem, ...]
    span: Span


Statement = (
    SpecHeader | CaseBlock | Table | Let | Check | Outcome | Metric | Review | Example | Alert
)


class Comment(Node, frozen=True):
    text: str
    """The comment including its `#`."""
    span: Span


class Module(Node, frozen=True):
    """A whole parsed spec file."""

    statements: tuple[Statement, ...]
    comments: tuple[Comment, ...]
    span: Span

    def of_type(self, kind: type[_S]) -> list[_S]:
        return [s for s in self.statements if isinstance(s, kind)]

    def metrics(self) -> list[Metric]:
        """Every metric in source order: the declared ones and the alerts' own."""
        found: list[Metric] = []
        for s in self.statements:
            if isinstance(s, Metric):
                found.append(s)
            elif isinstance(s, Alert) and s.metric is not None:
                found.append(s.metric)
        return found


def unwrap(expr: Expr) -> Expr:
    """`expr` without enclosing parentheses."""
    while isinstance(expr, Group):
        expr = expr.expr
    return expr


def ordering(expr: Expr) -> Binary | None:
    """`expr` as one comparison by `<`, `<=`, `>` or `>=`, parentheses aside; None when it is
    not one (a windowed alert's condition, checked by E601)."""
    expr = unwrap(expr)
    return expr if isinstance(expr, Binary) and expr.op in ORDERINGS else None



def children(node: object) -> Iterator[object]:
    """The direct child nodes of `node`, in source order."""
    for name in _CHILD_FIELDS[node.__class__]:
        value = getattr(node, name)
        if isinstance(value, tuple):
            yield from (v for v in value if hasattr(v, "span"))
        elif hasattr(value, "span"):
            yield value


def walk(node: object) -> Iterator[object]:
    """Every node under `node`, `node` first, without recursion (deep specs are legal)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


_UNCOMPARED: dict[type[Node], frozenset[str]] = {
    MapEntry: frozenset({"quoted"}),
    Check: frozenset({"positional"}),
    Alert: frozenset({"metric"}),
}
"""Fields beyond the spans that equality and hash leave out: how a key was written, the
positional arguments (always an error) and an alert's derived metric."""

_DERIVED: dict[type[Node], frozenset[str]] = {Alert: frozenset({"metric"})}
"""Fields that repeat nodes which are already children (an alert's metric is made of its
condition), so `children` skips them."""

_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
"""Each node class's fields that may hold child nodes: all but the spans and `_DERIVED`."""


def _key_of(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    if len(names) == 1:
        name = names[0]
        return lambda node: (getattr(node, name),)
    return attrgetter(*names)


def _set_up(cls: type[Node]) -> None:
    fields = cls.__struct_fields__
    kept = tuple(f for f in fields if not f.endswith("span"))
    uncompared = _UNCOMPARED.get(cls, frozenset())
    cls._key = staticmethod(_key_of(tuple(f for f in kept if f not in uncompared)))
    _CHILD_FIELDS[cls] = tuple(f for f in kept if f not in _DERIVED.get(cls, frozenset()))


for _cls in Node.__subclasses__():
    _set_up(_cls)
del _cls
