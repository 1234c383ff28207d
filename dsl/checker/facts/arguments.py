"""The arguments of each check, folded and validated once against the params model.

Several rules need the same facts about a check's arguments (which are
constant, which depend on the case, what pydantic said about the constant
ones, and the validated params for `value_range`); `arguments(ctx, check)`
computes them once per check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from pydantic import BaseModel, ValidationError

from evaldsl.checker.facts.annotations import param_fields
from evaldsl.checker.facts.consts import NOT_CONSTANT, fold
from evaldsl.checker.facts.context import SCOPE_ARG, Context, names_in
from evaldsl.checker.facts.symbols import CASE
from evaldsl.primitives.registry import Primitive
from evaldsl.syntax import nodes as n


class Arguments(msgspec.Struct):
    """What the checker knows about one check's arguments."""

    primitive: Primitive
    given: dict[str, n.KeywordArg] = msgspec.field(default_factory=dict)
    """Arguments by name (the first of repeated ones), without `scope`."""
    constants: dict[str, Any] = msgspec.field(default_factory=dict)
    """Folded values of the known, constant arguments."""
    dynamic: set[str] = msgspec.field(default_factory=set)
    """Known arguments whose value depends on the case."""
    unresolved: set[str] = msgspec.field(default_factory=set)
    """Arguments that mention an unknown name (already reported elsewhere)."""
    errors: list[dict[str, Any]] = msgspec.field(default_factory=list)
    """pydantic's errors for the constant arguments."""
    params: BaseModel | None = None
    """The validated params, when validation succeeded (or failed only on dynamic ones)."""


def arguments(ctx: Context, check: n.Check) -> Arguments | None:
    """The analysis of `check`'s arguments; None when its primitive is unknown."""
    cache = ctx.arguments
    key = id(check)
    if key not in cache:
        cache[key] = _analyse(ctx, check)
    return cache[key]


def _analyse(ctx: Context, check: n.Check) -> Arguments | None:
    primitive = ctx.primitive_of(check)
    if primitive is None:
        return None
    out = Arguments(primitive)
    fields = param_fields(primitive)
    for arg in check.args:
        if arg.name == SCOPE_ARG or arg.name in out.given:
            continue
        out.given[arg.name] = arg
        if arg.name not in fields:
            continue
        if mentions_unknown(ctx, arg.value):
            out.unresolved.add(arg.name)
            continue
        value = fold(arg.value, ctx)
        if value is NOT_CONSTANT:
            out.dynamic.add(arg.name)
        else:
            out.constants[arg.name] = _beside_spec(ctx, fields[arg.name], value)
    _validate(out)
    return out


def _beside_spec(ctx: Context, field: Any, value: Any) -> Any:
    """A file a spec names (`examples_file: "intents.jsonl"`) is read from the spec's own
    folder, wherever evaldsl runs; the parameter says so with `json_schema_extra`."""
    extra = getattr(field, "json_schema_extra", None)
    if not (isinstance(extra, dict) and extra.get("spec_path")) or not isinstance(value, str):
        return value
    path = Path(value)
    spec = Path(ctx.source.name)
    if path.is_absolute() or not spec.parent.is_dir() or not spec.is_file():
        return value
    return str(spec.parent / path)


def _validate(out: Arguments) -> None:
    model = out.primitive.params
    try:
        out.params = model.model_validate(out.constants)
    except ValidationError as exc:
        out.errors = [dict(e) for e in exc.errors(include_url=False)]
        skipped = out.dynamic | out.unresolved
        if all(_field_of(e) in skipped for e in out.errors):
            out.params = _construct(model, out.constants)
    except Exception as exc:  # noqa: BLE001 - a primitive's validator may raise anything
        out.errors = [{"type": "value_error", "loc": (), "msg": str(exc), "input": None}]


def _construct(model: type[BaseModel], values: dict[str, Any]) -> BaseModel | None:
    try:
        return model.model_construct(**values)
    except Exception:  # noqa: BLE001 - only used for value ranges; best effort
        return None


def _field_of(err: dict[str, Any]) -> str | None:
    loc = err.get("loc") or ()
    return str(loc[0]) if loc else None


def mentions_unknown(ctx: Context, expr: n.Expr) -> bool:
    """Whether `expr` (or a let it reads) uses a name that refers to nothing."""
    symbols = ctx.symbols

    def let_mentions_unknown(let: str) -> bool:
        return mentions_unknown(ctx, symbols.lets[let].value)

    for name, is_case in names_in(expr):
        word = name.name
        if is_case:
            continue
        if word in symbols.lets:
            if ctx.lets_with_unknowns.get(word, let_mentions_unknown, False):
                return True
        elif symbols.kind_of(word) is None or word == CASE:
            return True
    return False
