"""`evaldsl primitives [NAME...]`: the registry as a reference, read from the entries themselves.

The checker lints from the same params models, so what this prints is exactly
what a spec may write: every parameter with its type, default and meaning,
the scopes, the result fields and the cost class.
"""

from __future__ import annotations

import argparse
from typing import Any

from pydantic.fields import FieldInfo

from evaldsl.cases.scopes import SCOPE_WORDS
from evaldsl.cli.exits import EXIT_OK
from evaldsl.errors import UsageError
from evaldsl.i18n import N_, _
from evaldsl.primitives.doctexts import parameter_doc, primitive_doc
from evaldsl.primitives.registry import Cost, Primitive, default_registry
from evaldsl.primitives.signatures import default_text, type_text

COST_NAMES = {Cost.FREE: N_("free"), Cost.CHEAP: N_("cheap"), Cost.MODEL: N_("model")}
"""The cost classes as the reference names them (msgids)."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "primitives", help=_("list the primitives a check may call, with their parameters"),
        description=_("List the registered primitives (standard library and installed plugins)."),
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help=_("only these primitives"))
    parser.add_argument("--format", choices=("text", "markdown"), default="text")


def run(args: argparse.Namespace) -> int:
    registry = default_registry()
    unknown = [n for n in args.names if n not in registry]
    if unknown:
        raise UsageError(
            _("unknown primitive: {join}; known: {join2}").format(
                join=", ".join(unknown), join2=", ".join(registry.names())
            )
        )
    chosen = [p for p in registry if not args.names or p.name in args.names]
    render = describe_markdown if args.format == "markdown" else describe_text
    print("\n\n".join(render(p) for p in chosen))
    return EXIT_OK


def describe_text(p: Primitive) -> str:
    lines = [
        _("{name}  ({lower}; scopes: {scopes})").format(
            name=p.name, lower=_cost(p), scopes=_scopes(p)
        )
    ]
    lines.extend(f"  {line}" for line in _summary(p).splitlines())
    if p.default_scope:
        lines.append(_("  with no scope: {scope}, {words}").format(
            scope=p.default_scope, words=_default_words(p.default_scope)))
    lines.append(_("  parameters:"))
    lines.extend(f"    {_param_line(name, info, p)}" for name, info in _params(p))
    fields = ", ".join(f".{k} ({v.value})" for k, v in p.result_fields().items())
    lines.append(_("  result: {fields}").format(fields=fields))
    return "\n".join(lines)


def describe_markdown(p: Primitive) -> str:
    lines = [
        f"## `{p.name}`",
        "",
        primitive_doc(p),
        "",
        _("Cost: {lower}. Scopes: {scopes}.").format(lower=_cost(p), scopes=_scopes(p))
        + _default_sentence(p),
        "",
        _("| parameter | type | default | meaning |"),
        "|---|---|---|---|",
    ]
    for name, info in _params(p):
        default = _("required") if info.is_required() else f"`{default_text(info)}`"
        per_case = _(" (may be per case)") if name in p.dynamic else ""
        lines.append(f"| `{name}` | {type_text(info)} | {default} | "
                     f"{parameter_doc(p.params, name, info).replace('|', '/')}{per_case} |")
    fields = ", ".join(f"`.{k}` ({v.value})" for k, v in p.result_fields().items())
    lines.extend(["", _("Result fields: {fields}.").format(fields=fields)])
    return "\n".join(lines)


def _cost(p: Primitive) -> str:
    return _(COST_NAMES[p.cost])


def _params(p: Primitive) -> list[tuple[str, FieldInfo]]:
    return list(p.params.model_fields.items())


def _param_line(name: str, info: FieldInfo, p: Primitive) -> str:
    default = _("required") if info.is_required() else _("default {value}").format(
        value=default_text(info))
    per_case = _(", per case") if name in p.dynamic else ""
    description = parameter_doc(p.params, name, info)
    meaning = f": {description}" if description else ""
    return f"{name} ({type_text(info)}, {default}{per_case}){meaning}"


def _scopes(p: Primitive) -> str:
    if not p.scopes:
        return _("whole case")
    default = (
        _(", default {default_scope}").format(default_scope=p.default_scope)
        if p.default_scope
        else ""
    )
    return ", ".join(sorted(p.scopes)) + default


def _default_words(kind: str) -> str:
    return _(SCOPE_WORDS[kind]) if kind in SCOPE_WORDS else kind


def _default_sentence(p: Primitive) -> str:
    """` With no scope it judges `last_reply`: the last assistant reply.`"""
    if not p.default_scope:
        return ""
    return _(" With no scope it judges `{scope}`: {words}.").format(
        scope=p.default_scope, words=_default_words(p.default_scope))


def _summary(p: Primitive) -> str:
    return primitive_doc(p)
