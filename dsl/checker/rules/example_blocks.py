"""Examples and review: E501 roles, E502 and E506 pins, E503 no `expect`, E504/E505 review.

Examples are a spec's own tests; a mistake in one should be caught before
`evaldsl test` runs it, in the same words as the rest of the spec.
"""

from __future__ import annotations

from collections.abc import Iterator

from evaldsl.checker.facts.arguments import arguments
from evaldsl.checker.facts.consts import NOT_CONSTANT, fold
from evaldsl.checker.facts.context import Context, unwrap
from evaldsl.diagnostics import Diagnostic, did_you_mean, error, listing, meant, similar
from evaldsl.i18n import _
from evaldsl.primitives.registry import Primitive
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Span

ROLES = ("system", "developer", "user", "assistant", "tool")
REVIEW_OPTIONS = ("seed",)


def unknown_roles(ctx: Context) -> Iterator[Diagnostic]:
    """E501: an example message whose role the chat format does not have."""
    for example in ctx.symbols.examples:
        for item in example.items:
            if isinstance(item, n.ExampleMessage) and item.role not in ROLES:
                close = similar(item.role, ROLES)
                known = _("the roles are {names}").format(names=listing(ROLES))
                yield error(
                    "E501",
                    _("unknown role `{role}`").format(role=item.role),
                    item.role_span,
                    f"{meant(close)} {known}" if close else known,
                    close or "",
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
        close = ctx.similar(given.check, checks)
        return error(
            "E502",
            _("`given` pins `{check}`, which is not a check").format(check=given.check),
            given.check_span,
            meant(close) or _("only check results can be pinned"),
            close or "",
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


def pinned_values(ctx: Context) -> Iterator[Diagnostic]:
    """E506: a `given` value its check could never give: wrong type, off the range, refused."""
    for example in ctx.symbols.examples:
        for item in example.items:
            if isinstance(item, n.ExampleGiven):
                problem = _pinned_value_problem(ctx, item)
                if problem is not None:
                    yield problem


def _pinned_value_problem(ctx: Context, given: n.ExampleGiven) -> Diagnostic | None:
    check = ctx.symbols.checks.get(given.check)
    primitive = ctx.primitive_named(given.check)
    value = fold(given.value, ctx)
    if check is None or primitive is None or value is NOT_CONSTANT:
        return None
    key = given.field or ("passed" if isinstance(value, bool) else "value")
    wanted = primitive.result_fields().get(key)
    if wanted is None:
        return None  # E502 names the field
    pinned = f"`given {given.check}{'.' + given.field if given.field else ''}`"
    found = _type_of(value)
    span = given.value.span
    if wanted is not ValueType.ANY and found is not None and found is not wanted:
        message = _("{pinned} pins {found}, but the `{key}` of a `{name}` result is {wanted}")
        return error("E506", message.format(pinned=pinned, found=found, key=key,
                                            name=primitive.name, wanted=wanted),
                     span, _example_hint(given, wanted))
    return _range_problem(ctx, check, primitive, key, value, pinned, span) or \
        _refused(ctx, check, primitive, key, value, pinned, span)


def _range_problem(ctx: Context, check: n.Check, primitive: Primitive, key: str, value: object,
                   pinned: str, span: Span) -> Diagnostic | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    bounds = (0.0, 1.0) if key == "score" else _value_range(ctx, check, primitive, key)
    if bounds is None or bounds[0] <= value <= bounds[1]:
        return None
    lo, hi = bounds
    message = _("{pinned} pins {value:g}, but the `{key}` of a `{name}` result lies between "
                "{lo:g} and {hi:g}").format(pinned=pinned, value=value, key=key,
                                           name=primitive.name, lo=lo, hi=hi)
    return error("E506", message, span,
                 _("pin a value between {lo:g} and {hi:g}").format(lo=lo, hi=hi))


def _value_range(ctx: Context, check: n.Check, primitive: Primitive,
                 key: str) -> tuple[float, float] | None:
    args = arguments(ctx, check)
    if key != "value" or args is None or args.params is None:
        return None
    try:
        found = primitive.value_range(args.params)
    except Exception:  # noqa: BLE001 - a primitive's range function is best effort here
        return None
    return (float(found[0]), float(found[1])) if found is not None else None


def _refused(ctx: Context, check: n.Check, primitive: Primitive, key: str, value: object,
             pinned: str, span: Span) -> Diagnostic | None:
    """The primitive's own `pin` is the authority on what it could give: ask it now."""
    args = arguments(ctx, check)
    if primitive.pin is None or args is None or args.params is None:
        return None
    try:
        primitive.pin(args.params, {key: value})
    except (TypeError, ValueError, KeyError) as exc:
        return error("E506", f"{pinned}: {exc}", span)
    except AttributeError:
        return None  # the pin reads an argument that comes from the case: known only per case
    return None


def _type_of(value: object) -> ValueType | None:
    kinds = {bool: ValueType.BOOL, int: ValueType.NUMBER, float: ValueType.NUMBER,
             str: ValueType.TEXT, list: ValueType.LIST, dict: ValueType.MAP}
    return kinds.get(type(value))


def _example_hint(given: n.ExampleGiven, wanted: ValueType) -> str:
    samples = {ValueType.NUMBER: "8", ValueType.BOOL: "true", ValueType.TEXT: '"..."',
               ValueType.LIST: "[...]", ValueType.MAP: "{...}"}
    sample = samples.get(wanted)
    if sample is None:
        return ""
    target = given.check + (f".{given.field}" if given.field else "")
    return _("pin {wanted}, e.g. `given {target} = {sample}`").format(
        wanted=wanted, target=target, sample=sample)


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
                        close = ctx.similar(entry.key, declared)
                        yield error(
                            "E103",
                            _("the case has no field `{key}`").format(key=entry.key),
                            entry.key_span,
                            meant(close)
                            or _("declare it in the `case` block: `{key}: text`").format(
                                key=entry.key
                            ),
                            # a quoted key's span holds its quotes: no bare replacement
                            (close or "") if not entry.quoted else "",
                        )
