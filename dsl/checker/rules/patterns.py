"""Texts with a language of their own: regular expressions (E206) and JSON schemas (E209).

A broken pattern or schema would otherwise fail on the first case of a long
run; both are compiled here, at check time, with the same libraries the
runtime uses (`regex` and `jsonschema`), and the caret points at the
offending character or schema keyword.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import regex
from pydantic import BaseModel

from evaldsl.checker.facts.annotations import param_fields_of
from evaldsl.checker.facts.arguments import arguments
from evaldsl.checker.facts.context import Context, sub_exprs, unwrap
from evaldsl.diagnostics import Diagnostic, error
from evaldsl.i18n import N_, _
from evaldsl.primitives.registry import Primitive
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Span

REGEX_PARAMS = frozenset({"pattern", "patterns"})
SCHEMA_PARAMS = frozenset({"schema"})


def invalid_regexes(ctx: Context) -> Iterator[Diagnostic]:
    """E206 for every pattern argument that does not compile."""
    for check in ctx.checks:
        args = arguments(ctx, check)
        if args is None:
            continue
        for name in regex_fields(args.primitive) & args.constants.keys():
            for pattern in _texts(args.constants[name]):
                problem = regex_error(pattern)
                if problem is not None:
                    yield _regex_diagnostic(ctx, args.given[name].value, pattern, *problem)


def invalid_schemas(ctx: Context) -> Iterator[Diagnostic]:
    """E209 for a `schema` argument that is not a valid JSON Schema."""
    for check in ctx.checks:
        args = arguments(ctx, check)
        if args is None:
            continue
        for name in schema_fields(args.primitive) & args.constants.keys():
            problem = schema_error(args.constants[name])
            if problem is not None:
                message, path = problem
                where = _locate(args.given[name].value, path, ctx)
                at = _(" (at `{join}`)").format(join=".".join(path)) if path else ""
                yield error(
                    "E209",
                    _("`{name}` is not a valid JSON schema: {message}{at}").format(
                        name=name, message=message, at=at
                    ),
                    where,
                    _("see https://json-schema.org/understanding-json-schema/"),
                )


def bad_fields(ctx: Context, check: n.Check) -> set[str]:
    """Arguments of `check` already reported as a broken pattern or schema."""
    args = arguments(ctx, check)
    if args is None:
        return set()
    bad = {name for name in regex_fields(args.primitive) & args.constants.keys()
           if any(regex_error(p) for p in _texts(args.constants[name]))}
    bad |= {name for name in schema_fields(args.primitive) & args.constants.keys()
            if schema_error(args.constants[name]) is not None}
    return bad


def regex_fields(primitive: Primitive) -> frozenset[str]:
    return _fields_with(primitive.params, REGEX_PARAMS, "regex")


def schema_fields(primitive: Primitive) -> frozenset[str]:
    return _fields_with(primitive.params, SCHEMA_PARAMS, "json-schema")


@lru_cache(maxsize=512)
def _fields_with(model: type[BaseModel], names: frozenset[str], fmt: str) -> frozenset[str]:
    out = set()
    for name, info in param_fields_of(model).items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        if name in names or extra.get("format") == fmt:
            out.add(name)
    return frozenset(out)


@lru_cache(maxsize=1024)
def regex_error(pattern: str) -> tuple[str, int] | None:
    """(message, offset) when `pattern` does not compile, else None."""
    try:
        regex.compile(pattern)
    except regex.error as exc:
        msg, pos = str(exc.msg), int(exc.pos or 0)
        if msg == "missing )":
            pos = unclosed_parenthesis(pattern, pos)
        return msg, pos
    except (ValueError, OverflowError, RecursionError) as exc:
        return str(exc), 0
    return None


REGEX_MESSAGES = {
    "missing )": N_("`(` is not closed"),
    "unbalanced parenthesis": N_("`)` closes nothing"),
    "nothing to repeat": N_("a repeat (`*`, `+`, `?`, `{n}`) follows nothing"),
    "multiple repeat": N_("a repeat follows another repeat"),
    "unterminated character set": N_("`[` is not closed"),
    "bad escape (end of pattern)": N_("the pattern ends with a lone backslash"),
    "min repeat greater than max repeat": N_("`{m,n}` repeats at least more than at most"),
}
"""The regex library's messages in words of the catalogue; others are shown as they are."""


def regex_message(message: str) -> str:
    return _(REGEX_MESSAGES[message]) if message in REGEX_MESSAGES else message


def unclosed_parenthesis(pattern: str, fallback: int) -> int:
    """The offset of the last `(` of `pattern` left open (escapes and `[...]` skipped).

    >>> unclosed_parenthesis("a(b(c)d", 7)
    1
    """
    opened: list[int] = []
    i, in_set = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_set:
            in_set = ch != "]"
        elif ch == "[":
            in_set = True
        elif ch == "(":
            opened.append(i)
        elif ch == ")" and opened:
            opened.pop()
        i += 1
    return opened[-1] if opened else fallback


def schema_error(schema: Any) -> tuple[str, list[str]] | None:
    """(message, path) when `schema` is not a valid JSON Schema, else None."""
    if not isinstance(schema, (dict, bool)):
        return _('a schema must be a map such as `{type: "object"}`'), []
    if schema in ({}, True, False):
        return None  # valid in every draft, and known so without loading a validator
    return _schema_error(json.dumps(schema, sort_keys=True))


@lru_cache(maxsize=256)
def _schema_error(text: str) -> tuple[str, list[str]] | None:
    from jsonschema import Draft202012Validator, SchemaError, validators  # only specs with schemas

    schema = json.loads(text)
    cls = validators.validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        return exc.message, [str(p) for p in exc.path]
    return None


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)


def _regex_diagnostic(ctx: Context, expr: n.Expr, pattern: str, message: str,
                      offset: int) -> Diagnostic:
    literal = _find_string(ctx, expr, pattern, set())
    span = expr.span
    if literal is not None:
        span = literal.span
        written = ctx.source.line_text(span.line)[span.col: span.end_col - 2]
        written_at = _written_offset(written, pattern, offset)
        if span.line == span.end_line and written_at is not None:
            col = span.col + 1 + written_at
            span = Span(span.file, span.line, col, span.line, col + 1)
    return error(
        "E206",
        _("invalid regular expression: {message}").format(message=regex_message(message)),
        span,
        _("escape characters that have a meaning in patterns, e.g. `\\\\(` for `(`"),
    )


def _written_offset(written: str, value: str, offset: int) -> int | None:
    """Where character `offset` of a text's value stands in the text as written between its
    quotes (`\\d` is two characters written for one); None when they do not line up."""
    if len(written) == len(value):
        return min(offset, len(written))
    starts, i = [], 0
    while i < len(written):
        if written[i] == "\\" and written[i + 1: i + 2] in ("u", "U", "x"):
            return None
        starts.append(i)
        i += 2 if written[i] == "\\" else 1
    if len(starts) != len(value):
        return None
    return starts[offset] if offset < len(starts) else len(written)


def _find_string(ctx: Context, expr: n.Expr, value: str, seen: set[str]) -> n.String | None:
    for e in sub_exprs(expr):
        if isinstance(e, n.String) and e.value == value:
            return e
        if isinstance(e, n.Name) and e.name in ctx.symbols.lets and e.name not in seen:
            seen.add(e.name)
            found = _find_string(ctx, ctx.symbols.lets[e.name].value, value, seen)
            if found is not None:
                return found
    return None


def _locate(expr: n.Expr, path: list[str], ctx: Context) -> Span:
    """The sub-expression of a map literal that a schema path points at."""
    current = unwrap(expr)
    for key in path:
        if isinstance(current, n.Name) and current.name in ctx.symbols.lets:
            current = unwrap(ctx.symbols.lets[current.name].value)
        if isinstance(current, n.MapLit):
            entry = next((e for e in current.entries if e.key == key), None)
            if entry is None:
                break
            current = unwrap(entry.value)
        elif isinstance(current, n.ListLit) and key.isdigit() and int(key) < len(current.items):
            current = unwrap(current.items[int(key)])
        else:
            break
    return current.span
