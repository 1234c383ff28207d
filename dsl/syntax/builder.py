"""Parsed rules to AST nodes: one method per grammar rule, shared by both parsing paths.

`Builder` knows nothing of lark: the fast path (`evaldsl.syntax.fastparse`)
calls its methods directly with its own tokens and positions, and lark's
reference path (`evaldsl.syntax.larkparse`) calls the same methods through a
transformer. Either way a method receives the rule's position (`meta`) and
its kept children, so both paths build the same nodes with the same spans.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Protocol

from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Source, Span

IDENTITY_CALLBACKS = frozenset({"or_chain", "and_chain", "name_ref", "positional_call_arg"})
"""Builder methods that return their only child unchanged when given one."""


class Token(Protocol):
    """A token as the builder reads it: its text (`str(token)`) and its position."""

    @property
    def line(self) -> int | None: ...
    @property
    def column(self) -> int | None: ...
    @property
    def end_line(self) -> int | None: ...
    @property
    def end_column(self) -> int | None: ...


class Meta(Protocol):
    """A rule's position; `empty` when the rule matched no token."""

    empty: bool
    line: int
    column: int
    end_line: int
    end_column: int


def token_span(token: Token, file: str) -> Span:
    """The span of one token (positions are 1-based, the end exclusive)."""
    return Span(
        file,
        token.line or 1,
        token.column or 1,
        token.end_line or token.line or 1,
        token.end_column or (token.column or 1) + 1,
    )


def comment(token: Token, file: str) -> n.Comment:
    """A comment node from a comment token, trailing white space dropped."""
    return n.Comment(str(token).rstrip(), token_span(token, file))


def _unquote(token: Token) -> str:
    raw = str(token)[1:-1]
    if "\\" not in raw:
        return raw
    return _ESCAPES_RE.sub(_unescape, raw)


_ESCAPES_RE = re.compile(
    r"\\(u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)")
"""An escape: a surrogate pair first (one character, as in JSON), `\\uXXXX`, one letter."""
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}


def _unescape(match: re.Match[str]) -> str:
    body = match.group(1)
    if body.startswith("u") and len(body) == 11:
        high, low = int(body[1:5], 16), int(body[7:], 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    if body.startswith("u") and len(body) == 5:
        return chr(int(body[1:], 16))
    return _SIMPLE_ESCAPES.get(body, "\\" + body)


class Builder:
    """Builds AST nodes bottom-up; every node gets its span from its rule's position."""

    def __init__(self, source: Source) -> None:
        self._file = source.name

    def _span(self, meta: Meta) -> Span:
        if getattr(meta, "empty", True):
            return Span.point(self._file, 1, 1)
        return Span(self._file, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tspan(self, token: Token) -> Span:
        return token_span(token, self._file)

    # names and literals ------------------------------------------------

    def name(self, meta: Meta, token: Token) -> n.Name:
        return n.Name(str(token), self._tspan(token))

    def name_ref(self, meta: Meta, name: n.Name) -> n.Name:
        return name

    def number(self, meta: Meta, token: Token) -> n.Number:
        return n.Number(float(str(token)), str(token), self._span(meta))

    def percent(self, meta: Meta, token: Token) -> n.Percent:
        return n.Percent(float(str(token)[:-1]) / 100, str(token), self._span(meta))

    def string(self, meta: Meta, token: Token) -> n.String:
        return n.String(_unquote(token), self._span(meta))

    def true(self, meta: Meta) -> n.Bool:
        return n.Bool(True, self._span(meta))

    def false(self, meta: Meta) -> n.Bool:
        return n.Bool(False, self._span(meta))

    def group(self, meta: Meta, expr: n.Expr) -> n.Group:
        return n.Group(expr, self._span(meta))

    def list_lit(self, meta: Meta, *items: n.Expr) -> n.ListLit:
        return n.ListLit(tuple(items), self._span(meta))

    def map(self, meta: Meta, *entries: n.MapEntry) -> n.MapLit:
        return n.MapLit(tuple(entries), self._span(meta))

    def map_entry(self, meta: Meta, key: n.Name | Token, value: n.Expr) -> n.MapEntry:
        if isinstance(key, n.Name):
            return n.MapEntry(key.name, value, self._span(meta), key.span)
        return n.MapEntry(_unquote(key), value, self._span(meta), self._tspan(key), quoted=True)

    # operators -----------------------------------------------------------

    def or_chain(self, meta: Meta, *operands: n.Expr) -> n.Expr:
        return self._chain("or", operands)

    def and_chain(self, meta: Meta, *operands: n.Expr) -> n.Expr:
        return self._chain("and", operands)

    def _chain(self, op: str, operands: tuple[n.Expr, ...]) -> n.Expr:
        result = operands[0]
        for right in operands[1:]:
            span = result.span.to(right.span)
            result = n.Binary(op, result, right, span, _between(result.span, right.span))
        return result

    def not_op(self, meta: Meta, operand: n.Expr) -> n.Unary:
        return n.Unary("not", operand, self._span(meta))

    def negate(self, meta: Meta, operand: n.Expr) -> n.Unary:
        return n.Unary("-", operand, self._span(meta))

    def compare(self, meta: Meta, left: n.Expr, op: Token, right: n.Expr) -> n.Binary:
        return n.Binary(str(op), left, right, self._span(meta), self._tspan(op))

    def binary(self, meta: Meta, left: n.Expr, op: Token, right: n.Expr) -> n.Binary:
        return n.Binary(str(op), left, right, self._span(meta), self._tspan(op))

    def contains(self, meta: Meta, left: n.Expr, right: n.Expr) -> n.Binary:
        return n.Binary("in", left, right, self._span(meta), _between(left.span, right.span))

    def not_contains(self, meta: Meta, left: n.Expr, right: n.Expr) -> n.Binary:
        return n.Binary("not in", left, right, self._span(meta), _between(left.span, right.span))

    def attribute(self, meta: Meta, obj: n.Expr, name: n.Name) -> n.Attribute:
        return n.Attribute(obj, name.name, self._span(meta), name.span)

    def index(self, meta: Meta, obj: n.Expr, index: n.Expr) -> n.Index:
        return n.Index(obj, index, self._span(meta))

    def call(self, meta: Meta, func: n.Name, *args: Any) -> n.Call:
        positional = tuple(a for a in args if not isinstance(a, n.KeywordArg))
        keywords = tuple(a for a in args if isinstance(a, n.KeywordArg))
        return n.Call(func.name, positional, keywords, self._span(meta), func.span)

    def positional_call_arg(self, meta: Meta, expr: n.Expr) -> n.Expr:
        return expr

    def keyword_call_arg(self, meta: Meta, name: n.Name, value: n.Expr) -> n.KeywordArg:
        return n.KeywordArg(name.name, value, self._span(meta), name.span)

    def keyword_arg(self, meta: Meta, name: n.Name, value: n.Expr) -> n.KeywordArg:
        return n.KeywordArg(name.name, value, self._span(meta), name.span)

    def flag_arg(self, meta: Meta, name: n.Name) -> n.Name:
        return name

    def positional_arg(self, meta: Meta, expr: n.Expr) -> _Positional:
        return _Positional(expr)

    # statements ----------------------------------------------------------

    def start(self, meta: Meta, *statements: n.Statement) -> n.Module:
        return n.Module(tuple(statements), (), self._span(meta))

    def spec_header(self, meta: Meta, title: Token) -> n.SpecHeader:
        return n.SpecHeader(_unquote(title), self._span(meta))

    def case_block(self, meta: Meta, *fields: n.CaseField) -> n.CaseBlock:
        return n.CaseBlock(tuple(fields), self._span(meta))

    def case_field(
        self, meta: Meta, name: n.Name, type_: n.Name, optional: Token | None = None
    ) -> n.CaseField:
        return n.CaseField(
            name.name, type_.name, optional is not None, self._span(meta), name.span, type_.span
        )

    def table_def(self, meta: Meta, name: n.Name, *rest: Any) -> n.Table:
        options: tuple[n.Option, ...] = ()
        if rest and isinstance(rest[0], tuple):
            options, rest = rest[0], rest[1:]
        return n.Table(name.name, options, tuple(rest), self._span(meta), name.span)

    def table_options(self, meta: Meta, *args: Any) -> tuple[n.Option, ...]:
        return tuple(self._option(a) for a in args)

    review_options = table_options

    def _option(self, arg: Any) -> n.Option:
        if isinstance(arg, n.KeywordArg):
            return n.Option(arg.name, arg.value, arg.span)
        if isinstance(arg, n.Name):
            return n.Option(arg.name, None, arg.span)
        expr = arg.expr
        return n.Option("", expr, expr.span)

    def table_entry(self, meta: Meta, *strings: Token) -> n.TableEntry:
        literals = tuple(n.String(_unquote(t), self._tspan(t)) for t in strings)
        return n.TableEntry(literals[:-1], literals[-1], self._span(meta))

    def let_def(self, meta: Meta, name: n.Name, value: n.Expr) -> n.Let:
        return n.Let(name.name, value, self._span(meta), name.span)

    def check_def(self, meta: Meta, name: n.Name, primitive: n.Name, *args: Any) -> n.Check:
        keywords = tuple(a for a in args if isinstance(a, n.KeywordArg))
        positional = tuple(
            a.expr if isinstance(a, _Positional) else a
            for a in args
            if not isinstance(a, n.KeywordArg)
        )
        return n.Check(
            name.name, primitive.name, keywords, self._span(meta), name.span, primitive.span,
            positional,
        )

    def outcome_def(self, meta: Meta, *parts: Any) -> n.Outcome:
        name = parts[0] if parts and isinstance(parts[0], n.Name) else None
        branches = tuple(p for p in parts if isinstance(p, n.Branch))
        return n.Outcome(
            name.name if name else None, branches, self._span(meta), name.span if name else None
        )

    def when_branch(self, meta: Meta, label: n.Name, condition: n.Expr) -> n.Branch:
        return n.Branch(label.name, condition, self._span(meta), label.span)

    def otherwise_branch(self, meta: Meta, label: n.Name) -> n.Branch:
        return n.Branch(label.name, None, self._span(meta), label.span)

    def metric_def(self, meta: Meta, name: n.Name, value: n.Expr, *clauses: Any) -> n.Metric:
        where = next((c for c in clauses if not isinstance(c, (_By, _Direction))), None)
        by = next((c.keys for c in clauses if isinstance(c, _By)), ())
        better = next((c.words for c in clauses if isinstance(c, _Direction)), None)
        return n.Metric(name.name, value, where, self._span(meta), name.span, by, better)

    def lower_is_better(self, meta: Meta) -> _Direction:
        return _Direction("lower is better")

    def lower_is_better_zh(self, meta: Meta) -> _Direction:
        return _Direction("越低越好")

    def higher_is_better(self, meta: Meta) -> _Direction:
        return _Direction("higher is better")

    def higher_is_better_zh(self, meta: Meta) -> _Direction:
        return _Direction("越高越好")

    def where_clause(self, meta: Meta, expr: n.Expr) -> n.Expr:
        return expr

    def by_clause(self, meta: Meta, *keys: n.Expr) -> _By:
        return _By(keys)

    def priority_clause(self, meta: Meta, expr: n.Expr) -> _Priority:
        return _Priority(expr)

    def review_def(self, meta: Meta, *parts: Any) -> n.Review:
        options: tuple[n.Option, ...] = ()
        if parts and isinstance(parts[0], tuple):
            options, parts = parts[0], parts[1:]
        return n.Review(options, tuple(parts), self._span(meta))

    def sample_rule(self, meta: Meta, rate: n.Expr, *clauses: Any) -> n.SampleRule:
        where = next((c for c in clauses if not isinstance(c, _Priority)), None)
        priority = next((c.expr for c in clauses if isinstance(c, _Priority)), None)
        return n.SampleRule(rate, where, priority, self._span(meta))

    def alert_def(self, meta: Meta, name: n.Name, when: n.Expr, *rest: Any) -> n.Alert:
        window = rest[0] if len(rest) == 2 else None
        message = rest[-1]
        metric = _inline_metric(name, when, window)
        return n.Alert(name.name, when, window, _unquote(message), self._span(meta), name.span,
                       self._tspan(message), metric)

    def alert_window(self, meta: Meta, duration: Token, *clauses: Any) -> n.AlertWindow:
        text = str(duration)
        seconds = int(text[:-1]) * _SECONDS[text[-1]]
        by = next((c.keys for c in clauses if isinstance(c, _By)), ())
        least = next((c for c in clauses if isinstance(c, n.Number)), None)
        return n.AlertWindow(seconds, text, least, self._span(meta), by)

    def alert_min(self, meta: Meta, token: Token) -> n.Number:
        return n.Number(float(str(token)), str(token), self._tspan(token))

    def example_def(self, meta: Meta, title: Token, *items: n.ExampleItem) -> n.Example:
        return n.Example(_unquote(title), tuple(items), self._span(meta))

    def example_case(self, meta: Meta, fields: n.MapLit) -> n.ExampleCase:
        return n.ExampleCase(fields, self._span(meta))

    def example_message(
        self, meta: Meta, role: n.Name, content: Token, extra: n.MapLit | None = None
    ) -> n.ExampleMessage:
        return n.ExampleMessage(role.name, _unquote(content), extra, self._span(meta), role.span)

    def example_given(self, meta: Meta, check: n.Name, *rest: Any) -> n.ExampleGiven:
        field_name = rest[0].name if len(rest) == 2 else None
        return n.ExampleGiven(check.name, field_name, rest[-1], self._span(meta), check.span)

    def example_expect(self, meta: Meta, condition: n.Expr) -> n.ExampleExpect:
        return n.ExampleExpect(condition, self._span(meta))


class _Positional(NamedTuple):
    expr: n.Expr


def _inline_metric(name: n.Name, when: n.Expr, window: n.AlertWindow | None) -> n.Metric | None:
    """The metric of a windowed alert that compares an aggregate written in place.

    `when rate(poor) > 10% over 1h by case.tenant` is read as the metric
    `NAME = rate(poor) by case.tenant`; a bare name on the left is a declared
    metric (or an error the checker words: E601), so it makes none.
    """
    if window is None:
        return None
    compared = n.ordering(when)
    if compared is None or isinstance(n.unwrap(compared.left), n.Name):
        return None
    return n.Metric(name.name, compared.left, None, compared.span, name.span, window.by)


class _Priority(NamedTuple):
    expr: n.Expr


_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
"""Seconds per unit of a duration (`30s`, `15m`, `1h`, `1d`)."""


class _By(NamedTuple):
    """A metric's `by` clause, told apart from its `where` by type."""

    keys: tuple[n.Expr, ...]


class _Direction(NamedTuple):
    """A metric's direction clause, as written (`lower is better`, `越低越好`)."""

    words: str


def _between(left: Span, right: Span) -> Span:
    return Span(left.file, left.end_line, left.end_col, right.line, right.col)
