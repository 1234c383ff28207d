"""Each check of specs/quality_monitoring_uss.eval means what its name says, read as a reviewer
would: short dialogs of the kinds an audit found judged wrongly (a courtesy formula read as a
question asked back, a name or an address read as nothing concrete, "No, that's it" read as a
correction, "Unfortunately" on a side question read as failure) and the kinds each check is
there to catch."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaldsl.api import Spec, load

SPEC = Path(__file__).resolve().parents[2] / "specs" / "quality_monitoring_uss.eval"


@pytest.fixture(scope="module")
def spec() -> Spec:
    return load(SPEC)


def dialog(*texts: str) -> dict[str, object]:
    """User and assistant turns, alternating, the user first."""
    roles = ("user", "assistant")
    messages = [{"role": roles[i % 2], "content": t} for i, t in enumerate(texts)]
    return {"id": texts[0][:40], "messages": messages}


# (check, dialog, whether a reviewer passes it, what the dialog shows)
CASES = [
    # 答复: answers rather than asks back
    ("答复", dialog("What is the phone number of the Golden Curry?",
                  "The phone number is 01223 329432. Is there anything else I can help you with?"),
     True, "an answer closed by 'Is there anything else?' answers"),
    ("答复", dialog("Thanks, that's all.", "Is there anything else I can help you with today?"),
     True, "a closing formula alone asks nothing back"),
    ("答复", dialog("Any cheap guesthouse?", "Alexander Bed and Breakfast is a cheap guesthouse "
                  "in the centre. Would you like me to book it?"),
     True, "an answer followed by an offer answers"),
    ("答复", dialog("I need a train to Norwich on Wednesday.", "There are 15 trains that arrive in "
                  "Norwich by 21:00, do you have a specific departure time?"),
     True, "a statement and a question in one sentence answers"),
    ("答复", dialog("Do they offer cosmetic services?", "No, they don't."),
     True, "a bare no answers a yes-or-no question"),
    ("答复", dialog("I'd like tickets for an event.",
                  "Sure thing. Where should I begin the search?"),
     False, "an acknowledgement and a question back"),
    ("答复", dialog("Can you find me a restaurant?", "What area of town would you like?"),
     False, "a reply that only asks back"),
    ("答复", dialog("I need a train to Cambridge.", "Where will you be departing from? "
                  "And what day would you like to travel?"),
     False, "two questions back, no answer"),
    # 具体: gives concrete information
    ("具体", dialog("Any Indian restaurant?",
                  "The Golden Curry is an Indian restaurant in the centre of town."),
     True, "a name and an area, no digit"),
    ("具体", dialog("Where is it?", "It is on Regent Street, near Parker's Piece."),
     True, "an address without a number"),
    ("具体", dialog("When does the train leave?", "It leaves at noon on Friday. Anything else?"),
     True, "a time in words"),
    ("具体", dialog("Thank you, goodbye.", "You're welcome. Have a great day!"),
     True, "a closing asks for no information"),
    ("具体", dialog("Can you find me a hotel?", "Let me look into that for you."),
     False, "a reply that gives nothing"),
    ("具体", dialog("Book it please.", "Sure, what day would you like to book for?"),
     False, "a question back gives nothing"),
    # 顺畅: the user does not correct the agent
    ("顺畅", dialog("Book a table for two at 7 pm.", "Done, your reference is 4Q7Z.",
                  "No, that's it. Thanks!", "Goodbye."),
     True, "'No, that's it' closes the dialog"),
    ("顺畅", dialog("Find me a cheap hotel.", "The Alpha-Milton is cheap. Shall I book it?",
                  "No, not right now.", "Is there anything else?",
                  "No, that's all I need.", "Goodbye."),
     True, "declining an offer corrects nothing"),
    ("顺畅", dialog("Book a table for Friday.", "I booked a table for Saturday.",
                  "No, I said Friday, not Saturday.", "Sorry, it is now Friday."),
     False, "the user corrects the day"),
    ("顺畅", dialog("I want the cheap one.", "The Gonville is expensive and in the centre.",
                  "That's wrong, I asked for a cheap hotel.", "Apologies."),
     False, "the user says the agent is wrong"),
    # 办成: the agent did not admit failure on the task
    ("办成", dialog("Book a room at the Acorn Guest House for 2 nights.",
                  "Your room is booked, reference 7GAWK763.",
                  "Does the guest house have free wifi?", "Unfortunately they do not have wifi."),
     True, "'Unfortunately' answers a side question; the task went through"),
    ("办成", dialog("Find me a restaurant in Fremont.", "Fu Lam Mum is in Fremont.",
                  "Do they serve alcohol?", "Sorry, they don't serve alcohol.",
                  "OK, book it for 2 at 6 pm.", "Your table is reserved."),
     True, "no alcohol is no failure of the booking"),
    ("办成", dialog("Were you able to book the Express by Holiday Inn for 4 people?",
                  "Yes, sorry about that.. the reference number is GT21FKR5."),
     True, "'sorry' as an apology, the booking made"),
    ("办成", dialog("Are there high chairs for babies at this restaurant?",
                  "I'm afraid child seating is not available here. Would you like to book?"),
     True, "a side question answered no"),
    ("办成", dialog("Please book a table for two at 7 pm at Bella Italia.",
                  "I'm sorry, I couldn't make the reservation. Is there anything else?"),
     False, "the booking failed"),
    ("办成", dialog("Book Lungomare for 2 at 11 am.", "Please confirm: Lungomare, 2 people, 11 am.",
                  "Yes. What's their address?",
                  "They're at 1433 Taraval, but I was unable to book a table for you."),
     False, "a booking failure told beside a side answer"),
    ("办成", dialog("I need a moderate hotel in the north with free parking.",
                  "Unfortunately, there are no hotels that match. Would a guest house do?"),
     False, "nothing found for the request"),
]


@pytest.mark.parametrize(("check", "case", "passes", "why"), CASES,
                         ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_each_check_means_what_its_name_says(spec: Spec, check: str, case: dict[str, object],
                                            passes: bool, why: str) -> None:
    result = spec.evaluate(case).checks[check]
    assert result.passed is passes, f"{check}: {why}: {result.reason}"


def test_every_audit_kind_has_a_false_and_a_true_hit() -> None:
    kinds = {(check, passes) for check, _, passes, _ in CASES}
    assert kinds == {(c, p) for c in ("答复", "具体", "顺畅", "办成") for p in (True, False)}
