"""Source text to a `Module`: the only module that imports lark.

`parse` never raises for bad input: it returns the module it could build (or
None) with diagnostics. Syntax errors are worded for people who do not know
token names: see `syntax_messages`.

Valid input takes the fast path of `evaldsl.syntax.fastparse` (lark's own LALR tables
run by a small loop, four to five times faster); anything it cannot decide,
every syntax error included, goes through lark itself, so both paths build
the same module with the same spans.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from importlib import resources
from typing import Any, NamedTuple

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.parsers.lalr_analysis import Shift
from lark.tree import Meta

from evaldsl.diagnostics import Diagnostic, error
from evaldsl.syntax import nodes as n
from evaldsl.syntax.fastparse import (
    CALL,
    SPLICE,
    Fallback,
    FastToken,
    RuleShape,
    Tables,
    parse_fast,
)
from evaldsl.syntax.messages import (
    FULLWIDTH_HINTS,
    describe_unexpected_eof,
    describe_unexpected_token,
)
from evaldsl.syntax.source import Source, Span

MAX_SPEC_BYTES = 1_000_000
MAX_NESTING = 64


class ParseResult(NamedTuple):
    module: n.Module | None
    diagnostics: list[Diagnostic]
    source: Source


def parse(text: str | bytes, name: str = "<spec>") -> ParseResult:
    """Parse spec text (or raw bytes) into a module, reporting problems as diagnostics."""
    decoded = _decode(text, name)
    if isinstance(decoded, Diagnostic):
        return ParseResult(None, [decoded], Source("", name))
    source = Source(decoded, name)
    problem = _input_problem(source)
    if problem is not None:
        return ParseResult(None, [problem], source)
    fast = _fast_module(decoded, source)
    if fast is not None:
        return ParseResult(fast, [], source)
    return _lark_module(decoded, source)


def _lark_module(text: str, source: Source) -> ParseResult:
    """The reference path: lark's parse tree, then the builder; worded syntax errors."""
    comments: list[Token] = []
    try:
        tree = _parse_tree(text, comments)
    except UnexpectedInput as exc:
        return ParseResult(None, [_syntax_diagnostic(exc, source)], source)
    try:
        module = _Builder(source).transform(tree)
    except RecursionError:
        return ParseResult(None, [_too_deep(source)], source)
    found = tuple(_comment(t, source.name) for t in comments)
    return ParseResult(n.Module(module.statements, found, module.span), [], source)


def _fast_module(text: str, source: Source) -> n.Module | None:
    """The same module by the fast path (see `evaldsl.syntax.fastparse`), or None to use lark."""
    tables = _fast_tables()
    if tables is None:
        return None
    try:
        module, comments = parse_fast(text, tables, _Builder(source))
    except Fallback:
        return None
    found = tuple(_comment(t, source.name) for t in comments)
    return n.Module(module.statements, found, module.span)


@lru_cache(maxsize=1)
def _fast_tables() -> Tables | None:
    """lark's LALR tables and tree-shaping rules as plain data; None if they do not fit."""
    lark = _lark()
    table = lark.parser.parser.parser.parse_table
    index = {rule: i for i, rule in enumerate(lark.rules)}
    shapes = [_shape(rule) for rule in lark.rules]
    if any(shape is None for shape in shapes):
        return None
    states = {
        state: {str(sym): (action is Shift, arg if action is Shift else index[arg])
                for sym, (action, arg) in actions.items()}
        for state, actions in table.states.items()
    }
    keywords, operators = _literal_terminals(lark)
    kept = frozenset(str(sym.name) for rule in lark.rules for sym in rule.expansion
                     if sym.is_term and not getattr(sym, "filter_out", False))
    rules = [s for s in shapes if s is not None]
    wrapping = frozenset(i for i, rule in enumerate(rules) if rule.wraps)
    return Tables(states, table.start_states["start"], table.end_states["start"], rules, keywords,
                  operators, kept, wrapping)


def _shape(rule: Any) -> RuleShape | None:
    if rule.options.keep_all_tokens:
        return None
    origin = str(rule.origin.name)
    kept = tuple(i for i, sym in enumerate(rule.expansion)
                 if not (sym.is_term and sym.filter_out))
    spliced = frozenset(i for i in kept if not rule.expansion[i].is_term
                        and rule.expansion[i].name.startswith("_"))
    expand1 = bool(rule.options.expand1) and not rule.alias
    if origin.startswith("_"):
        return RuleShape(len(rule.expansion), origin, kept, spliced, SPLICE, expand1, None)
    name = str(rule.alias or origin)
    callback = getattr(_Builder.__dict__.get(name), "base_func", None)
    if callback is None and not (expand1 and len(kept) == 1):
        return None
    single = len(rule.expansion) == 1 and kept == (0,) and not spliced
    unit = single and (expand1 or name in _IDENTITY_CALLBACKS)
    return RuleShape(len(rule.expansion), origin, kept, spliced, CALL, expand1, callback, unit)


_IDENTITY_CALLBACKS = frozenset({"or_chain", "and_chain", "name_ref", "positional_call_arg"})
"""Builder methods that return their only child unchanged when given one."""


def _literal_terminals(lark: Lark) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """Keyword text -> terminal, and operator text -> terminals (string terminals first)."""
    keywords: dict[str, str] = {}
    operators: dict[str, list[str]] = {}
    regular = ("NAME", "NUMBER", "PERCENT", "STRING", "COMMENT")
    for terminal in sorted(lark.terminals, key=lambda t: t.pattern.type != "str"):
        if terminal.name in regular or terminal.name.startswith("__IGNORE"):
            continue
        if terminal.pattern.type == "str" and terminal.pattern.value.isidentifier():
            keywords[terminal.pattern.value] = terminal.name
            continue
        for op in _OPERATORS:
            if re.fullmatch(terminal.pattern.to_regexp(), op):
                operators.setdefault(op, []).append(terminal.name)
    return keywords, {op: tuple(names) for op, names in operators.items()}


_OPERATORS = ("->", "==", "!=", "<=", ">=", "<", ">", "=", "+", "-", "*", "/", "(", ")", "{",
              "}", "[", "]", ",", ":", ".", "?")


def parse_expression(text: str, name: str = "<expr>") -> n.Expr:
    """Parse a single expression (used by tests and the API); raises on errors."""
    result = parse(f"let __expr__ = {text}", name)
    if result.module is None:
        raise ValueError(result.diagnostics[0].message)
    let = result.module.statements[0]
    assert isinstance(let, n.Let)
    return let.value


# ---------------------------------------------------------------- input guards


def _decode(text: str | bytes, name: str) -> str | Diagnostic:
    if isinstance(text, str):
        return text
    try:
        return text.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = text.count(b"\n", 0, exc.start) + 1
        col = exc.start - (text.rfind(b"\n", 0, exc.start) + 1) + 1
        return error(
            "E001",
            f"the file is not UTF-8 text (byte 0x{text[exc.start]:02x} at offset {exc.start})",
            Span.point(name, line, col),
            "save the spec as UTF-8; `.eval` files are text",
        )


def _input_problem(source: Source) -> Diagnostic | None:
    text = source.text
    if len(text) > MAX_SPEC_BYTES:
        return error(
            "E002",
            f"the file has {len(text):,} characters, more than a spec may have"
            f" ({MAX_SPEC_BYTES:,})",
            Span.point(source.name, 1, 1),
            "split it into several specs, or keep data in case files instead of the spec",
        )
    nul = text.find("\x00")
    if nul >= 0:
        return error(
            "E001",
            "the file contains a NUL character: it looks binary, not like a spec",
            source.span(nul, nul + 1),
            "`.eval` files are UTF-8 text",
        )
    return _nesting_problem(source)


def _nesting_problem(source: Source) -> Diagnostic | None:
    depth = 0
    for match in _BRACKETS.finditer(source.text):
        if match.group() in "([{":
            depth += 1
            if depth > MAX_NESTING:
                offset = match.start()
                return error(
                    "E003",
                    f"brackets are nested more than {MAX_NESTING} levels deep",
                    source.span(offset, offset + 1),
                    "name an inner part with `let` to flatten the expression",
                )
        else:
            depth = max(0, depth - 1)
    return None


_BRACKETS = re.compile(r"[()\[\]{}]")


def _too_deep(source: Source) -> Diagnostic:
    return error(
        "E003",
        "the spec nests expressions too deeply to read",
        Span.point(source.name, 1, 1),
        "name inner parts with `let` to flatten long chains of `not` or `-`",
    )


# ---------------------------------------------------------------- lark


_local = threading.local()


@lru_cache(maxsize=1)
def _lark() -> Lark:
    grammar = resources.files("evaldsl.grammar").joinpath("evaldsl.lark").read_text("utf-8")
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=False,
        lexer_callbacks={"COMMENT": _collect_comment},
    )


def _collect_comment(token: Token) -> Token:
    _local.comments.append(token)
    return token


def _parse_tree(text: str, comments: list[Token]) -> Any:
    _local.comments = comments
    try:
        return _lark().parse(text)
    finally:
        _local.comments = []


def _comment(token: Token | FastToken, file: str) -> n.Comment:
    return n.Comment(str(token).rstrip(), _token_span(token, file))


def _token_span(token: Token | FastToken, file: str) -> Span:
    return Span(
        file,
        token.line or 1,
        token.column or 1,
        token.end_line or token.line or 1,
        token.end_column or (token.column or 1) + 1,
    )


def _syntax_diagnostic(exc: UnexpectedInput, source: Source) -> Diagnostic:
    if isinstance(exc, UnexpectedCharacters):
        return _unexpected_character(exc, source)
    if isinstance(exc, UnexpectedEOF):
        message, hint = describe_unexpected_eof(exc.expected)
        return error("E012", message, _end_span(source), hint)
    assert isinstance(exc, UnexpectedToken)
    if exc.token.type == "$END":
        message, hint = describe_unexpected_eof(exc.accepts or exc.expected)
        return error("E012", message, _end_span(source), hint)
    message, hint, code = describe_unexpected_token(
        exc.token, exc.accepts or exc.expected, _previous_tokens(exc)
    )
    return error(code, message, _token_span(exc.token, source.name), hint)


def _previous_tokens(exc: UnexpectedToken) -> list[Token]:
    """The tokens already shifted on the parser stack, oldest first."""
    state = getattr(exc, "state", None) or getattr(exc, "interactive_parser", None)
    stack = getattr(getattr(state, "parser_state", state), "value_stack", None) or []
    out: list[Token] = []
    for item in stack:
        if isinstance(item, Token):
            out.append(item)
        elif hasattr(item, "scan_values"):
            out.extend(item.scan_values(lambda v: isinstance(v, Token)))
    return out


def _unexpected_character(exc: UnexpectedCharacters, source: Source) -> Diagnostic:
    line, col = exc.line, exc.column
    ch = source.line_text(line)[col - 1 : col] or "?"
    span = Span(source.name, line, col, line, col + 1)
    if ch in "\"'":
        return error(
            "E013",
            "this text is not closed before the end of the line",
            span,
            f"end the text with a matching {ch}; use \\n for a line break inside text",
        )
    hint = FULLWIDTH_HINTS.get(ch, "remove it, or put it inside a quoted text")
    return error("E010", f"unexpected character `{ch}`", span, hint)


def _end_span(source: Source) -> Span:
    line = source.line_count
    text = source.line_text(line)
    while line > 1 and not text.strip():
        line -= 1
        text = source.line_text(line)
    return Span.point(source.name, line, max(1, len(text)))


# ---------------------------------------------------------------- tree to AST


def _unquote(token: Token) -> str:
    raw = str(token)[1:-1]
    if "\\" not in raw:
        return raw
    return _ESCAPES_RE.sub(_unescape, raw)



_ESCAPES_RE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}


def _unescape(match: re.Match[str]) -> str:
    body = match.group(1)
    if body.startswith("u") and len(body) == 5:
        return chr(int(body[1:], 16))
    return _SIMPLE_ESCAPES.get(body, "\\" + body)


@v_args(meta=True, inline=True)
class _Builder(Transformer[Token, n.Module]):
    """Builds AST nodes bottom-up; every node gets its span from lark's meta."""

    def __init__(self, source: Source) -> None:
        super().__init__()
        self._file = source.name

    def _span(self, meta: Meta) -> Span:
        if getattr(meta, "empty", True):
            return Span.point(self._file, 1, 1)
        return Span(self._file, meta.line, meta.column, meta.end_line, meta.end_column)

    def _tspan(self, token: Token) -> Span:
        return _token_span(token, self._file)

    # names and literals ------------------------------------------------

    def name(self, meta: Meta, token: Token) -> n.Name:
        return n.Name(str(token), self._tspan(token))

    def name_ref(self, meta: Meta, name: n.Name) -> n.Name:
        return name

    def number(self, meta: Meta, token: Token) -> n.Number:
        return n.Number(float(token), str(token), self._span(meta))

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

    def metric_def(
        self, meta: Meta, name: n.Name, value: n.Expr, where: n.Expr | None = None
    ) -> n.Metric:
        return n.Metric(name.name, value, where, self._span(meta), name.span)

    def where_clause(self, meta: Meta, expr: n.Expr) -> n.Expr:
        return expr

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


class _Priority(NamedTuple):
    expr: n.Expr


def _between(left: Span, right: Span) -> Span:
    return Span(left.file, left.end_line, left.end_col, right.line, right.col)
