"""Primitives, parameters and the spec's own names in words, for completions and hovers.

Everything is read from the registry entry, the params model and the checker's facts, as
`evaldsl primitives` reads them, so an editor shows what the checker accepts.
"""

from __future__ import annotations

from pydantic.fields import FieldInfo

from evaldsl.checker.facts.annotations import param_fields
from evaldsl.checker.facts.choices import choices
from evaldsl.i18n import N_, _
from evaldsl.primitives.doctexts import parameter_doc, primitive_doc
from evaldsl.primitives.registry import Cost, Primitive
from evaldsl.primitives.signatures import default_text, type_text

COST_WORDS = {Cost.FREE: N_("free"), Cost.CHEAP: N_("cheap"), Cost.MODEL: N_("model call")}
"""The cost class as `evaldsl explain` names it."""


def cost_text(primitive: Primitive) -> str:
    return _(COST_WORDS[primitive.cost])


def summary(primitive: Primitive) -> str:
    """The first paragraph of the primitive's docstring."""
    return primitive_doc(primitive).split("\n\n")[0].replace("\n", " ")


def primitive_markdown(primitive: Primitive) -> str:
    """A primitive's hover: its cost class, doc, parameters and result fields."""
    fields = ", ".join(f"`.{k}` ({v.value})" for k, v in primitive.result_fields().items())
    params = [f"- {parameter_line(primitive, name, info)}"
              for name, info in param_fields(primitive).items()]
    return "\n\n".join([
        f"**{primitive.name}** ({_('cost')}: {cost_text(primitive)})",
        primitive_doc(primitive),
        _("parameters:") + "\n" + "\n".join(params),
        _("result: {fields}").format(fields=fields),
    ])


def parameter_signature(name: str, info: FieldInfo) -> str:
    """`min: float or None = None`, or `criteria: str (required)`."""
    if info.is_required():
        return _("{name}: {type} (required)").format(name=name, type=type_text(info))
    return f"{name}: {type_text(info)} = {default_text(info)}"


def parameter_line(primitive: Primitive, name: str, info: FieldInfo) -> str:
    """The signature, the description, and whether the value may differ per case."""
    attribute = next((k for k, v in primitive.params.model_fields.items() if v is info), name)
    described = parameter_doc(primitive.params, attribute, info)
    per_case = _(" (may be per case)") if name in primitive.dynamic else ""
    text = f"`{parameter_signature(name, info)}`{per_case}"
    return f"{text}: {described}" if described else text


def choice_values(primitive: Primitive, name: str) -> tuple[str, ...]:
    """The words a choice parameter takes; empty for any other parameter."""
    info = param_fields(primitive).get(name)
    return choices(info.annotation) if info is not None else ()
