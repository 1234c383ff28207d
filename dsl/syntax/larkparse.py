"""lark's own parser: the reference path, and the only one that words syntax errors.

`evaldsl.syntax.parser` takes this path for whatever the fast path leaves
(every syntax error, unusually deep nesting), so lark is imported and its
parser built only when a spec needs it. The parse tree is turned into AST
nodes by the same `Builder` methods the fast path calls.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.tree import Meta

from evaldsl import grammar
from evaldsl.diagnostics import Diagnostic, error
from evaldsl.i18n import N_, _
from evaldsl.syntax import nodes as n
from evaldsl.syntax.builder import Builder, comment, token_span
from evaldsl.syntax.messages import (
    FULLWIDTH_HINTS,
    describe_unexpected_eof,
    describe_unexpected_token,
)
from evaldsl.syntax.source import Source, Span


def parse_module(text: str, source: Source) -> tuple[n.Module | None, list[Diagnostic]]:
    """lark's parse tree, then the builder; a worded diagnostic for a syntax error."""
    comments: list[Token] = []
    try:
        tree = _parse_tree(text, comments)
    except UnexpectedInput as exc:
        return None, [_syntax_diagnostic(exc, source)]
    try:
        module = _ToBuilder(Builder(source)).transform(tree)
    except RecursionError:
        return None, [_too_deep(source)]
    found = tuple(comment(t, source.name) for t in comments)
    return n.Module(module.statements, found, module.span), []


class _ToBuilder(Transformer[Token, n.Module]):
    """Hands every rule of lark's tree to the `Builder` method of the same name."""

    def __init__(self, builder: Builder) -> None:
        super().__init__()
        self._builder = builder

    def __default__(self, data: Any, children: list[Any], meta: Meta) -> Any:
        return getattr(self._builder, str(data))(meta, *children)


def _too_deep(source: Source) -> Diagnostic:
    return error(
        "E003",
        _("the spec nests expressions too deeply to read"),
        Span.point(source.name, 1, 1),
        _("name inner parts with `let` to flatten long chains of `not` or `-`"),
    )


_local = threading.local()


@lru_cache(maxsize=1)
def lark() -> Lark:
    """The LALR parser, built once per process from the grammar."""
    return Lark(
        grammar.text(),
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
        return lark().parse(text)
    finally:
        _local.comments = []


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
    return error(code, message, token_span(exc.token, source.name), hint)


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
            _("this text is not closed before the end of the line"),
            span,
            _("end the text with a matching {ch}; use \\n for a line break inside text").format(
                ch=ch
            ),
        )
    hint = _(FULLWIDTH_HINTS.get(ch, N_("remove it, or put it inside a quoted text")))
    return error("E010", _("unexpected character `{ch}`").format(ch=ch), span, hint)


def _end_span(source: Source) -> Span:
    line = source.line_count
    text = source.line_text(line)
    while line > 1 and not text.strip():
        line -= 1
        text = source.line_text(line)
    return Span.point(source.name, line, max(1, len(text)))
