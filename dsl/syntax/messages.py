"""Syntax errors in words: what was found, what the grammar wanted there.

Authors do not know terminal names such as `RBRACE`; they know what they were
writing ("the outcome label `partial`"). The parser hands over the offending
token, the set of acceptable terminals and the tokens already read; this
module turns them into a message and a hint.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from evaldsl.i18n import N_, _

_TERMINAL_WORDS: dict[str, str] = {
    "NAME": N_("a name"),
    "STRING": N_("a text in quotes"),
    "NUMBER": N_("a number"),
    "PERCENT": N_("a percentage"),
    "LBRACE": "`{`",
    "RBRACE": "`}`",
    "LPAR": "`(`",
    "RPAR": "`)`",
    "LSQB": "`[`",
    "RSQB": "`]`",
    "COLON": "`:`",
    "COMMA": "`,`",
    "EQUAL": "`=`",
    "DOT": "`.`",
    "MINUS": "`-`",
    "COMP_OP": N_("a comparison"),
    "ADD_OP": N_("`+` or `-`"),
    "MUL_OP": N_("`*` or `/`"),
    "OPTIONAL": "`?`",
    "__ANON_0": "`->`",
    "$END": N_("the end of the file"),
}

_STATEMENT_KEYWORDS = ("spec", "case", "table", "let", "check", "outcome", "metric", "review",
                       "alert", "example")



def _statement_hint() -> str:
    """Which keywords start a statement, in the current language."""
    keywords = _(", ").join(f"`{k}`" for k in _STATEMENT_KEYWORDS)
    return _("each statement starts with one of: {keywords}").format(keywords=keywords)


_VALUE_START = {"NAME", "NUMBER", "STRING"}


_CLOSERS = {"COMMA", "RSQB", "RPAR", "RBRACE"}
_CONTINUATIONS = {"ADD_OP", "MUL_OP", "COMP_OP", "DOT", "LSQB", "LPAR", "IN", "NOT", "AND", "OR",
                  "MINUS"}
"""Terminals that would continue an expression: noise when a `,` or a bracket is expected."""

_KEYWORDS = ("spec", "case", "table", "let", "check", "outcome", "metric", "review", "example",
             "if", "otherwise", "where", "by", "sample", "priority", "given", "expect", "and", "or",
             "not", "in", "true", "false")


def structural(expected: Collection[str]) -> set[str]:
    """`expected` without expression operators when a separator or a bracket is possible."""
    found = set(expected)
    if found & _CLOSERS:
        return found - _CONTINUATIONS
    return found


def describe_expected(expected: Collection[str]) -> str:
    """`a name, `{` or `}``: the acceptable terminals in words, deduplicated."""
    if _VALUE_START <= set(expected):
        return _("a value (a name, number, text, list or map)")
    if _wants_statement(expected):
        return _("a new statement")
    expected = structural(expected)
    words: list[str] = []
    for terminal in sorted(expected, key=_terminal_order):
        word = _word(terminal)
        if word and word not in words:
            words.append(word)
    if len(words) > 6:
        words = words[:5] + ["…"]
    if len(words) <= 1:
        return words[0] if words else _("something else")
    return _("{items} or {last}").format(items=_(", ").join(words[:-1]), last=words[-1])


def describe_unexpected_eof(expected: Collection[str]) -> tuple[str, str]:
    wanted = describe_expected(expected)
    closing = [t for t in ("RBRACE", "RPAR", "RSQB") if t in expected]
    hint = (
        _("a bracket is still open: close it with {word}").format(word=_word(closing[0]))
        if closing
        else _("finish the last statement")
    )
    return _("the file ends too early: expected {wanted}").format(wanted=wanted), hint


def describe_unexpected_token(
    token: Any, expected: Collection[str], previous: Sequence[Any]
) -> tuple[str, str, str]:
    """(message, hint, code) for a token the grammar did not allow."""
    found = _found(token)
    last = previous[-1] if previous else None
    special = _special_case(token, set(expected), previous)
    if special is not None:
        return special
    wanted = describe_expected(expected)
    if _wants_statement(expected):
        return (
            _("expected a new statement, found {found}").format(found=found),
            _statement_hint(),
            "E011",
        )
    after = _(" after {found}").format(found=_found(last)) if last is not None else ""
    hint = (
        _statement_hint()
        if _wants_statement(expected)
        else _("write {wanted} here").format(wanted=wanted)
    )
    return (
        _("expected {wanted}{after}, found {found}").format(
            wanted=wanted, after=after, found=found
        ),
        hint,
        "E011",
    )


def _special_case(
    token: Any, expected: set[str], previous: Sequence[Any]
) -> tuple[str, str, str] | None:
    last = previous[-1] if previous else None
    kind = getattr(token, "type", "")
    if kind in _CLOSERS - {"COMMA"} and kind not in expected:
        opener = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}[kind]
        return (
            _("`{token}` closes nothing here").format(token=token),
            _("remove it, or add the `{opener}` it should close").format(opener=opener),
            "E011",
        )
    keywords = {str(t) for t in previous if getattr(t, "type", "") != "NAME"}
    if {"IF", "OTHERWISE"} <= expected and last is not None and last.type == "NAME":
        return (
            _(
                "expected `if` or `otherwise` after the outcome label `{last}`, found {found}"
            ).format(last=last, found=_found(token)),
            _("write `{last} if <condition>`, or `{last} otherwise` for the last branch").format(
                last=last
            ),
            "E011",
        )
    if "LPAR" in expected and _after_keyword(previous, "check", 4):
        return (
            _("expected `(` after the primitive name `{last}`, found {found}").format(
                last=last, found=_found(token)
            ),
            _(
                "a check calls one primitive with named arguments: `{last}(name: value, ...)`"
            ).format(last=last),
            "E011",
        )
    if kind == "COMP_OP" and "COMP_OP" not in expected and any(
            getattr(t, "type", "") == "COMP_OP" for t in previous[-3:]):
        return (
            _("a comparison cannot be chained with another `{token}`").format(token=token),
            _("compare twice and join with `and`: `a < b and b < c`"),
            "E011",
        )
    if _wants_statement(expected) and getattr(token, "type", "") == "NAME":
        return (
            _("`{token}` does not start a statement").format(token=token),
            _statement_hint() + _keyword_suggestion(str(token)),
            "E011",
        )
    if token.type == "EQUAL" and "COMP_OP" in expected:
        return (
            _("a single `=` cannot compare values"),
            _("write `==` to compare; `=` only names things in `let`, `check` and `metric`"),
            "E011",
        )
    if "COLON" in expected and "(" in keywords and last is not None and last.type == "NAME":
        return (
            _("expected `:` after the argument name `{last}`, found {found}").format(
                last=last, found=_found(token)
            ),
            _("arguments are written `{last}: value`").format(last=last),
            "E011",
        )
    if expected & _CLOSERS and kind in _VALUE_START | {"LSQB", "LBRACE", "PERCENT"}:
        closers = describe_expected(expected & _CLOSERS)
        return (
            _("expected {closers} after {found}, found {found2}").format(
                closers=closers, found=_found(last), found2=_found(token)
            ),
            _(
                "separate items with `,`; to continue the expression, "
                "use an operator such as `+` or `and`"
            ),
            "E011",
        )
    return None


def _after_keyword(previous: Sequence[Any], keyword: str, distance: int) -> bool:
    return len(previous) >= distance and str(previous[-distance]) == keyword


def _wants_statement(expected: Collection[str]) -> bool:
    return "CHECK" in expected and "METRIC" in expected


def _keyword_suggestion(word: str) -> str:
    import difflib

    close = difflib.get_close_matches(word.lower(), _KEYWORDS, n=1, cutoff=0.6)
    return _("; did you mean `{close}`?").format(close=close[0]) if close else ""


def _found(token: Any) -> str:
    if token is None:
        return _("nothing")
    kind = getattr(token, "type", "")
    if kind == "$END":
        return _("the end of the file")
    if kind == "NAME":
        return _("the name `{token}`").format(token=token)
    if kind == "STRING":
        return _("the text {token}").format(token=token)
    if kind in ("NUMBER", "PERCENT"):
        return _("the number `{token}`").format(token=token)
    return f"`{token}`"


def _word(terminal: str) -> str:
    if terminal in _TERMINAL_WORDS:
        return _(_TERMINAL_WORDS[terminal])
    if terminal.isupper() and terminal.isalpha():
        return f"`{terminal.lower()}`"
    return ""


def _terminal_order(terminal: str) -> tuple[int, str]:
    """Punctuation first, then words, in the English order whatever the language."""
    word = _TERMINAL_WORDS.get(terminal) or _word(terminal)
    return (0 if word.startswith("`") else 1, word)


FULLWIDTH_HINTS = {
    "：": N_("this is a full-width colon; use `:`"),
    "，": N_("this is a full-width comma; use `,`"),
    "（": N_("this is a full-width parenthesis; use `(`"),
    "）": N_("this is a full-width parenthesis; use `)`"),
    "“": N_("this is a curly quote; use a straight `\"`"),
    "”": N_("this is a curly quote; use a straight `\"`"),
    "【": N_("use `[` for lists"),
    "】": N_("use `]` for lists"),
    "｛": N_("use `{`"),
    "｝": N_("use `}`"),
    "；": N_("statements need no separator; remove it"),
    ";": N_("statements need no separator; remove it"),
    "=": "",
}
"""Hints for characters that look like punctuation of the language but are not (msgids)."""
