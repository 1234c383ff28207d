"""The parser's fast path: lark's own LALR tables and lexer, driven by a small loop.

lark builds a parse tree with positions and then transforms it into AST
nodes; for a 300-line spec that costs about 60 ms, most of it in generic
machinery (benchmarks/editor_latency.py). This module runs the *same*
LALR(1) tables and the same terminals (computed by lark from the grammar and
kept as plain data in `evaldsl.syntax.automaton`, see
`evaldsl.syntax.automaton_export`) and calls the same `Builder` methods
directly, with the same positions lark would have given them. It never
imports lark, so a process that only parses valid specs never pays for it.

It only ever handles input it can parse exactly like lark: anything
unexpected (a character no terminal matches, a token the current state does
not accept, nesting deep enough to matter) raises `Fallback`, and the caller
parses with lark instead, which also produces the worded syntax errors. The
result is therefore identical by construction; a differential test compares
both paths on generated specs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec

from evaldsl.errors import Fallback

MAX_DEPTH = 150
"""Deeper values go through lark, which decides between a result and E003."""

SPLICE, CALL = 0, 1


class RuleShape(msgspec.Struct, frozen=True):
    """How one grammar rule shapes its children, mirroring lark's tree builder."""

    length: int
    origin: str
    kept: tuple[int, ...]
    """Indices of the children lark keeps (anonymous tokens are filtered out)."""
    spliced: frozenset[int]
    """Kept children that are inlined rules (`_sep`, `x*`): their items are spliced in."""
    mode: int
    """SPLICE for inlined rules, CALL for the others."""
    expand1: bool
    """`?rule` without alias: a single kept child is passed through unchanged."""
    callback: Callable[..., Any] | None
    unit: bool = False
    """One child passed through unchanged (`?sum: product`, `and_chain` of one operand):
    only the parser state changes, so the loop handles it without building anything."""

    @property
    def wraps(self) -> bool:
        """One child handed to the builder (`name: NAME`): the loop does it in place."""
        return (self.length == 1 and self.kept == (0,) and not self.spliced
                and self.mode == CALL and not self.expand1 and self.callback is not None)


class Automaton(NamedTuple):
    """lark's analysis of the grammar as plain data, the form `evaldsl.syntax.automaton` keeps."""

    states: dict[int, dict[str, tuple[bool, int]]]
    """state -> terminal or rule name -> (shift?, next state or rule index)."""
    start: int
    end: int
    rules: tuple[tuple[int, str, tuple[int, ...], tuple[int, ...], int, bool, str, bool], ...]
    """Per rule: length, origin, kept, spliced, mode, expand1, builder method ("" for none),
    unit (see `RuleShape`)."""
    lexer: str
    """One regular expression: leading ignored text (group 1), then one token as a named group
    per terminal, in lark's order of preference."""
    embedded: dict[str, dict[str, tuple[str, ...]]]
    """Terminal -> text -> the literal terminals of that text it also matches (`NAME` ->
    `check` -> `CHECK`); the first one the state accepts wins, as in lark's lexer."""
    kept_terminals: tuple[str, ...]
    collected: tuple[str, ...]
    """Ignored terminals handed back as comments."""
    multiline: tuple[str, ...]
    """Terminals whose pattern may match a line break (lark's own test)."""


def automaton_from_json(text: str) -> Automaton:
    """The automaton `evaldsl.syntax.automaton` keeps as JSON text.

    JSON because the module is imported by every process that parses, often
    without a bytecode cache: a string literal compiles at once, where the
    same data as Python literals took 30 ms to compile.
    """
    data = json.loads(text)
    states = {int(state): {symbol: (bool(action[0]), int(action[1]))
                           for symbol, action in actions.items()}
              for state, actions in data["states"].items()}
    rules = tuple((length, origin, tuple(kept), tuple(spliced), mode, expand1, method, unit)
                  for length, origin, kept, spliced, mode, expand1, method, unit in data["rules"])
    embedded = {kind: {text: tuple(names) for text, names in texts.items()}
                for kind, texts in data["embedded"].items()}
    return Automaton(states, data["start"], data["end"], rules, data["lexer"], embedded,
                     tuple(data["kept_terminals"]), tuple(data["collected"]),
                     tuple(data["multiline"]))


def load_tables(automaton: Automaton, builder: type) -> Tables | None:
    """The driver's tables, builder methods resolved; None if a rule has no method."""
    shapes = []
    for length, origin, kept, spliced, mode, expand1, method, unit in automaton.rules:
        callback = getattr(builder, method, None) if method else None
        if method and callback is None:
            return None
        shapes.append(RuleShape(length, origin, kept, frozenset(spliced), mode, expand1,
                                callback, unit))
    wrapping = frozenset(i for i, rule in enumerate(shapes) if rule.wraps)
    return Tables(automaton.states, automaton.start, automaton.end, shapes,
                  re.compile(automaton.lexer), automaton.embedded,
                  frozenset(automaton.kept_terminals), frozenset(automaton.collected),
                  frozenset(automaton.multiline), wrapping, _between(automaton))


def _between(automaton: Automaton) -> frozenset[int]:
    """The start state, and the state after `start: statement*`'s list of statements."""
    lists = [goto for symbol, (_, goto) in automaton.states[automaton.start].items()
             if symbol.startswith("__start_star")]
    return frozenset([automaton.start, *lists])


class Tables(msgspec.Struct, frozen=True):
    states: dict[int, dict[str, tuple[bool, int]]]
    """state -> terminal or rule name -> (shift?, next state or rule index)."""
    start: int
    end: int
    rules: list[RuleShape]
    lexer: re.Pattern[str]
    embedded: dict[str, dict[str, tuple[str, ...]]]
    """See `Automaton.embedded`."""
    kept_terminals: frozenset[str]
    """Terminals the builder receives; the others (keywords, brackets) only count for spans."""
    collected: frozenset[str]
    multiline: frozenset[str]
    wrapping_rules: frozenset[int] = frozenset()
    """Indices of rules whose `wraps` is true."""
    between: frozenset[int] = frozenset()
    """The states between two statements: a token shifted in one starts a statement."""
    units: dict[tuple[int, int, str], int] = msgspec.field(default_factory=dict)
    """(state below, top state, lookahead) -> the top state after a chain of unit reductions.

    A chain only replaces the top state and depends on nothing else, so it is
    computed once and then costs one lookup; it fills up as inputs are parsed.
    """


class _Meta:
    """What the AST builder reads from lark's `Meta`."""

    __slots__ = ("line", "column", "end_line", "end_column", "empty")

    def __init__(self, extent: tuple[int, int, int, int] | None) -> None:
        if extent is None:
            self.empty = True
            self.line = self.column = self.end_line = self.end_column = 1
        else:
            self.empty = False
            self.line, self.column, self.end_line, self.end_column = extent


class _Splice(list):  # type: ignore[type-arg]
    """The kept children of an inlined rule, spliced into the parent's."""


class FastToken(str):
    """A token as the AST builder reads it: its text, terminal name and position."""

    __slots__ = ("type", "start_pos", "line", "column", "end_line", "end_column", "end_pos")
    type: str
    start_pos: int
    line: int
    column: int
    end_line: int
    end_column: int
    end_pos: int


def make_token(kind: str, value: str, start: int, line: int, col: int, end_line: int,
               end_col: int, end: int) -> FastToken:
    """A token on one line (no terminal of the language spans lines)."""
    token = FastToken(value)
    token.type, token.start_pos, token.end_pos = kind, start, end
    token.line, token.column, token.end_line, token.end_column = line, col, end_line, end_col
    return token


def parse_fast(text: str, tables: Tables, builder: Any) -> tuple[Any, list[FastToken]]:
    """(the start rule's value, comment tokens); `Fallback` when lark must decide.

    One function on purpose: this is the hot loop (lexing, shifting, unit
    reductions), and calls cost more than the work they would hide.
    """
    states = tables.states
    rules = tables.rules
    units = tables.units
    embedded = tables.embedded
    kept_terminals = tables.kept_terminals
    collected = tables.collected
    multiline = tables.multiline
    wraps = tables.wrapping_rules
    between = tables.between
    statement_start = 0
    state_stack = [tables.start]
    stack: list[_Item] = []
    comments: list[FastToken] = []
    line, line_start = 1, 0
    pos, size = 0, len(text)
    match = tables.lexer.match
    while True:
        m = match(text, pos) if pos < size else None
        kind = m.lastgroup if m is not None else None
        if m is not None:
            space = m.group(1)
            if "\n" in space:
                line += space.count("\n")
                line_start = pos + space.rfind("\n") + 1
            pos, end = m.end(1), m.end()
            if kind is None and end < size:
                raise Fallback(statement_start)
        if kind is not None:
            value = text[pos:end]
            col = pos - line_start + 1
            if kind in multiline and "\n" in value:
                raise Fallback(statement_start)
            if kind in collected:
                end_col = col + len(value)
                comments.append(make_token(kind, value, pos, line, col, line, end_col, end))
                pos = end
                continue
            actions = states[state_stack[-1]]
            terminal = kind
            literals = embedded.get(kind)
            if literals is not None:
                for literal in literals.get(value, ()):
                    if literal in actions:
                        terminal = literal
                        break
            end_col = col + len(value)
            extent = (line, col, line, end_col)
            if terminal in kept_terminals:
                token = FastToken(value)
                token.type, token.start_pos, token.end_pos = terminal, pos, end
                token.line, token.column, token.end_line, token.end_column = extent
            else:
                token = None
            token_start, pos = pos, end
        else:
            terminal, token, extent = "$END", None, None
            actions = states[state_stack[-1]]
        while True:
            action = actions.get(terminal)
            if action is None:
                raise Fallback(statement_start)
            if action[0]:
                if extent is None:
                    raise Fallback(statement_start)
                if state_stack[-1] in between:
                    statement_start = token_start
                state_stack.append(action[1])
                stack.append((token, extent, 0))
                break
            rule = rules[action[1]]
            if rule.unit:
                key = (state_stack[-2], state_stack[-1], terminal)
                top = units.get(key)
                if top is None:
                    top = units[key] = _unit_chain(key[0], key[1], terminal, tables)
                state_stack[-1] = top
            elif action[1] in wraps:
                child, span, depth = stack[-1]
                if depth >= MAX_DEPTH:
                    raise Fallback(statement_start)
                wrapped = rule.callback(builder, _Meta(span), child)  # type: ignore[misc]
                stack[-1] = (wrapped, span, depth + 1)
                state_stack[-1] = states[state_stack[-2]][rule.origin][1]
            else:
                _reduce(rule, state_stack, stack, states, builder)
            if extent is None and state_stack[-1] == tables.end:
                return stack[-1][0], comments
            actions = states[state_stack[-1]]


_Item = tuple[Any, "tuple[int, int, int, int] | None", int]
"""A parser stack entry: (value, (line, col, end_line, end_col) or None, nesting depth)."""


def _unit_chain(below: int, top: int, terminal: str, tables: Tables) -> int:
    """Apply unit reductions on `top` (over `below`) while the lookahead asks for them."""
    while True:
        action = tables.states[top].get(terminal)
        if action is None or action[0]:
            return top
        rule = tables.rules[action[1]]
        if not rule.unit:
            return top
        top = tables.states[below][rule.origin][1]


def _reduce(rule: RuleShape, state_stack: list[int], stack: list[_Item],
            states: dict[int, dict[str, tuple[bool, int]]], builder: Any) -> None:
    k = rule.length
    if k == 1:
        items = [stack.pop()]
        state_stack.pop()
        extent, depth = items[0][1], items[0][2]
    elif k:
        items = stack[-k:]
        del stack[-k:], state_stack[-k:]
        depth = max(item[2] for item in items)
        extent = _extent(items)
    else:
        items, depth, extent = [], 0, None
    if rule.spliced:
        kept = _spliced(rule, items)
    else:
        kept = [items[i][0] for i in rule.kept]
    if rule.mode == SPLICE:
        value: Any = kept if type(kept) is _Splice else _Splice(kept)
    elif rule.expand1 and len(kept) == 1:
        value = kept[0]
    else:
        assert rule.callback is not None
        value = rule.callback(builder, _Meta(extent), *kept)
        depth += 1
        if depth > MAX_DEPTH:
            raise Fallback
    stack.append((value, extent, depth))
    state_stack.append(states[state_stack[-1]][rule.origin][1])


def _spliced(rule: RuleShape, items: list[_Item]) -> list[Any]:
    """The kept children with inlined rules' items spliced in.

    A left-recursive list (`x*`) arrives as (list so far, next item): the list
    is extended in place, as lark does, so long lists cost linear time.
    """
    kept: list[Any] | None = None
    for i in rule.kept:
        value = items[i][0]
        if kept is None:
            kept = value if i in rule.spliced else [value]
        elif i in rule.spliced:
            kept.extend(value)
        else:
            kept.append(value)
    return kept if kept is not None else []


def _extent(items: list[_Item]) -> tuple[int, int, int, int] | None:
    first = last = None
    for item in items:
        span = item[1]
        if span is not None:
            if first is None:
                first = span
            last = span
    if first is None or last is None:
        return None
    return (first[0], first[1], last[2], last[3])
