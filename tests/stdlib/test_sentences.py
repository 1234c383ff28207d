"""Sentence units and the closing and courtesy formulas a check can leave out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.stdlib.sentences import content, is_formula, sentences

FORMULAS = ["Is there anything else I can help you with?", "No, that's it.", "不用了谢谢",
            "还有什么可以帮您的吗？", "Thank you very much!", "You're welcome.", "祝您生活愉快！",
            "no thanks", "Have a great day!", "Is there anything else i can do for you today?"]
CONTENT = ["The phone number is 01223 351880.", "No, that is not what I asked for.",
           "Unfortunately there are no trains on Sunday.", "电话是010-65137766。",
           "还有什么别的酒店吗？", "Yes, anything else cheaper?",
           "Thanks, and what is the postcode?",
           "不用了，我要去别的餐馆。"]


def test_each_formula_is_one() -> None:
    assert [f for f in FORMULAS if not is_formula(f)] == []


def test_a_sentence_with_task_content_is_never_a_formula() -> None:
    assert [c for c in CONTENT if is_formula(c)] == []


WORDS = st.sampled_from(["hotel", "phone", "address", "酒店", "电话", "地址", "price", "12",
                         "cheap", "北京", "train", "table"])


CLOSINGS = ["Do you need help with anything else?", "Have a great day ahead!", "Have a good one.",
            "Could I assist you further?", "Can I still be of help to you?",
            "Will that be all?", "Anything else you need?", "What more can I help you with?",
            "Did you need help with anything further today?", "Enjoy the rest of your day.",
            "I am glad I could help.", "I'm happy to help.", "My pleasure to serve.",
            "See you next time.", "Talk to you soon!", "Hope you have a lovely evening!",
            "Do you need any further assistance then?", "May I assist you in any other way?",
            "Have a pleasant afternoon.", "Thank you too.", "Take care."]
COMPOUNDS = ["You're welcome, have a fine day.", "Okay, see you.", "Bye and have a nice day.",
             "Sure, have a good day.", "Ok, have a wonderful day then", "Of course, take care.",
             "I'm glad I was able to help you, have a great day.", "好的，祝您生活愉快！",
             "Take care and enjoy your day.", "Its my pleasure, bye!"]
NOT_CLOSINGS = ["Okay, the address is 12 Main Street.", "Sure, it has a garage.",
                "Yes, have a nice day.", "Have a look at 1288 Hillsdale Boulevard.",
                "Enjoy your stay at the Hilton, which has free wifi.", "Okay.", "Sure, 5 pm.",
                "Do you need help finding a hotel?", "Can I help you book a table?",
                "Have a nice day at the zoo, it opens at 9 am.", "好的，电话是010-6758。",
                "Bye, and the fare is $20.", "I'm glad to tell you it is free."]


def test_the_closings_of_many_wordings_are_formulas() -> None:
    assert [f for f in CLOSINGS if not is_formula(f)] == []


def test_a_sentence_of_formulas_joined_by_commas_or_and_is_one() -> None:
    assert [f for f in COMPOUNDS if not is_formula(f)] == []


def test_an_acknowledgement_or_an_answer_beside_a_formula_is_kept() -> None:
    assert [c for c in NOT_CLOSINGS if is_formula(c)] == []


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(CLOSINGS + COMPOUNDS), min_size=1, max_size=3),
       st.lists(WORDS, min_size=1, max_size=4), st.sampled_from([", ", " and ", "，"]))
def test_a_clause_with_content_joined_to_formulas_is_kept(formulas: list[str], words: list[str],
                                                          joint: str) -> None:
    """A sentence of formula clauses with one clause that names the task is kept whole."""
    sentence = joint.join([*[f.rstrip(".!?！。？") for f in formulas], " ".join(words)]) + "."
    assert not is_formula(sentence)
    assert content(sentence) == [sentence]


def test_a_reply_of_nothing_but_acknowledgements_and_formulas_says_nothing() -> None:
    assert content("Okay. Have a great day.") == []
    assert content("Great! Glad I could help. Bye!") == []
    assert content("好的。祝您生活愉快！") == []
    assert content("Okay.") == ["Okay."]
    assert content("Sure. The fare is $20. Have a nice day.") == ["Sure.", "The fare is $20."]


def test_a_reply_is_cut_into_sentences_and_the_formula_left_out() -> None:
    reply = "The phone number is 01223 351880. Is there anything else I can help with?"
    assert sentences(reply) == ["The phone number is 01223 351880.",
                                "Is there anything else I can help with?"]
    assert content(reply) == ["The phone number is 01223 351880."]
    assert content("好的，电话是010-6758。还有什么可以帮您的吗？") == ["好的，电话是010-6758。"]
    assert sentences("It costs 3.5 pounds.") == ["It costs 3.5 pounds."]



@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(FORMULAS), max_size=3), st.lists(WORDS, min_size=1, max_size=4),
       st.sampled_from([" ", "，", ", "]))
def test_a_formula_with_a_content_word_added_is_kept(formulas: list[str], words: list[str],
                                                     joint: str) -> None:
    """Whatever formulas surround it, a sentence that names something of the task stays."""
    sentence = joint.join([*words, "?"])
    kept = content(" ".join([*formulas, sentence]))
    assert any(all(w in s for w in words) for s in kept)


def test_text_checks_can_leave_the_formulas_out() -> None:
    from evaldsl.cases.case import Case
    from evaldsl.cases.scopes import Scope
    from evaldsl.primitives.registry import default_registry

    case = Case.from_dict({"id": "t", "messages": [
        {"role": "user", "content": "Book it."},
        {"role": "assistant", "content": "Booked, reference 4Q7Z. Is there anything else?"}]})
    regex = default_registry().get("regex")
    asks_back = {"pattern": r"\?", "must_match": False}
    kept = regex.factory(regex.params.model_validate(asks_back))(case, Scope("last_reply"))
    left = regex.factory(regex.params.model_validate({**asks_back, "formulas": "leave_out"}))(
        case, Scope("last_reply"))
    assert (kept.passed, left.passed) == (False, True)
    keyword = default_registry().get("keyword")
    params = keyword.params.model_validate({"any": ["anything else"], "formulas": "leave_out"})
    assert keyword.factory(params)(case, Scope("last_reply")).passed is False


ZH_COURTESIES = ["不用客气！", "别客气。", "您客气了呢。", "太客气了。", "您太客气了！", "客气。",
                 "不客气的。", "不客气哈！", "不客气哦。", "不客气啊。", "没事，你太客气了！",
                 "没事，很乐意帮助你。", "客气，有问题就联系我吧！", "欢迎下次咨询。",
                 "很高兴为您效劳。", "玩得开心！", "谢谢你了啊。", "好嘞，谢谢你。",
                 "收到，非常感谢！", "谢谢！没有问题了，再见！"]
ZH_NOT_COURTESIES = ["客气什么，电话是65686553。", "有问题的话，地址在东长安街33号。",
                     "不用客气，门票免费。", "没事，周边有故宫。", "收到的是免费的门票吗？",
                     "没有问题，他家提供wifi。", "有的呢。", "是的哦。"]


def test_chinese_courtesies_of_many_wordings_are_formulas() -> None:
    """The courtesy replies of Chinese service dialogs: 客气 in its forms (不用/别/太/您……客气了),
    a closing modal particle (的 呢 哦 哈 啊 ...), "有问题就联系我", "欢迎下次咨询"."""
    assert [f for f in ZH_COURTESIES if content(f)] == []


def test_a_chinese_courtesy_beside_an_answer_is_kept() -> None:
    assert [c for c in ZH_NOT_COURTESIES if is_formula(c)] == []
