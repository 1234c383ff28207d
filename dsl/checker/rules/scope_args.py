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
from evaldsl.diagnostics import Diagnostic, error, listing, meant, similar
from evaldsl.i18n import _
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
    known = _("the scopes are {names}").format(names=listing([*NAMED_SCOPES, "turn(N)"], limit=12))
    if isinstance(value, n.Name):
        if value.name in NAMED_SCOPES:
            return None
        if value.name == "turn":
            return error(
                "E210",
                _("`turn` needs the number of a message"),
                value.span,
                _("write `turn(3)` for the third message of the dialog"),
            )
        close = similar(value.name, NAMED_SCOPES)
        return error(
            "E210",
            _("unknown scope `{name}`").format(name=value.name),
            value.span,
            f"{meant(close)} {known}" if close else known,
            close or "",
        )
    if isinstance(value, n.Call) and value.func == "turn":
        if turn_index(value) is None:
            return error(
                "E210",
                _("`turn(N)` needs one whole number from 1"),
                value.span,
                _("write e.g. `turn(3)` for the third message of the dialog"),
            )
        return None
    if isinstance(value, n.String) and value.value in SCOPE_KINDS:
        return error(
            "E210",
            _("a scope is written as a name, not as a text"),
            value.span,
            _("write `scope: {value}` without quotes").format(value=value.value),
        )
    return error("E210", _("a scope must be a scope name"), value.span, known)


def _not_accepted(ctx: Context, check: n.Check, arg: n.KeywordArg) -> Diagnostic | None:
    primitive = ctx.primitive_of(check)
    scope = scope_of(check)
    if primitive is None or scope is None or scope.kind in primitive.scopes:
        return None
    if not primitive.scopes:
        return error(
            "E205",
            _("`{name}` reads the whole case and takes no `scope`").format(name=primitive.name),
            arg.span,
            _("remove the `scope:` argument"),
        )
    accepted = sorted(primitive.scopes)
    shown = [f"{k}(N)" if k == "turn" else k for k in accepted]
    return error(
        "E205",
        _("`{name}` does not accept the scope `{scope}`").format(name=primitive.name, scope=scope),
        arg.value.span,
        _("it accepts {names}").format(names=listing(shown, limit=12)),
    )
