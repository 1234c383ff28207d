"""Primitive arguments, driven by each primitive's pydantic params model.

E106 unknown primitive, E014 an argument without a name, E211 an argument
given twice, E201 unknown (or an unknown key of an options map), E202 missing,
E203 mistyped or not constant, E204 out of range. A new primitive gets all
of these from its params model alone; the framework-level `scope:` argument is in `scopes.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from evaldsl.checker.facts.annotations import accepted_types, accepts, describe, param_fields
from evaldsl.checker.facts.arguments import Arguments, arguments
from evaldsl.checker.facts.context import SCOPE_ARG, Context, unwrap
from evaldsl.checker.facts.typer import infer_type, type_env
from evaldsl.checker.rules.patterns import bad_fields
from evaldsl.diagnostics import Diagnostic, did_you_mean, error, listing, meant, similar
from evaldsl.i18n import _, ngettext
from evaldsl.primitives.registry import Primitive
from evaldsl.primitives.valuetypes import ValueType
from evaldsl.syntax import nodes as n
from evaldsl.syntax.source import Span

_RANGE_ERRORS = frozenset({
    "greater_than", "greater_than_equal", "less_than", "less_than_equal", "too_short",
    "too_long", "multiple_of", "finite_number", "literal_error", "enum", "value_error",
    "assertion_error", "string_too_short", "string_too_long", "string_pattern_mismatch",
})
_SHOULD = re.compile(r"^(?:Input|String|List|Dictionary|Value|Tuple|Set|Data) should (be|have) ")


def unknown_primitives(ctx: Context) -> Iterator[Diagnostic]:
    """E106: `check x = judgee(...)`."""
    for check in ctx.checks:
        if check.primitive not in ctx.registry:
            close = similar(check.primitive, ctx.registry.names())
            known = _("the primitives are {names}").format(
                names=listing(ctx.registry.names(), limit=30)
            )
            yield error(
                "E106",
                _("unknown primitive `{primitive}`").format(primitive=check.primitive),
                check.primitive_span,
                f"{meant(close)} {known}" if close else known,
                close or "",
            )


def positional_arguments(ctx: Context) -> Iterator[Diagnostic]:
    """E014: every primitive argument is written `name: value`."""
    for check in ctx.checks:
        if check.positional:
            yield error(
                "E014",
                _("the arguments of `{primitive}` need names").format(primitive=check.primitive),
                check.positional[0].span,
                _positional_hint(ctx.primitive_of(check)),
            )


def _positional_hint(primitive: Primitive | None) -> str:
    if primitive is None:
        return _("write each argument as `name: value`")
    names = _ordered_names(primitive)
    if not names:
        return _("`{name}` takes no arguments besides `scope`").format(name=primitive.name)
    return _("write it as `{names}: ...`; `{name}` takes {names2}").format(
        names=names[0], name=primitive.name, names2=listing(names)
    )


def repeated_arguments(ctx: Context) -> Iterator[Diagnostic]:
    """E211: the same argument twice in one call."""
    for check in ctx.checks:
        seen: dict[str, n.KeywordArg] = {}
        for arg in check.args:
            if arg.name in seen:
                first = seen[arg.name].span
                yield error(
                    "E211",
                    _("the argument `{name}` is given twice").format(name=arg.name),
                    arg.name_span,
                    _("the first is at {line}:{col}; keep one").format(
                        line=first.line, col=first.col
                    ),
                )
            seen.setdefault(arg.name, arg)


def unknown_parameters(ctx: Context) -> Iterator[Diagnostic]:
    """E201: an argument the params model does not declare."""
    for check in ctx.checks:
        primitive = ctx.primitive_of(check)
        if primitive is None:
            continue
        fields = param_fields(primitive)
        for arg in check.args:
            if arg.name != SCOPE_ARG and arg.name not in fields:
                yield error(
                    "E201",
                    _("`{name}` has no parameter `{name2}`").format(
                        name=primitive.name, name2=arg.name
                    ),
                    arg.name_span,
                    *_parameter_hint(primitive, arg.name),
                )


def _ordered_names(primitive: Primitive) -> list[str]:
    """Parameter names, required ones first, otherwise in declaration order."""
    fields = param_fields(primitive)
    return sorted(fields, key=lambda k: not fields[k].is_required())


def _parameter_hint(primitive: Primitive, name: str) -> tuple[str, str]:
    """The hint and the suggested parameter (empty when none is close)."""
    names = _ordered_names(primitive)
    if primitive.scopes:
        names.append(SCOPE_ARG)
    close = similar(name, names)
    known = (
        _("its parameters are {names}").format(names=listing(names, limit=12))
        if names
        else _("it takes none")
    )
    return (f"{meant(close)} {known}" if close else known), close or ""


def parameter_values(ctx: Context) -> Iterator[Diagnostic]:
    """E202, E203 and E204 from pydantic's verdict on the constant arguments."""
    env = type_env(ctx)
    for check in ctx.checks:
        args = arguments(ctx, check)
        if args is None:
            continue
        yield from _not_constant(args, check)
        yield from _dynamic_types(args, env)
        skip = bad_fields(ctx, check)
        for err in args.errors:
            problem = _from_pydantic(args, check, err, skip)
            if problem is not None:
                yield problem


def _not_constant(args: Arguments, check: n.Check) -> Iterator[Diagnostic]:
    primitive = args.primitive
    for name in sorted(args.dynamic - primitive.dynamic, key=lambda k: args.given[k].span.col):
        allowed = sorted(primitive.dynamic)
        may = (
            _("only {names} of `{name}` may depend on the case").format(
                names=listing(allowed), name=primitive.name
            )
            if allowed
            else _("`{name}` takes only constant arguments").format(name=primitive.name)
        )
        yield error(
            "E203",
            _("`{name}` must be a constant, but it depends on the case").format(name=name),
            args.given[name].value.span,
            _("{may}; use a literal or a `let` made of literals").format(may=may),
        )


def _dynamic_types(args: Arguments, env: Any) -> Iterator[Diagnostic]:
    fields = param_fields(args.primitive)
    for name in sorted(args.dynamic & args.primitive.dynamic):
        wanted = accepted_types(fields[name].annotation)
        found = infer_type(args.given[name].value, env)
        if wanted is not None and not accepts(wanted, found):
            yield error(
                "E203",
                _("`{name}` needs {describe}, found {found}").format(
                    name=name, describe=describe(wanted), found=found
                ),
                args.given[name].value.span,
                _field_hint(args.primitive, name),
            )


def _from_pydantic(args: Arguments, check: n.Check, err: dict[str, Any],
                   skip: set[str]) -> Diagnostic | None:
    loc = tuple(err.get("loc") or ())
    name = str(loc[0]) if loc else None
    kind = str(err.get("type", ""))
    if name is not None and name in (args.dynamic | args.unresolved | skip):
        return None
    if name is None:
        if args.dynamic or args.unresolved or _misspelt(args):
            return None
        return error(
            "E204",
            _("invalid arguments for `{name}`: {reason}").format(
                name=args.primitive.name, reason=_reason(str(err.get("msg", "")))
            ),
            check.primitive_span,
        )
    if kind == "missing":
        if check.positional or name not in param_fields(args.primitive):
            return None
        if any(similar(given, [name]) for given in args.given if given not in
               param_fields(args.primitive)):
            return None
        return error(
            "E202",
            _("`{name}` needs the argument `{name2}`").format(name=args.primitive.name, name2=name),
            check.primitive_span,
            _("add `{name}: ...`").format(name=name) + _described(args.primitive, name),
        )
    if name not in args.given or (kind == "extra_forbidden" and len(loc) == 1):
        return None
    if kind == "extra_forbidden":
        return error(
            "E201",
            _("unknown key `{key}` in `{path}`").format(key=loc[-1], path=_path(loc[:-1])),
            _key_span(args.given[name].value, loc[1:]),
            _field_hint(args.primitive, name),
        )
    span = _locate(args.given[name].value, loc[1:])
    if kind == "literal_error":
        return _choice(args.primitive, name, loc, err, span)
    if kind in ("too_short", "string_too_short", "too_long", "string_too_long"):
        return error("E204", f"`{_path(loc)}` {_size_reason(kind, err)}", span,
                     _field_hint(args.primitive, name))
    if kind == "value_error":
        return error("E204", f"`{_path(loc)}`: {_reason(str(err.get('msg', '')))}", span,
                     _field_hint(args.primitive, name))
    if kind in _RANGE_ERRORS:
        return error(
            "E204",
            _("`{path}` {reason}, found {shown}").format(
                path=_path(loc),
                reason=_reason(str(err.get("msg", ""))),
                shown=_shown(err.get("input")),
            ),
            span,
            _field_hint(args.primitive, name),
        )
    return error(
        "E203",
        _("`{path}` {type_reason}, found {shown}").format(
            path=_path(loc),
            type_reason=_type_reason(args.primitive, name, kind, loc),
            shown=_shown(err.get("input")),
        ),
        span,
        _field_hint(args.primitive, name),
    )


def _misspelt(args: Arguments) -> bool:
    """Whether the call gives a parameter the primitive lacks (E201): the params model was
    then judged without it, so a complaint about the call as a whole follows from the
    misspelling (`keyword(anyy: ...)` gives none of `all`, `any`, `none`)."""
    fields = param_fields(args.primitive)
    return any(given not in fields and given != SCOPE_ARG for given in args.given)


def _choice(primitive: Primitive, name: str, loc: tuple[Any, ...], err: dict[str, Any],
            span: Span) -> Diagnostic:
    expected = str(err.get("ctx", {}).get("expected", ""))
    choices = [c.strip(" '\"") for c in expected.replace(" or ", ", ").split(",") if c.strip()]
    given = err.get("input")
    close = did_you_mean(str(given), choices) if isinstance(given, str) else ""
    known = (
        _("the choices are {names}").format(names=listing(choices))
        if choices
        else _field_hint(primitive, name)
    )
    return error(
        "E204",
        _("`{path}` cannot be {shown}").format(path=_path(loc), shown=_shown(given)),
        span,
        f"{close} {known}" if close else known,
    )


def _size_reason(kind: str, err: dict[str, Any]) -> str:
    ctx = err.get("ctx") or {}
    text = kind.startswith("string")
    if kind.endswith("too_short"):
        least = int(ctx.get("min_length", 1))
        found = _("an empty text") if text else str(ctx.get("actual_length", 0))
        words = (
            ngettext(
                "needs at least {count} character, found {found}",
                "needs at least {count} characters, found {found}",
                least,
            )
            if text
            else ngettext(
                "needs at least {count} item, found {found}",
                "needs at least {count} items, found {found}",
                least,
            )
        )
        return words.format(count=least, found=found)
    most = int(ctx.get("max_length", 0))
    words = (
        ngettext("takes at most {count} character", "takes at most {count} characters", most)
        if text
        else ngettext("takes at most {count} item", "takes at most {count} items", most)
    )
    return words.format(count=most)


def _reason(msg: str) -> str:
    msg = _SHOULD.sub(r"must \1 ", msg)
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
    return (msg[:1].lower() + msg[1:]).rstrip(".")


def _type_reason(primitive: Primitive, name: str, kind: str, loc: tuple[Any, ...]) -> str:
    if len(loc) == 1:
        wanted = accepted_types(param_fields(primitive)[name].annotation)
        if wanted is not None and wanted != {ValueType.ANY}:
            whole = kind.startswith("int")
            return (
                _("must be a whole number")
                if whole
                else _("must be {describe}").format(describe=describe(wanted))
            )
    words = {
        "int": _("a whole number"),
        "float": _("a number"),
        "string": _("a text"),
        "bool": _("true or false"),
        "list": _("a list"),
        "dict": _("a map"),
    }
    word = next((w for k, w in words.items() if kind.startswith(k)), _("of another type"))
    return _("must be {word}").format(word=word)


def _path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc)


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, (int, float)):
        return f"`{value:g}`" if isinstance(value, float) else f"`{value}`"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "…"
        return _('the text `"{text}"`').format(text=text)
    if isinstance(value, list):
        return _("a list")
    if isinstance(value, dict):
        return _("a map")
    return _("a table") if value is not None and hasattr(value, "normalize") else "nothing"


def _field_hint(primitive: Primitive, name: str) -> str:
    description = _description(primitive, name)
    return f"`{name}`: {description}" if description else ""


def _described(primitive: Primitive, name: str) -> str:
    description = _description(primitive, name)
    return f" ({description})" if description else ""


def _description(primitive: Primitive, name: str) -> str:
    """The parameter's description in diagnostic style: lowercase, no final period."""
    from evaldsl.primitives.doctexts import parameter_doc  # only a diagnostic describes one

    info = param_fields(primitive).get(name)
    if info is None:
        return ""
    field = next(f for f, i in primitive.params.model_fields.items() if i is info)
    text = " ".join(parameter_doc(primitive.params, field, info).split())
    if text[:1].isupper() and not text[1:2].isupper():
        text = text[0].lower() + text[1:]
    return text.rstrip(".")


def _key_span(expr: n.Expr, path: tuple[Any, ...]) -> Span:
    """The span of the last key of `path` inside a map literal (an option nobody declares)."""
    parent = unwrap(expr)
    for key in path[:-1]:
        entry = _entry(parent, key)
        if entry is None:
            return parent.span
        parent = unwrap(entry.value)
    last = _entry(parent, path[-1])
    return last.key_span if last is not None else parent.span


def _entry(expr: n.Expr, key: Any) -> n.MapEntry | None:
    if not isinstance(expr, n.MapLit):
        return None
    return next((e for e in expr.entries if e.key == str(key)), None)


def _locate(expr: n.Expr, path: tuple[Any, ...]) -> Span:
    current = unwrap(expr)
    for key in path:
        if isinstance(current, n.MapLit):
            entry = next((e for e in current.entries if e.key == str(key)), None)
            if entry is None:
                break
            current = unwrap(entry.value)
        elif isinstance(current, n.ListLit) and isinstance(key, int) and key < len(current.items):
            current = unwrap(current.items[key])
        else:
            break
    return current.span
