"""Prompts: the answer's shape in compact notation, one question per check."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from evaldsl.cases.case import Message
from evaldsl.cases.scopes import Unit
from evaldsl.model.checks import ChatCheck
from evaldsl.model.prompts import build_request, shape
from evaldsl.stdlib.classifying import ClassifyCheck, ClassifyParams
from evaldsl.stdlib.dialog_state import SlotsCheck, SlotsParams, StepsCheck, StepsParams
from evaldsl.stdlib.judging import JudgeCheck, JudgeParams, RefusalCheck, RefusalParams
from evaldsl.stdlib.moderation import ModerationCheck, ModerationParams

UNIT = Unit((Message("user", "空调坏了"), Message("assistant", "请留下地址")), "请留下地址")
CHECKS: list[tuple[str, ChatCheck, Any]] = [
    ("polite", JudgeCheck(), JudgeParams(criteria="礼貌", scale=5)),
    ("intent", ClassifyCheck(), ClassifyParams(labels={"repair": "报修", "other": "其他"})),
    ("declined", RefusalCheck(), RefusalParams()),
    ("facts", SlotsCheck(), SlotsParams(slots={"address": "地址", "phone": "电话"})),
    ("flow", StepsCheck(), StepsParams(steps=["greet", "ask_address"])),
    ("safe", ModerationCheck(), ModerationParams(categories=["violence", "self_harm"])),
]


def tasks() -> list[tuple[str, Any]]:
    planned = []
    for key, check, params in CHECKS:
        task = check.plan(params, UNIT).task
        assert task is not None
        planned.append((key, task))
    return planned


def literals(schema: Any) -> set[str]:
    """Every property name and enum value in `schema`, as JSON."""
    found: set[str] = set()
    if isinstance(schema, dict):
        found.update(json.dumps(k, ensure_ascii=False) for k in schema.get("properties", {}))
        found.update(json.dumps(v, ensure_ascii=False) for v in schema.get("enum", []))
        for value in schema.values():
            found |= literals(value)
    elif isinstance(schema, list):
        for value in schema:
            found |= literals(value)
    return found


class TestTheRequest:
    def test_the_prompt_shows_every_key_and_choice_of_the_schema(self) -> None:
        request = build_request(UNIT, tasks())
        prompt = request.messages[-1]["content"]
        assert request.schema is not None
        missing = {x for x in literals(request.schema) if x not in prompt}
        assert not missing

    def test_the_schema_goes_to_the_server_whole_but_not_into_the_prompt(self) -> None:
        """The response format carries the JSON Schema; the prompt carries the shape."""
        request = build_request(UNIT, tasks())
        prompt = request.messages[-1]["content"]
        assert request.schema is not None
        assert set(request.schema["required"]) == {key for key, _, _ in CHECKS}
        assert "additionalProperties" not in prompt
        assert len(prompt) < len(json.dumps(request.schema, ensure_ascii=False))

    def test_each_primitive_s_shape(self) -> None:
        shapes = {key: shape(task.schema) for key, task in tasks()}
        assert shapes["polite"] == ('{"score": integer 0 to 5, "reason": string '
                                    '(one short sentence, at most 120 characters)}')
        assert shapes["intent"].startswith('{"label": "repair" | "other", "reason"')
        assert shapes["flow"] == ('{"greet": {"done": boolean, "turn": integer >= 0}, '
                                  '"ask_address": {"done": boolean, "turn": integer >= 0}}')
        assert shapes["safe"] == '{"flagged": ["violence" | "self_harm", ..., no repeats]}'


LEAVES = st.one_of(
    st.builds(dict, type=st.sampled_from(["string", "boolean", "integer", "number", "null"])),
    st.builds(dict, enum=st.lists(st.text(max_size=5) | st.integers(), min_size=1, max_size=4)),
    st.builds(dict, type=st.just("integer"), minimum=st.integers(), maximum=st.integers()),
    st.builds(dict, type=st.just("string"), description=st.text(max_size=10)),
    st.builds(dict, oneOf=st.just([{"type": "string"}])),
)
SCHEMAS = st.recursive(LEAVES, lambda inner: st.one_of(
    st.builds(dict, type=st.just("object"),
              properties=st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    st.builds(dict, type=st.just("array"), items=inner)), max_leaves=12)


@given(SCHEMAS)
def test_shape_names_every_key_and_choice_and_never_raises(schema: dict[str, Any]) -> None:
    """Whatever the schema, the notation mentions each property and enum value it has."""
    written = shape(schema)
    assert all(x in written for x in literals(schema))
