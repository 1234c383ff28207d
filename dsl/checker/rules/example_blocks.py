"""Examples and review: E501 roles, E502 pins, E503 no `expect`, E504 sample rates, E505 options.

Examples are a spec's own tests; a mistake in one should be caught before
`evaldsl test` runs it, in the same words as the rest of the spec.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaldsl.checker.facts.consts import fold
from evaldsl.checker.facts.context import Context, unwrap
from evaldsl.diagnostics import Diagnostic, did_you_mean, error, listing
from evaldsl.i18n import _
from evaldsl.syntax import nodes as n

ROLES = ("system", "user", "assistant", "tool")
REVIEW_OPTIONS = ("seed",)


def unknown_roles(ctx: Context) -> Iterator[Diagnostic]:
    """E501: an example message whose role the chat format does not have."""
    for example in ctx.symbols.examples:
        for item in example.items:
            if isinstance(item, n.ExampleMessage) and item.role not in ROLES:
                close = did_you_mean(item.role, ROLES)
                known = _("the roles are {names}").format(names=listing(ROLES))
                yield error(
                    "E501",
                    _("unknown role `{role}`").format(role=item.role),
                    item.role_span,
                    f"{close} {known}" if close else known,
                )


def unknown_pins(ctx: Context) -> Iterator[Diagnostic]:
    """E502: `given` names a check (or a result field) that does not exist."""
    for example in ctx.symbols.examples:
        for item in example.items:
            if isinstance(item, n.ExampleGiven):
                problem = _pin_problem(ctx, item)
                if problem is not None:
                    yield problem


def _pin_problem(ctx: Context, given: n.ExampleGiven) -> Diagnostic | None:
    checks = ctx.symbols.checks
    if given.check not in checks:
        close = ctx.did_you_mean(given.check, checks)
        return error(
            "E502",
            _("`given` pins `{check}`, which is not a check").format(check=given.check),
            given.check_span,
            close or _("only check results can be pinned"),
        )
    primitive = ctx.primitive_named(given.check)
    if given.field is None or primitive is None:
        return None
    fields = primitive.result_fields()
    if given.field in fields:
        return None
    close = did_you_mean(given.field, fields)
    known = _("`{name}` results have {names}").format(name=primitive.name, names=listing(fields))
    return error(
        "E502",
        _("the check `{check}` has no field `{field}` to pin").format(
            check=given.check, field=given.field
        ),
        given.span,
        f"{close} {known}" if close else known,
    )


def examples_without_expect(ctx: Context) -> Iterator[Diagnostic]:
    """E503: an example that asserts nothing."""
    for example in ctx.symbols.examples:
        if not any(isinstance(i, n.ExampleExpect) for i in example.items):
            yield error(
                "E503",
                _("the example `{name}` has no `expect` line").format(name=example.name),
                example.span,
                _("add what must hold, e.g. `expect success`"),
            )


def sample_rates(ctx: Context) -> Iterator[Diagnostic]:
    """E504: a review sample rate that is not a constant share of 0% to 100%."""
    for review in ctx.module.of_type(n.Review):
        for rule in review.rules:
            value = fold(rule.rate, ctx)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                yield error(
                    "E504",
                    _("a sample rate must be a constant percentage"),
                    rule.rate.span,
                    _("write e.g. `sample 5% where ...`"),
                )
            elif not 0 <= value <= 1:
                plain = isinstance(unwrap(rule.rate), n.Number)
                hint = (
                    _("write `{value:g}%` for {value:g} percent").format(value=value)
                    if plain and 1 < value <= 100
                    else _("sample between 0% and 100% of the cases")
                )
                yield error(
                    "E504", _("a sample rate must lie between 0% and 100%"), rule.rate.span, hint
                )


def review_options(ctx: Context) -> Iterator[Diagnostic]:
    """E505: a review option other than `seed: N`."""
    for review in ctx.module.of_type(n.Review):
        for option in review.options:
            if option.name not in REVIEW_OPTIONS:
                close = did_you_mean(option.name, REVIEW_OPTIONS) if option.name else ""
                known = _("the only option is `seed: N`")
                yield error(
                    "E505",
                    _("unknown review option `{value}`").format(value=option.name or "?"),
                    option.span,
                    f"{close} {known}" if close else known,
                )
            elif not _whole(fold(option.value, ctx) if option.value else None):
                yield error(
                    "E505",
                    _("`seed` needs a whole number"),
                    option.span,
                    _("write e.g. `review (seed: 7) { ... }`"),
                )


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def example_case_fields(ctx: Context) -> Iterator[Diagnostic]:
    """E103: an example's `case {...}` sets a field the `case` block does not declare."""
    declared = ctx.symbols.case_fields
    if ctx.symbols.case_block is None:
        return
    for example in ctx.symbols.examples:
        for item in example.items:
            if isinstance(item, n.ExampleCase):
                for entry in item.fields.entries:
                    if entry.key not in declared:
                        close = ctx.did_you_mean(entry.key, declared)
                        yield error(
                            "E103",
                            _("the case has no field `{key}`").format(key=entry.key),
                            entry.key_span,
                            close
                            or _("declare it in the `case` block: `{key}: text`").format(
                                key=entry.key
                            ),
                        )
