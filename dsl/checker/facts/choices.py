"""Choice parameters: a bare word given to one is read as the text it spells.

A parameter whose type is a `Literal` of texts (`mode: strict`) is a choice
among words; people who are not programmers write the word without quotes,
as the primitive pages do. So before any rule runs, a bare name given to a
choice parameter that names one of its choices, and that the spec does not
define, becomes the text `"strict"` with the same span: every rule, the
analysis and the runtime then see one spelling. A bare name that is not a
choice stays a name, and `choice_hint` tells the unknown-name rule what the
parameter takes.
"""

from __future__ import annotations

import types
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import msgspec
from pydantic import BaseModel

from evaldsl.checker.facts.annotations import param_fields
from evaldsl.checker.facts.symbols import SymbolTable
from evaldsl.i18n import _
from evaldsl.primitives.registry import Registry
from evaldsl.syntax import nodes as n


def choices(annotation: Any) -> tuple[str, ...]:
    """The texts a choice parameter takes; empty when it is not a choice.

    >>> choices(Literal["strict", "subset"] | None)
    ('strict', 'subset')
    >>> choices(str)
    ()
    """
    origin = get_origin(annotation)
    if origin is Annotated:
        return choices(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        members = [m for m in get_args(annotation) if m is not type(None)]
        return choices(members[0]) if len(members) == 1 else ()
    if origin is Literal:
        words = get_args(annotation)
        return tuple(words) if all(isinstance(w, str) for w in words) else ()
    return ()


def choice_hint(parameter: str, words: tuple[str, ...]) -> str:
    """`mode takes "strict", "unordered" or "subset"`: what a choice parameter accepts."""
    quoted = [f'"{w}"' for w in words]
    listed = quoted[0] if len(quoted) == 1 else _("{items} or {last}").format(
        items=_(", ").join(quoted[:-1]), last=quoted[-1])
    return _("{parameter} takes {listed}").format(parameter=parameter, listed=listed)


def read_choice_words(module: n.Module, symbols: SymbolTable, registry: Registry) -> n.Module:
    """`module` with each undefined bare choice word turned into its text; the same object
    when there is none, so a spec without one costs nothing."""
    statements = tuple(_check(s, symbols, registry) if isinstance(s, n.Check) else s
                       for s in module.statements)
    return _with(module, "statements", statements)


_Node = TypeVar("_Node", n.Module, n.Check, n.MapLit)


def _with(node: _Node, field: str, items: tuple[Any, ...]) -> _Node:
    """`node` itself when every one of `items` is the child it had in `field`, else a copy
    with them: nodes are only copied along a path where a word was read."""
    if all(a is b for a, b in zip(items, getattr(node, field), strict=True)):
        return node
    changes: dict[str, Any] = {field: items}
    return msgspec.structs.replace(node, **changes)


def _check(check: n.Check, symbols: SymbolTable, registry: Registry) -> n.Check:
    primitive = registry.get(check.primitive)
    if primitive is None:
        return check
    fields = param_fields(primitive)
    args = tuple(_argument(a, fields.get(a.name), symbols) for a in check.args)
    return _with(check, "args", args)


def _argument(arg: n.KeywordArg, field: Any, symbols: SymbolTable) -> n.KeywordArg:
    if field is None:
        return arg
    value = _value(arg.value, field.annotation, symbols)
    return arg if value is arg.value else msgspec.structs.replace(arg, value=value)


def _value(value: n.Expr, annotation: Any, symbols: SymbolTable) -> n.Expr:
    """`value` with its choice words read as texts, inside map literals too.

    A map of options (`tools: {book: {args: superset}}`) is a map of choice
    parameters one level down: the same reading applies to each entry whose
    annotation is a choice, through `dict[str, X]` and params models alike.
    """
    if isinstance(value, n.MapLit):
        return _map(value, annotation, symbols)
    if not isinstance(value, n.Name) or symbols.kind_of(value.name):
        return value
    if value.name not in choices(annotation):
        return value
    return n.String(value.name, value.span)


def _map(value: n.MapLit, annotation: Any, symbols: SymbolTable) -> n.MapLit:
    entries = tuple(_entry(e, _entry_annotation(annotation, e.key), symbols)
                    for e in value.entries)
    return _with(value, "entries", entries)


def _entry(entry: n.MapEntry, annotation: Any, symbols: SymbolTable) -> n.MapEntry:
    if annotation is None:
        return entry
    value = _value(entry.value, annotation, symbols)
    return entry if value is entry.value else msgspec.structs.replace(entry, value=value)


def _entry_annotation(annotation: Any, key: str) -> Any:
    """The annotation of entry `key` of a map typed `annotation` (None when unknown)."""
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        members = [m for m in get_args(annotation) if m is not type(None)]
        return _entry_annotation(members[0], key) if len(members) == 1 else None
    if origin is dict:
        args = get_args(annotation)
        return args[1] if len(args) == 2 else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        field = annotation.model_fields.get(key)
        return field.annotation if field is not None else None
    return None
