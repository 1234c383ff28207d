"""Every chat primitive's answer schema: decisive fields first, every free text bounded.

A judge writes its answer in the schema's property order. A reason written before the
score can run long and push the score past the answer's token budget, so the answer is
cut before the one field the check needs; a bound on every free-text field is what lets
grammar-constrained decoding stop it and lets the runtime derive an answer budget.
"""

from __future__ import annotations

from typing import Any

import pytest

from evaldsl.cases.case import Message
from evaldsl.cases.scopes import Unit
from evaldsl.model.checks import ChatCheck, ChatTask
from evaldsl.model.prompts import build_request
from evaldsl.primitives.registry import Cost, default_registry

UNIT = Unit((Message("user", "空调坏了"), Message("assistant", "请留下地址和电话")),
            "请留下地址和电话")
PARAMS: dict[str, dict[str, Any]] = {
    "judge": {"criteria": "礼貌", "scale": 10},
    "refusal": {},
    "classify": {"labels": {"repair": "报修", "other": "其他"}},
    "slots": {"slots": {"address": "地址", "phone": "电话"}},
    "steps": {"steps": ["greet", "ask_address"]},
    "moderation": {},
}
"""Sample params for each chat primitive; a new one must be added here to be checked."""


def chat_primitives() -> list[str]:
    """The registered MODEL primitives but the embedding one: each must be in `PARAMS`."""
    return sorted(e.name for e in default_registry()
                  if e.cost is Cost.MODEL and e.name != "similarity")


def planned(name: str) -> dict[str, Any]:
    entry = default_registry().get(name)
    assert entry is not None
    assert name in PARAMS, f"`{name}` has no sample params in PARAMS"
    params = entry.params(**PARAMS[name])
    check = entry.factory(params)
    assert isinstance(check, ChatCheck)
    task = check.plan(params, UNIT).task
    assert task is not None
    return task.schema


def free_text(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "string" and "enum" not in schema


def objects(schema: Any) -> list[dict[str, Any]]:
    """Every object schema inside `schema`, itself included."""
    if not isinstance(schema, dict):
        return []
    found = [schema] if schema.get("type") == "object" else []
    for value in schema.get("properties", {}).values():
        found += objects(value)
    return found + objects(schema.get("items"))


def leaves(schema: Any) -> list[dict[str, Any]]:
    if not isinstance(schema, dict):
        return []
    if schema.get("type") == "object":
        return [x for v in schema.get("properties", {}).values() for x in leaves(v)]
    if schema.get("type") == "array":
        return [schema, *leaves(schema.get("items"))]
    return [schema]


@pytest.mark.parametrize("name", chat_primitives())
class TestEveryChatPrimitive:
    def test_decisive_fields_come_before_free_text(self, name: str) -> None:
        """In every object, no free-text property comes before a decisive one."""
        for obj in objects(planned(name)):
            kinds = [free_text(v) for v in obj["properties"].values()]
            assert kinds == sorted(kinds), (name, list(obj["properties"]))

    def test_every_free_text_and_list_is_bounded(self, name: str) -> None:
        """Strings carry `maxLength` and arrays `maxItems`: the answer has a size limit."""
        for leaf in leaves(planned(name)):
            if free_text(leaf):
                assert isinstance(leaf.get("maxLength"), int), (name, leaf)
            if leaf.get("type") == "array":
                assert isinstance(leaf.get("maxItems"), int), (name, leaf)

    def test_the_prompt_asks_in_the_schema_s_order(self, name: str) -> None:
        """The shape written in the prompt names the properties in the schema's order."""
        schema = planned(name)
        prompt = build_request(UNIT, [("c", ChatTask("q", schema))]).messages[-1]["content"]
        shown = prompt[prompt.rindex("in this shape"):]
        keys = list(schema["properties"])
        positions = [shown.index(f'"{k}"') for k in keys]
        assert positions == sorted(positions), (name, keys)


def test_judge_asks_for_the_score_before_the_reason() -> None:
    assert list(planned("judge")["properties"]) == ["score", "reason"]


def test_classify_and_refusal_ask_for_the_choice_first() -> None:
    assert list(planned("classify")["properties"]) == ["label", "reason"]
    assert list(planned("refusal")["properties"]) == ["kind", "reason"]
