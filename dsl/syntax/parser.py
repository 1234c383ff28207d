"""Source text to a `Module`, with diagnostics for whatever is wrong with it.

`parse` never raises for bad input: it returns the module it could build (or
None) with diagnostics. Syntax errors are worded for people who do not know
token names: see `evaldsl.syntax.messages`.

Valid input takes the fast path of `evaldsl.syntax.fastparse` (lark's own LALR
tables, kept as generated data, run by a small loop: four to five times
faster, and lark is not even imported); anything it cannot decide, every
syntax error included, goes through lark itself (`evaldsl.syntax.larkparse`),
so both paths build the same module with the same spans. For a syntax error lark
reads only from the statement the fast path stopped in (`_blanked`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from evaldsl import grammar
from evaldsl.diagnostics import Diagnostic, error
from evaldsl.errors import Fallback
from evaldsl.i18n import _
from evaldsl.syntax import nodes as n
from evaldsl.syntax.builder import Builder, comment
from evaldsl.syntax.fastparse import Tables, load_tables, parse_fast
from evaldsl.syntax.source import Source, Span
from evaldsl.syntax.surrogates import escaped_surrogates, raw_surrogate

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
    text = one_newline(decoded)
    source = Source(text, name)
    problem = _input_problem(source)
    if problem is not None:
        return ParseResult(None, [problem], source)
    result = _module(text, source)
    if result.module is None:
        return result
    lone = escaped_surrogates(result.module, source)
    return ParseResult(None, lone, source) if lone else result


def one_newline(text: str) -> str:
    """`\\r\\n` and a lone `\\r` (old Mac files) as `\\n`: one line break for both parse paths,
    every position in a diagnostic, and the formatter, which writes `\\n`."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _module(text: str, source: Source) -> ParseResult:
    """The fast path for valid text; lark for the rest, after the lookalike characters."""
    fast = _fast_module(text, source)
    if isinstance(fast, n.Module):
        return ParseResult(fast, [], source)
    from evaldsl.syntax.lookalikes import lookalikes  # only text that does not parse

    found = lookalikes(source)
    if found:
        return ParseResult(None, found, source)
    if fast.statement_start:
        error = _lark_module(_blanked(text, fast.statement_start), source)
        if error.module is None:
            return error
    return _lark_module(text, source)


def _blanked(text: str, end: int) -> str:
    """`text` with every character before `end` but line breaks made a space.

    Every statement before `end` parsed, so lark starting at `end` in the state between
    statements reaches the same syntax error as over the whole text, at the same line and
    column, in a fraction of the time: what an editor needs on every keystroke of a
    statement half typed at the end of a long spec.
    """
    head = text[:end]
    return _NOT_A_BREAK.sub(" ", head) + text[end:]


_NOT_A_BREAK = re.compile(r"[^\n]")


def _lark_module(text: str, source: Source) -> ParseResult:
    """The reference path: lark's parse tree, then the builder; worded syntax errors."""
    from evaldsl.syntax import larkparse

    module, diagnostics = larkparse.parse_module(text, source)
    return ParseResult(module, diagnostics, source)


def fast_module(text: str, source: Source) -> n.Module | int:
    """The module by the fast path alone, or the offset of the statement it stopped in
    (for `evaldsl.syntax.recovery`, which must not pay for worded syntax errors)."""
    found = _fast_module(text, source)
    return found if isinstance(found, n.Module) else found.statement_start


def _fast_module(text: str, source: Source) -> n.Module | Fallback:
    """The same module by the fast path (see `evaldsl.syntax.fastparse`), or where it
    stepped aside for lark."""
    tables = _fast_tables()
    if tables is None:
        return Fallback()
    try:
        module, comments = parse_fast(text, tables, Builder(source))
    except Fallback as stop:
        return stop
    found = tuple(comment(t, source.name) for t in comments)
    return n.Module(module.statements, found, module.span)


@lru_cache(maxsize=1)
def _fast_tables() -> Tables | None:
    """The fast path's tables: the generated ones, or lark's own if the grammar changed since.

    None if a rule is one the fast path cannot shape: then every spec goes through lark.
    """
    from evaldsl.syntax import automaton

    if automaton.GRAMMAR_SHA256 == grammar.sha256():
        return load_tables(automaton.AUTOMATON, Builder)
    from evaldsl.syntax import automaton_export, larkparse

    try:
        return load_tables(automaton_export.export(larkparse.lark()), Builder)
    except ValueError:
        return None


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
        before = Source(one_newline(text[: exc.start].decode("utf-8-sig")), name)
        line, col = before.position(len(before.text))
        return error(
            "E001",
            _("the file is not UTF-8 text (byte 0x{text:02x} at offset {start})").format(
                text=text[exc.start], start=exc.start
            ),
            Span.point(name, line, col),
            _utf8_hint(text, name),
        )


def _utf8_hint(data: bytes, name: str) -> str:
    """How to save the spec as UTF-8; for bytes that read as GB18030 (GBK's superset, what
    Chinese Windows editors save by default), the command that converts them."""
    try:
        data.decode("gb18030")
    except UnicodeDecodeError:
        return _("save the spec as UTF-8; `.eval` files are text")
    return _("it reads as GB18030 (GBK): save it as UTF-8 (in the editor, save with the "
             "encoding UTF-8), or convert it with `iconv -f GB18030 -t UTF-8 {name} > "
             "utf8.eval`").format(name=name)


def _input_problem(source: Source) -> Diagnostic | None:
    text = source.text
    if len(text) > MAX_SPEC_BYTES:
        return error(
            "E002",
            _(
                "the file has {count:,} characters, more than a spec may have ({MAX_SPEC_BYTES:,})"
            ).format(count=len(text), MAX_SPEC_BYTES=MAX_SPEC_BYTES),
            Span.point(source.name, 1, 1),
            _("split it into several specs, or keep data in case files instead of the spec"),
        )
    nul = text.find("\x00")
    if nul >= 0:
        return error(
            "E001",
            _("the file contains a NUL character: it looks binary, not like a spec"),
            source.span(nul, nul + 1),
            _("`.eval` files are UTF-8 text"),
        )
    return raw_surrogate(source) or _nesting_problem(source)


def _nesting_problem(source: Source) -> Diagnostic | None:
    depth = 0
    for match in _BRACKETS.finditer(source.text):
        if match.group() in "([{":
            depth += 1
            if depth > MAX_NESTING:
                offset = match.start()
                return error(
                    "E003",
                    _("brackets are nested more than {MAX_NESTING} levels deep").format(
                        MAX_NESTING=MAX_NESTING
                    ),
                    source.span(offset, offset + 1),
                    _("name an inner part with `let` to flatten the expression"),
                )
        else:
            depth = max(0, depth - 1)
    return None


_BRACKETS = re.compile(r"[()\[\]{}]")
