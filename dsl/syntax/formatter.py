"""The canonical layout of a spec, keeping every comment.

`format_module` prints a module in one layout: two-space indents, one
statement per line, blocks opened on the statement's line, maps and lists
inline unless the author wrote them over several lines, a check's arguments
on one line when they fit in 100 columns. Blank lines the author left
between statements and branches are kept (one at most), and a blank line
separates statements of different kinds.

Comments are attached by position: a comment after code on its line stays
at the end of that line; a comment on a line of its own goes before the next
line of output, indented like it. The output parses to the same module
(comments included) and formatting it again changes nothing.
"""

from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evaldsl.errors import SpecError
from evaldsl.syntax import nodes as n
from evaldsl.syntax.parser import parse

WIDTH = 100
INDENT = "  "


@dataclass
class _Line:
    """One line of output and the source lines its content came from."""

    indent: int
    text: str
    src: int
    src_end: int
    opener: bool = False
    closer: bool = False
    statement: int = -1


@dataclass
class _Out:
    lines: list[_Line] = field(default_factory=list)
    statement: int = -1

    def add(self, indent: int, text: str, src: int, src_end: int | None = None, *,
            opener: bool = False, closer: bool = False) -> None:
        self.lines.append(_Line(indent, text, src, src if src_end is None else src_end, opener,
                                closer, self.statement))


def format_source(text: str | bytes, name: str = "<spec>") -> str:
    """Format spec text; raises `SpecError` when it does not parse."""
    result = parse(text, name)
    if result.module is None:
        raise SpecError(result.diagnostics)
    return format_module(result.module)


def format_module(module: n.Module) -> str:
    """The canonical text of `module`, comments included."""
    out = _Out()
    for i, statement in enumerate(module.statements):
        out.statement = i
        _STATEMENTS[type(statement)](statement, out)
    return _Weaver(module, out.lines).text()


# ---------------------------------------------------------------- expressions


def expr(e: n.Expr) -> str:
    """`e` on one line (maps and lists inline)."""
    return _EXPRS[type(e)](e)


def _binary(e: n.Binary) -> str:
    return f"{expr(e.left)} {e.op} {expr(e.right)}"


def _unary(e: n.Unary) -> str:
    return f"not {expr(e.operand)}" if e.op == "not" else f"-{expr(e.operand)}"


def _call(e: n.Call) -> str:
    args = [expr(a) for a in e.args] + [f"{k.name}: {expr(k.value)}" for k in e.kwargs]
    return f"{e.func}({', '.join(args)})"


def _map(e: n.MapLit) -> str:
    return "{" + ", ".join(f"{_key(m)}: {expr(m.value)}" for m in e.entries) + "}"


def _key(entry: n.MapEntry) -> str:
    return quote(entry.key) if entry.quoted or not _is_name(entry.key) else entry.key


def _is_name(text: str) -> bool:
    return bool(text) and not text[0].isdigit() and all(c.isalnum() or c == "_" for c in text)


def quote(text: str) -> str:
    """`text` as a double-quoted literal that parses back to `text`."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}

_EXPRS: dict[type, Callable[[Any], str]] = {
    n.Number: lambda e: e.text,
    n.Percent: lambda e: e.text,
    n.String: lambda e: quote(e.value),
    n.Bool: lambda e: "true" if e.value else "false",
    n.Name: lambda e: e.name,
    n.Attribute: lambda e: f"{expr(e.obj)}.{e.name}",
    n.Index: lambda e: f"{expr(e.obj)}[{expr(e.index)}]",
    n.Call: _call,
    n.Unary: _unary,
    n.Binary: _binary,
    n.ListLit: lambda e: "[" + ", ".join(expr(i) for i in e.items) + "]",
    n.MapLit: _map,
    n.Group: lambda e: f"({expr(e.expr)})",
}


def _breaks(e: n.Expr) -> bool:
    """Whether a map or list literal is laid out over several lines."""
    if isinstance(e, n.MapLit):
        return bool(e.entries) and e.span.line != e.span.end_line
    if isinstance(e, n.ListLit):
        return bool(e.items) and e.span.line != e.span.end_line
    return False


def _value(e: n.Expr, out: _Out, indent: int, head: str, tail: str, src: int) -> None:
    """`head + e + tail`, breaking `e` over lines when it is a multi-line literal."""
    if not _breaks(e):
        out.add(indent, head + expr(e) + tail, src, max(src, e.span.end_line))
        return
    bracket = "{" if isinstance(e, n.MapLit) else "["
    out.add(indent, head + bracket, src, e.span.line, opener=True)
    if isinstance(e, n.MapLit):
        for entry in e.entries:
            _value(entry.value, out, indent + 1, f"{_key(entry)}: ", ",", entry.span.line)
    else:
        assert isinstance(e, n.ListLit)
        for item in e.items:
            _value(item, out, indent + 1, "", ",", item.span.line)
    closing = "}" if isinstance(e, n.MapLit) else "]"
    out.add(indent, closing + tail, e.span.end_line, closer=True)


# ---------------------------------------------------------------- statements


def _header(s: n.SpecHeader, out: _Out) -> None:
    out.add(0, f"spec {quote(s.title)}", s.span.line, s.span.end_line)


def _block(head: str, s: object, items: list[tuple[str, int, int]], out: _Out) -> None:
    span = s.span  # type: ignore[attr-defined]
    if not items:
        out.add(0, f"{head} {{}}", span.line, span.end_line)
        return
    out.add(0, f"{head} {{", span.line, opener=True)
    for text, line, end in items:
        out.add(1, text, line, end)
    out.add(0, "}", span.end_line, closer=True)


def _case(s: n.CaseBlock, out: _Out) -> None:
    items = [(f"{f.name}: {f.type}{'?' if f.optional else ''}", f.span.line, f.span.end_line)
             for f in s.fields]
    _block("case", s, items, out)


def _options(options: tuple[n.Option, ...]) -> str:
    parts = [o.name if o.value is None else expr(o.value) if not o.name
             else f"{o.name}: {expr(o.value)}" for o in options]
    return f" ({', '.join(parts)})" if options else ""


def _table(s: n.Table, out: _Out) -> None:
    items = [(", ".join(quote(x.value) for x in e.sources) + f" -> {quote(e.target.value)}",
              e.span.line, e.span.end_line) for e in s.entries]
    _block(f"table {s.name}{_options(s.options)}", s, items, out)


def _let(s: n.Let, out: _Out) -> None:
    _value(s.value, out, 0, f"let {s.name} = ", "", s.span.line)


def _check(s: n.Check, out: _Out) -> None:
    head = f"check {s.name} = {s.primitive}("
    ordered = sorted([*s.args, *s.positional], key=lambda a: (a.span.line, a.span.col))
    args = [(f"{a.name}: ", a.value, a.span.line) if isinstance(a, n.KeywordArg)
            else ("", a, a.span.line) for a in ordered]
    inline = [f"{k}{expr(v)}" for k, v, _ in args]
    flat = head + ", ".join(inline) + ")"
    broken = [v for _, v, _ in args if _breaks(v)]
    if not broken and width(flat) <= WIDTH:
        out.add(0, flat, s.span.line, s.span.end_line)
        return
    if broken == [args[-1][1]] and width(head + ", ".join(inline[:-1])) <= WIDTH - 20:
        key, value, _ = args[-1]
        lead = head + "".join(f"{i}, " for i in inline[:-1]) + key
        _value(value, out, 0, lead, ")", s.span.line)
        return
    out.add(0, head, s.span.line, opener=True)
    for key, value, line in args:
        _value(value, out, 1, key, ",", line)
    out.add(0, ")", s.span.end_line, closer=True)


def _outcome(s: n.Outcome, out: _Out) -> None:
    items = [(f"{b.label} if {expr(b.condition)}" if b.condition is not None
              else f"{b.label} otherwise", b.span.line, b.span.end_line) for b in s.branches]
    _block("outcome" + (f" {s.name}" if s.name else ""), s, items, out)


def _metric(s: n.Metric, out: _Out) -> None:
    where = f" where {expr(s.where)}" if s.where is not None else ""
    by = " by " + ", ".join(expr(k) for k in s.by) if s.by else ""
    better = f" {s.direction}" if s.direction else ""
    out.add(0, f"metric {s.name} = {expr(s.value)}{where}{by}{better}", s.span.line,
            s.span.end_line)


def _review(s: n.Review, out: _Out) -> None:
    items = []
    for rule in s.rules:
        text = f"sample {expr(rule.rate)}"
        text += f" where {expr(rule.where)}" if rule.where is not None else ""
        text += f" priority {expr(rule.priority)}" if rule.priority is not None else ""
        items.append((text, rule.span.line, rule.span.end_line))
    _block(f"review{_options(s.options)}", s, items, out)


def _example(s: n.Example, out: _Out) -> None:
    head = f"example {quote(s.name)}"
    if not s.items:
        out.add(0, f"{head} {{}}", s.span.line, s.span.end_line)
        return
    out.add(0, f"{head} {{", s.span.line, opener=True)
    for item in s.items:
        _example_item(item, out)
    out.add(0, "}", s.span.end_line, closer=True)


def _example_item(item: n.ExampleItem, out: _Out) -> None:
    line = item.span.line
    if isinstance(item, n.ExampleCase):
        _value(item.fields, out, 1, "case ", "", line)
    elif isinstance(item, n.ExampleMessage):
        head = f"{item.role} {quote(item.content)}"
        if item.extra is None:
            out.add(1, head, line, item.span.end_line)
        else:
            _value(item.extra, out, 1, head + " ", "", line)
    elif isinstance(item, n.ExampleGiven):
        target = item.check + (f".{item.field}" if item.field else "")
        _value(item.value, out, 1, f"given {target} = ", "", line)
    else:
        out.add(1, f"expect {expr(item.condition)}", line, item.span.end_line)


def _alert(s: n.Alert, out: _Out) -> None:
    window = ""
    if s.window is not None:
        window = f" over {s.window.text}"
        window += f" by {', '.join(expr(k) for k in s.window.by)}" if s.window.by else ""
        window += f" min {expr(s.window.min_cases)}" if s.window.min_cases is not None else ""
    text = f"alert {s.name} when {expr(s.when)}{window} {quote(s.message)}"
    out.add(0, text, s.span.line, s.span.end_line)


_STATEMENTS: dict[type, Callable[[Any, _Out], None]] = {
    n.SpecHeader: _header, n.CaseBlock: _case, n.Table: _table, n.Let: _let, n.Check: _check,
    n.Outcome: _outcome, n.Metric: _metric, n.Review: _review, n.Example: _example,
    n.Alert: _alert,
}


def width(text: str) -> int:
    """Terminal columns of `text`: East Asian wide characters take two."""
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


# ---------------------------------------------------------------- comments and blank lines


class _Weaver:
    """Puts comments and blank lines among the output lines."""

    def __init__(self, module: n.Module, lines: list[_Line]) -> None:
        self.module = module
        self.lines = lines
        self.leading: list[list[n.Comment]] = [[] for _ in range(len(lines) + 1)]
        self.trailing: dict[int, n.Comment] = {}
        self.code = _code_positions(module) if module.comments else {}
        self.busy = _busy_lines(module)
        self._attach()

    def _attach(self) -> None:
        starts = [line.src for line in self.lines]
        for c in self.module.comments:
            i = bisect.bisect_right(starts, c.span.line) - 1
            if i >= 0 and self._code_before(c) and i not in self.trailing and not self.leading[
                    i + 1]:
                self.trailing[i] = c
            else:
                self.leading[i + 1].append(c)

    def _code_before(self, c: n.Comment) -> bool:
        first = self.code.get(c.span.line)
        return first is not None and first < c.span.col

    def text(self) -> str:
        out: list[str] = []
        self.after_opener = False
        previous_end = 0
        kinds = [type(s) for s in self.module.statements]
        sizes = _statement_sizes(self.lines)
        for i in range(len(self.lines) + 1):
            line = self.lines[i] if i < len(self.lines) else None
            first_of_statement = line is not None and (
                i == 0 or self.lines[i - 1].statement != line.statement)
            force = first_of_statement and line is not None and line.statement > 0 and (
                kinds[line.statement] is not kinds[line.statement - 1]
                or sizes[line.statement] > 1 or sizes[line.statement - 1] > 1)
            indent = _comment_indent(line)
            for c in self.leading[i]:
                self._blank(out, c.span.line, previous_end, force, line, is_comment=True)
                force = False
                out.append(indent + c.text)
                self.after_opener = False
                previous_end = c.span.line
            if line is None:
                break
            self._blank(out, line.src, previous_end, force, line, is_comment=False)
            text = INDENT * line.indent + line.text
            if i in self.trailing:
                text += "  " + self.trailing[i].text
            out.append(text)
            self.after_opener = line.opener
            previous_end = max(line.src_end, self.trailing[i].span.line if i in self.trailing
                               else 0)
        return "\n".join(out) + "\n" if out else ""

    def _blank(self, out: list[str], src: int, previous_end: int, force: bool,
               line: _Line | None, is_comment: bool) -> None:
        if not out or out[-1] == "":
            return
        if self.after_opener or (line is not None and line.closer and not is_comment):
            return
        kept = src - 1 > previous_end and (src - 1) not in self.busy
        if force or kept:
            out.append("")


def _comment_indent(line: _Line | None) -> str:
    if line is None:
        return ""
    return INDENT * (line.indent + (1 if line.closer else 0))


def _statement_sizes(lines: list[_Line]) -> dict[int, int]:
    sizes: dict[int, int] = {}
    for line in lines:
        sizes[line.statement] = sizes.get(line.statement, 0) + 1
    return sizes


def _code_positions(module: n.Module) -> dict[int, int]:
    """Line -> the first column where code starts or ends on it."""
    first: dict[int, int] = {}
    for node in n.walk(module):
        for name in ("span", "name_span", "label_span", "role_span", "check_span", "key_span",
                     "func_span", "op_span", "primitive_span", "type_span"):
            span = getattr(node, name, None)
            if span is None:
                continue
            for line, col in ((span.line, span.col), (span.end_line, span.end_col - 1)):
                if col < first.get(line, col + 1):
                    first[line] = col
    return first


def _busy_lines(module: n.Module) -> set[int]:
    """Source lines holding code or comments (not blank)."""
    busy = {c.span.line for c in module.comments}
    for node in n.walk(module):
        span = getattr(node, "span", None)
        if span is not None and not isinstance(node, n.Module):
            busy.add(span.line)
            busy.add(span.end_line)
    return busy
