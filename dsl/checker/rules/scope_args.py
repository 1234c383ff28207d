"""The `scope:` argument every check takes: E210 unknown scope, E205 not accepted.

The framework, not the primitive, reads `scope:` (`checker.facts.scopes`), so
its checks are the same for every primitive: a bare scope name or `turn(N)`
with N a whole number from 1, and only the scopes the primitive declares.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaldsl.cases.scopes import SCOPE_KINDS
from evaldsl.checker.facts.context import SCOPE_ARG, Context, unwrap
from evaldsl.checker.facts.scopes import NAMED_SCOPES, scope_of, turn_index
from evaldsl.diagnostics import Diagnostic, did_you_mean, error, listing
from evaldsl.syntax import nodes as n


def scope_arguments(ctx: Context) -> Iterator[Diagnostic]:
    """E210 for a malformed or unknown scope, E205 for one the primitive does not take."""
    for check in ctx.checks:
        arg = check.arg(SCOPE_ARG)
        if arg is None:
            continue
        problem = _malformed(unwrap(arg.value))
        if problem is None:
            problem = _not_accepted(ctx, check, arg)
        if problem is not None:
            yield problem


def _malformed(value: n.Expr) -> Diagnostic | None:
    known = f"the scopes are {listing([*NAMED_SCOPES, 'turn(N)'], limit=12)}"
    if isinstance(value, n.Name):
        if value.name in NAMED_SCOPES:
            return None
        if value.name == "turn":
            return error("E210", "`turn` needs the number of a message", value.span,
                         "write `turn(3)` for the third message of the dialog")
        close = did_you_mean(value.name, NAMED_SCOPES)
        return error("E210", f"unknown scope `{value.name}`", value.span,
                     f"{close} {known}" if close else known)
    if isinstance(value, n.Call) and value.func == "turn":
        if turn_index(value) is None:
            return error("E210", "`turn(N)` needs one whole number from 1", value.span,
                         "write e.g. `turn(3)` for the third message of the dialog")
        return None
    if isinstance(value, n.String) and value.value in SCOPE_KINDS:
        return error("E210", "a scope is written as a name, not as a text", value.span,
                     f"write `scope: {value.value}` without quotes")
    return error("E210", "a scope must be a scope name", value.span, known)


def _not_accepted(ctx: Context, check: n.Check, arg: n.KeywordArg) -> Diagnostic | None:
    primitive = ctx.primitive_of(check)
    scope = scope_of(check)
    if primitive is None or scope is None or scope.kind in primitive.scopes:
        return None
    if not primitive.scopes:
        return error("E205", f"`{primitive.name}` reads the whole case and takes no `scope`",
                     arg.span, "remove the `scope:` argument")
    accepted = sorted(primitive.scopes)
    shown = [f"{k}(N)" if k == "turn" else k for k in accepted]
    return error("E205", f"`{primitive.name}` does not accept the scope `{scope}`",
                 arg.value.span, f"it accepts {listing(shown, limit=12)}")
