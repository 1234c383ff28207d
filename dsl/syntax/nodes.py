"""The typed syntax tree of a spec.

Every node is a frozen dataclass with a `span`; names that a diagnostic may
point at keep their own span (`name_span`). The parser is the only producer;
nothing outside it ever sees a lark tree or token.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import TypeVar

from evaldsl.syntax.source import Span

_S = TypeVar("_S")

# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Number:
    value: float
    text: str
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Percent:
    """`30%`: `value` is the fraction (0.3), `text` what the author wrote."""

    value: float
    text: str
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class String:
    value: str
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Bool:
    value: bool
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Name:
    name: str
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Attribute:
    """`obj.name`, e.g. `intent.passed` or `case.reference`."""

    obj: Expr
    name: str
    span: Span = field(compare=False)
    name_span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Index:
    obj: Expr
    index: Expr
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class KeywordArg:
    name: str
    value: Expr
    span: Span = field(compare=False)
    name_span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Call:
    """A function call in an expression: `rate(x)`, `percentile(latency, 90)`."""

    func: str
    args: tuple[Expr, ...]
    kwargs: tuple[KeywordArg, ...]
    span: Span = field(compare=False)
    func_span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Unary:
    """`not x` or `-x`."""

    op: str
    operand: Expr
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Binary:
    """Arithmetic (`+ - * /`), logic (`and or`), comparison and `in`/`not in`."""

    op: str
    left: Expr
    right: Expr
    span: Span = field(compare=False)
    op_span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class ListLit:
    items: tuple[Expr, ...]
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class MapEntry:
    key: str
    value: Expr
    span: Span = field(compare=False)
    key_span: Span = field(compare=False)
    quoted: bool = field(default=False, compare=False)
    """Whether the key was written as a string (kept for formatting)."""


@dataclass(frozen=True, slots=True)
class MapLit:
    entries: tuple[MapEntry, ...]
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Group:
    """A parenthesised expression, kept so the formatter can keep the parentheses."""

    expr: Expr
    span: Span = field(compare=False)


Expr = (
    Number | Percent | String | Bool | Name | Attribute | Index | Call | Unary | Binary | ListLit
    | MapLit | Group
)

LOGIC_OPS = frozenset({"and", "or"})
COMPARE_OPS = frozenset({"==", "!=", "<", "<=", ">", ">="})
MEMBER_OPS = frozenset({"in", "not in"})
ARITH_OPS = frozenset({"+", "-", "*", "/"})

# ---------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class SpecHeader:
    title: str
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class CaseField:
    name: str
    type: str
    optional: bool
    span: Span = field(compare=False)
    name_span: Span = field(compare=False)
    type_span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class CaseBlock:
    fields: tuple[CaseField, ...]
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Option:
    """A table or review option: `casefold` (a flag, `value` is None) or `seed: 7`."""

    name: str
    value: Expr | None
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class TableEntry:
    sources: tuple[String, ...]
    target: String
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    options: tuple[Option, ...]
    entries: tuple[TableEntry, ...]
    span: Span = field(compare=False)
    name_span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Let:
    name: str
    value: Expr
    span: Span = field(compare=False)
    name_span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    primitive: str
    args: tuple[KeywordArg, ...]
    span: Span = field(compare=False)
    name_span: Span = field(compare=False)
    primitive_span: Span = field(compare=False)
    positional: tuple[Expr, ...] = field(default=(), compare=False)
    """Arguments written without a name; always a checker error (E014)."""

    def arg(self, name: str) -> KeywordArg | None:
        return next((a for a in self.args if a.name == name), None)


@dataclass(frozen=True, slots=True)
class Branch:
    """`label if condition`, or `label otherwise` when `condition` is None."""

    label: str
    condition: Expr | None
    span: Span = field(compare=False)
    label_span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Outcome:
    """An outcome block; `name` is None for the case verdict."""

    name: str | None
    branches: tuple[Branch, ...]
    span: Span = field(compare=False)
    name_span: Span | None = field(compare=False)


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    value: Expr
    where: Expr | None
    span: Span = field(compare=False)
    name_span: Span = field(compare=False)
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


@dataclass(frozen=True, slots=True)
class SampleRule:
    rate: Expr
    where: Expr | None
    priority: Expr | None
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Review:
    options: tuple[Option, ...]
    rules: tuple[SampleRule, ...]
    span: Span = field(compare=False)


ORDERINGS = ("<", "<=", ">", ">=")
"""The comparisons a windowed alert may make: a rate or mean above or below a line."""


@dataclass(frozen=True, slots=True)
class AlertWindow:
    """`over 1h [by case.tenant] min 30`: the window of arrival time, the groups of an
    aggregate written in place, and the fewest cases that may fire."""

    seconds: int
    text: str
    """The duration as written (`1h`), for the formatter and messages."""
    min_cases: Number | None
    span: Span = field(compare=False)
    by: tuple[Expr, ...] = ()


@dataclass(frozen=True, slots=True)
class Alert:
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
    span: Span = field(compare=False)
    name_span: Span = field(compare=False)
    message_span: Span = field(compare=False)
    metric: Metric | None = field(default=None, compare=False, metadata={"derived": True})
    """The metric an aggregate written in place makes; None for a declared metric's name."""

    def metric_name(self) -> str | None:
        """The metric a windowed alert compares: its own, or the name its condition compares
        (a declared metric, or an error the checker words); None when there is neither."""
        if self.metric is not None:
            return self.metric.name
        compared = ordering(self.when)
        left = unwrap(compared.left) if compared is not None else None
        return left.name if isinstance(left, Name) else None


@dataclass(frozen=True, slots=True)
class ExampleCase:
    """`case {field: value, ...}`: the case fields of an example."""

    fields: MapLit
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class ExampleMessage:
    """`user "text"` or `assistant "text" {latency_ms: 800, tool_calls: [...]}`."""

    role: str
    content: str
    extra: MapLit | None
    span: Span = field(compare=False)
    role_span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class ExampleGiven:
    """`given polite = 8` or `given intent.label = "inquiry"`: a pinned check result."""

    check: str
    field: str | None
    value: Expr
    span: Span = dataclasses.field(compare=False)
    check_span: Span = dataclasses.field(compare=False)


@dataclass(frozen=True, slots=True)
class ExampleExpect:
    condition: Expr
    span: Span = field(compare=False)


ExampleItem = ExampleCase | ExampleMessage | ExampleGiven | ExampleExpect


@dataclass(frozen=True, slots=True)
class Example:
    name: str
    items: tuple[ExampleItem, ...]
    span: Span = field(compare=False)


Statement = (
    SpecHeader | CaseBlock | Table | Let | Check | Outcome | Metric | Review | Example | Alert
)


@dataclass(frozen=True, slots=True)
class Comment:
    text: str
    """The comment including its `#`."""
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Module:
    """A whole parsed spec file."""

    statements: tuple[Statement, ...]
    comments: tuple[Comment, ...]
    span: Span = field(compare=False)

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
    for f in fields(node):  # type: ignore[arg-type]
        if f.name.endswith("span") or f.metadata.get("derived"):
            continue  # a derived field repeats nodes that are already children
        value = getattr(node, f.name)
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
