"""`Message`, `Case` and `Unit` are built by hand-written `__init__`s (each field set through
its slot, as `slot_setters` gives): the same objects the dataclasses' own would build."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from evaldsl.cases.case import (
    Case,
    Message,
    ToolCall,
    _checked,
    draft_of,
    plain_message,
    read_case,
    slot_setters,
)
from evaldsl.cases.scopes import Unit


@pytest.mark.parametrize("cls", [Message, Case, Unit])
def test_the_init_takes_the_fields_in_order_with_their_defaults(cls: type) -> None:
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [p.name for p in params] == [f.name for f in dataclasses.fields(cls)]
    for p, f in zip(params, dataclasses.fields(cls), strict=True):
        if f.default is not dataclasses.MISSING:
            assert p.default == f.default


def test_every_field_is_set_as_given_and_stays_frozen() -> None:
    call = ToolCall("f", {})
    message = Message("tool", "ok", (call,), 12.0, "f", "t1", False)
    assert dataclasses.astuple(message)[1:] == ("ok", (dataclasses.astuple(call),), 12.0, "f",
                                                "t1", False)
    assert message == Message(role="tool", content="ok", tool_calls=(call,), latency_ms=12.0,
                              name="f", tool_call_id="t1", recorded=False)
    plain = Message("user", "hi")
    assert hash(plain) == hash(dataclasses.replace(plain)) == hash(Message("user", "hi"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.content = "changed"  # type: ignore[misc]
    unit = Unit((message,), "ok", (2,), 3)
    assert (unit.messages, unit.text, unit.numbers, unit.total) == ((message,), "ok", (2,), 3)


def test_a_case_without_fields_gets_a_dict_of_its_own() -> None:
    one, two = Case("a", ()), Case("b", ())
    assert one.fields == {} and one.fields is not two.fields
    assert (one.origin, one.unrecorded) == ("", False)
    assert dataclasses.replace(one, origin="x.jsonl:1").origin == "x.jsonl:1"


def test_setters_for_fields_out_of_order_are_refused() -> None:
    with pytest.raises(AssertionError):
        slot_setters(Unit, ("text", "messages", "numbers", "total"))


def test_a_drafted_message_and_case_are_the_ones_init_builds() -> None:
    """The readers' builders (`draft_of`) give real, frozen objects equal to `__init__`'s."""
    message = plain_message("assistant", "hi", 12.0)
    assert type(message) is Message
    assert message == Message("assistant", "hi", (), 12.0)
    assert hash(message) == hash(Message("assistant", "hi", (), 12.0))
    assert dataclasses.astuple(plain_message("user", "x", None)) == dataclasses.astuple(
        Message("user", "x"))
    fields = {"k": [1]}
    case = read_case("a", (message,), fields, "f.jsonl:3")
    assert type(case) is Case and case.fields is fields
    assert case == Case("a", (message,), fields, "f.jsonl:3")
    assert dataclasses.replace(case, origin="").origin == ""
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.content = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        case.origin = "changed"  # type: ignore[misc]


def test_a_builder_that_misses_a_field_fails() -> None:
    draft = draft_of(Message)()
    draft.role, draft.content = "user", "hi"
    draft.__class__ = Message
    with pytest.raises(AttributeError):
        _checked(draft, Message("user", "hi"))
    with pytest.raises(AssertionError):
        _checked(Message("user", "hi!"), Message("user", "hi"))
