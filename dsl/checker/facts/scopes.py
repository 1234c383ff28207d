"""The scope of each check: what its `scope:` names, else its primitive's default.

The framework, not the primitive, reads `scope:`; this is the one reading of
it, shared by the scope rule (which reports what it cannot read) and the
runtime (which evaluates each check over the scope found here).
"""

from __future__ import annotations

from evaldsl.cases.scopes import SCOPE_KINDS, Scope
from evaldsl.checker.facts.context import SCOPE_ARG, unwrap
from evaldsl.primitives.registry import Primitive
from evaldsl.syntax import nodes as n

NAMED_SCOPES = tuple(k for k in SCOPE_KINDS if k != "turn")
"""Scopes written as a bare name; `turn(N)` is the one that takes a number."""


def scope_of(check: n.Check) -> Scope | None:
    """The scope a check's `scope:` names, or None when absent or malformed."""
    arg = check.arg(SCOPE_ARG)
    if arg is None:
        return None
    value = unwrap(arg.value)
    if isinstance(value, n.Name) and value.name in NAMED_SCOPES:
        return Scope(value.name)
    index = turn_index(value)
    return Scope("turn", index) if index is not None else None


def check_scope(check: n.Check, primitive: Primitive) -> Scope:
    """The scope `check` is evaluated over: its own, else the primitive's default."""
    return scope_of(check) or Scope(primitive.default_scope or "dialog")


def turn_index(value: n.Expr) -> int | None:
    """N of `turn(N)` (N a whole number from 1, parentheses allowed), else None."""
    if not (isinstance(value, n.Call) and value.func == "turn" and not value.kwargs):
        return None
    if len(value.args) != 1:
        return None
    number = unwrap(value.args[0])
    if isinstance(number, n.Number) and number.text.isdigit() and int(number.text) >= 1:
        return int(number.text)
    return None
