"""`answered`: the requests the user made and whether the agent answered each."""

from __future__ import annotations

from typing import Any

from evaldsl.cases.scopes import Scope
from evaldsl.primitives.registry import default_registry
from tests.stdlib.conftest import dialog

ASKS = {"phone": ["phone"], "address": ["address", "where is it"], "price": ["price"]}


def run(case: Any, scope: str = "dialog", **params: Any) -> Any:
    primitive = default_registry().get("answered")
    model = primitive.params.model_validate({"asks": ASKS, **params})
    return primitive.factory(model)(case, Scope(scope))


def test_each_request_is_answered_by_a_later_sentence_not_by_a_formula() -> None:
    case = dialog(("user", "What is the phone number? And where is it?"),
                  ("assistant", "The phone is 01223 351880. Is there anything else?"),
                  ("user", "No, that's it."))
    result = run(case)
    assert result.fields["asked"] == ["phone", "address"]
    assert result.fields["unanswered"] == ["address"]
    assert result.value == 0.5 and result.passed is False and result.fields["count"] == 2


def test_gives_overrides_the_asks_patterns_and_cues_filter_informs() -> None:
    case = dialog(("user", "I want a hotel in this price range. What is the phone?"),
                  ("assistant", "Call 01223 351880."))
    result = run(case, gives={"phone": [r"\d{5} \d{6}"]}, cues=[r"\?", "what"])
    assert result.fields["asked"] == ["phone"] and result.passed is True


def test_within_exchange_stops_at_the_next_user_message() -> None:
    case = dialog(("user", "What is the address?"), ("assistant", "Let me check."),
                  ("user", "Thanks."), ("assistant", "The address is 1 Mill Road."))
    assert run(case).passed is True
    assert run(case, within="exchange").passed is False


def test_nothing_asked_passes_with_a_count_of_zero() -> None:
    result = run(dialog(("user", "Hello"), ("assistant", "Hi")))
    assert result.passed is True and result.fields["count"] == 0 and result.value == 1.0


def test_a_dialog_cut_after_a_request_is_unanswered() -> None:
    result = run(dialog(("user", "Hi"), ("assistant", "Hello"), ("user", "The price?")))
    assert result.fields["unanswered"] == ["price"]


def test_exchange_scopes_judge_each_exchange() -> None:
    case = dialog(("assistant", "Welcome"), ("user", "Phone?"), ("assistant", "It is 123."),
                  ("user", "Address?"), ("assistant", "Bye."))
    each = run(case, scope="each_exchange", gives={"phone": ["\\d"], "address": ["road"]})
    anyone = run(case, scope="any_exchange", gives={"phone": ["\\d"], "address": ["road"]})
    assert (each.passed, each.score) == (False, 0.5)
    assert anyone.passed is True


def test_unless_keeps_a_negated_sentence_from_asking() -> None:
    case = dialog(("user", "I'm not ready to book yet. What is the price?"),
                  ("assistant", "It is 5 pounds."))
    primitive = default_registry().get("answered")
    model = primitive.params.model_validate({
        "asks": {"booking": ["book"], "price": ["price"]},
        "gives": {"booking": ["reference"], "price": ["pounds"]},
        "unless": [r"\bnot\b.{0,20}\bbook"]})
    result = primitive.factory(model)(case, Scope("dialog"))
    assert result.fields["asked"] == ["price"] and result.passed is True


def test_an_exchange_scope_where_none_applies_is_said() -> None:
    """A primitive that judges no exchanges refuses the scope at check time (E205), and a
    dialog without a user message has no exchange to judge: an error value, not a pass."""
    import pytest

    import evaldsl
    from evaldsl.errors import SpecError

    with pytest.raises(SpecError, match="E205"):
        evaldsl.loads('spec "s"\ncheck mood = signals(scope: each_exchange)\n')
    spec = evaldsl.loads('spec "s"\ncheck c = answered(scope: each_exchange, '
                         'asks: {phone: ["phone"]})\n')
    result = spec.evaluate({"id": "1", "messages": [{"role": "assistant", "content": "Hi"}]})
    assert result.checks["c"].is_error and "each_exchange" in result.checks["c"].reason


def test_a_fallback_attribute_counts_only_where_no_named_one_is_asked() -> None:
    """`fallback` names the catch-all of questions the spec has no attribute for: a sentence
    asks for it only when it asks for no other attribute, so "tell me the phone" is one
    request of the phone, and "tell me the dress code" one of the catch-all."""
    case = dialog(("user", "Can you tell me the phone?"), ("assistant", "It is 01223 351880."),
                  ("user", "Can you tell me the dress code?"), ("assistant", "Smart casual."))
    asks = {**ASKS, "other": [r"tell me the"]}
    primitive = default_registry().get("answered")
    gives = {"phone": [r"\d"], "other": [r"\w"]}
    with_fallback = primitive.factory(primitive.params.model_validate(
        {"asks": asks, "gives": gives, "fallback": "other"}))(case, Scope("dialog"))
    assert with_fallback.fields["asked"] == ["phone", "other"]
    assert with_fallback.passed is True
    without = primitive.factory(primitive.params.model_validate({"asks": asks}))(
        case, Scope("dialog"))
    assert without.fields["asked"] == ["phone", "other", "other"]


def test_a_fallback_that_asks_does_not_name_is_an_error() -> None:
    import pytest

    import evaldsl
    from evaldsl.errors import SpecError

    with pytest.raises(SpecError, match="E204") as caught:
        evaldsl.loads('spec "s"\ncheck c = answered(asks: {phone: ["phone"]}, '
                      'fallback: "other")\n')
    assert "`fallback` names `other`, which `asks` does not" in str(caught.value)


def test_until_silent_a_reply_of_courtesy_alone_lets_the_request_go() -> None:
    """An agent that answers a request with nothing but courtesy has let it go: the same
    attribute given later, for something else, answers a later request, not this one.
    A question back keeps the request open until the answer comes."""
    dropped = dialog(("user", "What is the phone number?"),
                     ("assistant", "You're welcome. Have a nice day."),
                     ("user", "I also need a taxi."),
                     ("assistant", "Booked, the driver's phone is 07700 900123."))
    asked_back = dialog(("user", "What is the phone number?"),
                        ("assistant", "Which of the two hotels?"),
                        ("user", "The first one."),
                        ("assistant", "Its phone is 01223 351880."))
    assert run(dropped).passed is True
    assert run(dropped, within="until_silent").fields["unanswered"] == ["phone"]
    assert run(asked_back, within="until_silent").passed is True


def test_listed_names_ask_only_beside_another_request() -> None:
    """A bare attribute name in a list of what the user asks for is asked ("the phone
    number, area and postcode"); the same name elsewhere is a constraint ("a hotel in
    the north area")."""
    asking = dialog(("user", "I need the phone number, area and postcode please."),
                    ("assistant", "It is in the north, phone 01223 351880."))
    constraint = dialog(("user", "Is there a hotel in the north area?"),
                        ("assistant", "Yes, the Acorn."))
    params = {"asks": {**ASKS, "area": ["which area"]}, "listed": {"area": ["area"]},
              "gives": {"area": ["north"]}}
    result = run(asking, **params)
    assert result.fields["asked"] == ["phone", "area"]
    assert result.fields["unanswered"] == []
    assert run(constraint, **params).fields["count"] == 0
    assert run(asking, asks=params["asks"]).fields["asked"] == ["phone"]


def test_a_request_asked_again_in_the_next_message_is_answered_when_the_repeat_is() -> None:
    """The agent asks back (or misses it), the user asks again and gets it: with `repeats:
    joined` the first ask is answered too; a different attribute next is no repeat."""
    asked_back = dialog(("user", "What is the phone of the museum?"),
                        ("assistant", "Which museum do you mean?"),
                        ("user", "The science museum. What is the phone?"),
                        ("assistant", "The phone is 01223 351880."))
    apart = run(asked_back, within="exchange")
    joined = run(asked_back, within="exchange", repeats="joined")
    assert (apart.fields["answered"], apart.fields["count"]) == (["phone"], 2)
    assert (joined.fields["answered"], joined.fields["count"]) == (["phone", "phone"], 2)
    moved_on = dialog(("user", "What is the phone?"), ("assistant", "Let me see."),
                      ("user", "And the address?"), ("assistant", "It is on 1 Mill Road."),
                      ("user", "What is the phone?"), ("assistant", "01223 351880."))
    assert run(moved_on, within="exchange", repeats="joined",
               gives={"phone": ["\\d{5}"], "address": ["road"]}).fields["unanswered"] == ["phone"]


def test_an_attribute_asked_in_a_sentence_can_rule_out_another() -> None:
    """"What restaurants are near it?" names a place, but asks for the neighbourhood, not a
    name: with `overrides: {nearby: [name]}` a sentence that asks for nearby is no request of a
    name; a sentence that asks only for a name still is one."""
    primitive = default_registry().get("answered")
    asks = {"name": ["restaurant"], "nearby": ["near it"]}
    case = dialog(("user", "Which restaurants are near it?"), ("assistant", "None, sorry."),
                  ("user", "Then find me a restaurant."), ("assistant", "Try the Curry Garden."))
    plain = primitive.factory(primitive.params.model_validate({"asks": asks}))(
        case, Scope("dialog"))
    ruled = primitive.factory(primitive.params.model_validate(
        {"asks": asks, "overrides": {"nearby": ["name"]}}))(case, Scope("dialog"))
    assert plain.fields["asked"] == ["name", "nearby", "name"]
    assert ruled.fields["asked"] == ["nearby", "name"]


def test_overrides_naming_an_unknown_attribute_is_an_error() -> None:
    import pytest

    import evaldsl
    from evaldsl.errors import SpecError

    with pytest.raises(SpecError, match="E204") as caught:
        evaldsl.loads('spec "s"\ncheck c = answered(asks: {phone: ["phone"]}, '
                      'overrides: {phone: ["fax"]})\n')
    assert "`overrides` names `fax`, which `asks` does not" in str(caught.value)
