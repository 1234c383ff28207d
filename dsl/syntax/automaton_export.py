"""lark's analysis of the grammar as plain data: how `evaldsl.syntax.automaton` is made.

Building lark's LALR tables takes about a tenth of a second, and importing
lark half as much again: every process paid both before it could parse a
line. The fast path needs only the tables, the terminals and how each rule
shapes its children, so they are exported once, from the grammar, into a
generated module that loads in a millisecond. A test regenerates it and
compares; `evaldsl.syntax.parser` also compares the grammar's digest at run
time and exports afresh when the grammar was edited since, so the grammar
stays the single source of the syntax.

    python -m evaldsl.syntax.automaton_export      # after editing grammar/evaldsl.lark
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

from lark import Lark
from lark.lexer import TerminalDef, _regexp_has_newline
from lark.parsers.lalr_analysis import Shift

from evaldsl import grammar
from evaldsl.syntax import larkparse
from evaldsl.syntax.builder import IDENTITY_CALLBACKS, Builder
from evaldsl.syntax.fastparse import CALL, SPLICE, Automaton

GENERATED = Path(__file__).with_name("automaton.py")


def export(parser: Lark) -> Automaton:
    """The automaton of `parser`; ValueError if a rule is one the fast path cannot shape.

    lark numbers states and rules in an order that changes from one process to
    the next (it iterates over sets), so both are renumbered canonically: rules
    by their text, states in breadth-first order from the start state.
    """
    table = parser.parser.parser.parser.parse_table
    rules = sorted(parser.rules, key=_rule_key)
    index = {rule: i for i, rule in enumerate(rules)}
    numbers = _state_numbers(table.states, table.start_states["start"])
    states = {
        numbers[state]: {str(sym): (True, numbers[arg]) if action is Shift else (False, index[arg])
                         for sym, (action, arg) in actions.items()}
        for state, actions in table.states.items()
    }
    kept = sorted({str(sym.name) for rule in rules for sym in rule.expansion
                   if sym.is_term and not getattr(sym, "filter_out", False)})
    collected = tuple(sorted(set(parser.ignore_tokens) & set(parser.options.lexer_callbacks)))
    lexer, embedded = _lexer(parser.terminals, parser.ignore_tokens, collected)
    multiline = tuple(sorted(t.name for t in parser.terminals
                             if _regexp_has_newline(t.pattern.to_regexp())))
    return Automaton(states, numbers[table.start_states["start"]],
                     numbers[table.end_states["start"]], tuple(_shape(rule) for rule in rules),
                     lexer, embedded, tuple(kept), collected, multiline)


def _rule_key(rule: Any) -> tuple[str, tuple[str, ...], str]:
    return (str(rule.origin.name), tuple(str(sym.name) for sym in rule.expansion),
            str(rule.alias or ""))


def _state_numbers(states: dict[Any, dict[Any, tuple[Any, Any]]], start: Any) -> dict[Any, int]:
    """State -> its place in a breadth-first walk from `start`, symbols taken in sorted order."""
    numbers = {start: 0}
    queue = [start]
    for state in queue:
        for _, (action, target) in sorted(states[state].items(), key=lambda item: str(item[0])):
            if action is Shift and target not in numbers:
                numbers[target] = len(numbers)
                queue.append(target)
    if len(numbers) != len(states):
        raise ValueError("some parser states cannot be reached from the start")
    return numbers


def _shape(rule: Any) -> tuple[int, str, tuple[int, ...], tuple[int, ...], int, bool, str, bool]:
    """How lark's tree builder shapes one rule's children, as `Automaton.rules` holds it."""
    if rule.options.keep_all_tokens:
        raise ValueError(f"rule `{rule.origin.name}` keeps all tokens")
    origin = str(rule.origin.name)
    kept = tuple(i for i, sym in enumerate(rule.expansion)
                 if not (sym.is_term and sym.filter_out))
    spliced = tuple(i for i in kept if not rule.expansion[i].is_term
                    and rule.expansion[i].name.startswith("_"))
    expand1 = bool(rule.options.expand1) and not rule.alias
    length = len(rule.expansion)
    if origin.startswith("_"):
        return (length, origin, kept, spliced, SPLICE, expand1, "", False)
    name = str(rule.alias or origin)
    method = name if callable(getattr(Builder, name, None)) else ""
    if not method and not (expand1 and len(kept) == 1):
        raise ValueError(f"rule `{name}` has no Builder method")
    single = length == 1 and kept == (0,) and not spliced
    unit = single and (expand1 or name in IDENTITY_CALLBACKS)
    return (length, origin, kept, spliced, CALL, expand1, method, unit)


def _lexer(terminals: Collection[TerminalDef], ignored: Collection[str],
           collected: tuple[str, ...]
           ) -> tuple[str, dict[str, dict[str, tuple[str, ...]]]]:
    """The lexer of lark's contextual lexer, over all terminals at once.

    Terminals are tried in lark's order of preference; a literal that a
    pattern also matches in full (`check` for NAME) is not tried on its own
    but recorded under the pattern, as lark's lexer does, so the parser state
    can choose between them. Ignored text without a callback is read ahead of
    every token.
    """
    order = sorted(terminals, key=lambda t: (-t.priority, -t.pattern.max_width,
                                             -len(t.pattern.value), t.name))
    literals = [t for t in order if t.pattern.type == "str"]
    embedded: dict[str, dict[str, tuple[str, ...]]] = {}
    inside: set[str] = set()
    for pattern in (t for t in order if t.pattern.type == "re"):
        for literal in literals:
            text = literal.pattern.value
            if literal.priority == pattern.priority and re.fullmatch(
                    pattern.pattern.to_regexp(), text):
                embedded.setdefault(pattern.name, {})
                embedded[pattern.name][text] = (*embedded[pattern.name].get(text, ()),
                                                literal.name)
                inside.add(literal.name)
    space = "|".join(t.pattern.to_regexp() for t in order
                     if t.name in ignored and t.name not in collected)
    tokens = "|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in order
                      if t.name not in inside and (t.name not in ignored or t.name in collected))
    ordered = {kind: dict(sorted(texts.items())) for kind, texts in sorted(embedded.items())}
    return f"((?:{space})*)(?:{tokens})?", ordered


def render(automaton: Automaton, digest: str) -> str:
    """The text of `evaldsl.syntax.automaton` for these tables: JSON, one state or rule a line."""
    data = automaton._asdict()
    lines = ['{"states": {']
    lines += [f"  {json.dumps(str(state))}: {_json(dict(sorted(actions.items())))},"
              for state, actions in sorted(automaton.states.items())]
    lines[-1] = lines[-1].rstrip(",")
    lines.append('}, "rules": [')
    lines += [f"  {_json(rule)}," for rule in automaton.rules]
    lines[-1] = lines[-1].rstrip(",")
    lines.append("],")
    rest = [f"{_json(name)}: {_json(data[name])}" for name in Automaton._fields
            if name not in ("states", "rules")]
    lines.append(",\n".join(rest) + "}")
    text = "\n".join(lines)
    if '"""' in text or text.endswith("\\"):
        raise ValueError("the automaton cannot be written inside a raw triple-quoted string")
    return (f'"""Generated from grammar/evaldsl.lark by `python -m {_COMMAND}`: do not edit."""\n'
            "# ruff: noqa: E501\n\nfrom evaldsl.syntax.fastparse import automaton_from_json\n\n"
            f'GRAMMAR_SHA256 = "{digest}"\n\nAUTOMATON = automaton_from_json(r"""\n{text}\n""")\n')


def _json(value: object) -> str:
    return json.dumps(value)


_COMMAND = "evaldsl.syntax.automaton_export"


def main() -> None:
    """Regenerate `evaldsl.syntax.automaton` from the grammar."""
    GENERATED.write_text(render(export(larkparse.lark()), grammar.sha256()), encoding="utf-8")
    print(f"wrote {GENERATED}")


if __name__ == "__main__":
    main()
