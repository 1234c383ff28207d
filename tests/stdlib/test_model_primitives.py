"""The model-backed primitives through a fake judge injected by the public protocol.

One class per primitive: params validation, how an answer is read, pins, and
the runtime's handling of what the judge says (the fake returns whatever the
test wants, so every reading rule is exercised without a server).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import ValidationError

from evaldsl.cases.case import Case
from evaldsl.cases.scopes import ALL_SCOPES, Scope
from evaldsl.model import JudgeAnswer, JudgeRequest, ModelRequest, default_runtime
from evaldsl.model.settings import Settings
from evaldsl.primitives.registry import Cost, default_registry
from evaldsl.values import CheckResult


class FakeJudge:
    """A `Judge` answering every property from a function of its key."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.requests: list[JudgeRequest] = []

    async def complete(self, request: JudgeRequest) -> JudgeAnswer:
        self.requests.append(request)
        assert request.schema is not None
        keys = request.schema["properties"]
        return JudgeAnswer("", {k: self.answer[k] for k in keys})


class FakeEmbedder:
    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.vectors[t] for t in texts]


def case(*turns: str) -> Case:
    roles = ("user", "assistant")
    return Case.from_dict({"id": "t", "messages": [
        {"role": roles[i % 2], "content": t} for i, t in enumerate(turns)]})


def run(primitive: str, answer: Any, the_case: Case, scope: str | None = None,
        embedder: Any = None, **params: Any) -> tuple[CheckResult, FakeJudge]:
    entry = default_registry().get(primitive)
    assert entry is not None
    validated = entry.params(**params)
    request = ModelRequest("c", entry, validated, entry.factory(validated),
                           Scope(scope or entry.default_scope or "dialog"))
    judge = FakeJudge({"c": answer})
    runtime = default_runtime(Settings(cache_enabled=False), judge=judge,
                              embedder=embedder or FakeEmbedder({}))
    result, = asyncio.run(runtime.resolve(the_case, [request]))
    return result, judge


def pin(primitive: str, fields: dict[str, Any], **params: Any) -> CheckResult:
    entry = default_registry().get(primitive)
    assert entry is not None and entry.pin is not None
    return entry.pin(entry.params(**params), fields)


DIALOG = case("我想预约修空调，电话13812345678", "好的，请问地址是？", "北京市海淀区",
              "已预约明天上午")


class TestRegistry:
    @pytest.mark.parametrize("name", ["judge", "classify", "slots", "steps", "similarity",
                                      "refusal", "moderation"])
    def test_every_model_primitive_is_registered_for_every_scope(self, name: str) -> None:
        """Model cost, every scope including the dialog, a docstring with an example."""
        entry = default_registry().get(name)
        assert entry is not None
        assert entry.cost is Cost.MODEL
        assert entry.scopes == ALL_SCOPES
        assert entry.pin is not None
        assert f"{name}(" in entry.doc
        assert {"fuse", "examples"} <= set(entry.params.model_fields)


class TestJudge:
    def test_points_score_and_min(self) -> None:
        """8 of 10 with `min: 7`: passed, score 0.8, value 8."""
        result, _ = run("judge", {"reason": "ok", "score": 8}, DIALOG, criteria="礼貌", min=7)
        assert (result.passed, result.score, result.value, result.reason) == (True, 0.8, 8, "ok")

    def test_default_min_is_sixty_percent_of_the_scale(self) -> None:
        """Without `min`, 3 of 5 passes and 2 of 5 fails."""
        assert run("judge", {"reason": "", "score": 3}, DIALOG, criteria="x", scale=5)[0].passed
        assert not run("judge", {"reason": "", "score": 2}, DIALOG, criteria="x",
                       scale=5)[0].passed

    def test_a_score_off_the_scale_is_an_error(self) -> None:
        """11 on a 0..10 scale is an error value keeping the raw answer, after one repair."""
        result, judge = run("judge", {"reason": "", "score": 11}, DIALOG, criteria="x")
        assert result.is_error and "11 is greater than the maximum of 10" in result.reason
        assert '"score": 11' in result.reason
        assert len(judge.requests) == 2

    def test_min_above_the_scale_is_rejected(self) -> None:
        """`min: 12` with `scale: 10` fails validation (the checker reports it)."""
        with pytest.raises(ValidationError, match="above the scale"):
            default_registry().get("judge").params(criteria="x", scale=10, min=12)  # type: ignore[union-attr]

    def test_examples_are_shown_to_the_judge(self) -> None:
        """Few-shot examples from the spec appear in the prompt."""
        _, judge = run("judge", {"reason": "", "score": 5}, DIALOG, criteria="x",
                       examples=[{"text": "滚", "answer": 0, "why": "rude"}])
        assert '"滚"' in judge.requests[0].messages[1]["content"]

    def test_pin_from_value(self) -> None:
        """`given polite = 8` on a 10-point scale with `min: 7`."""
        result = pin("judge", {"value": 8}, criteria="x", min=7)
        assert (result.passed, result.score, result.value) == (True, 0.8, 8.0)


class TestClassify:
    def test_expected_label_passes(self) -> None:
        """The label chosen is `.label` and `.value`; it matches `expect`."""
        result, _ = run("classify", {"reason": "", "label": "booking"}, DIALOG,
                        labels={"booking": "预约", "other": "其他"}, expect="booking")
        assert (result.passed, result.fields["label"], result.value) == (True, "booking",
                                                                          "booking")

    def test_partial_credit_within_a_family(self) -> None:
        """With `accept_partial`, `booking.repair` for `booking.install` passes at 0.5."""
        labels = ["booking.repair", "booking.install", "other"]
        result, _ = run("classify", {"reason": "", "label": "booking.repair"}, DIALOG,
                        labels=labels, expect="booking.install", accept_partial=True)
        assert (result.passed, result.score) == (True, 0.5)
        strict, _ = run("classify", {"reason": "", "label": "booking.repair"}, DIALOG,
                        labels=labels, expect="booking.install")
        assert (strict.passed, strict.score) == (False, 0.0)

    def test_pin_by_label(self) -> None:
        """`given intent.label = "other"` against `expect: booking` fails."""
        result = pin("classify", {"label": "other"}, labels=["booking", "other"],
                     expect="booking")
        assert (result.passed, result.fields["label"]) == (False, "other")


class TestSlots:
    SLOTS = {"phone": "联系电话", "address": "服务地址", "time": "预约时间"}

    def test_score_is_filled_over_total(self) -> None:
        """Two of three filled: score 2/3; `.filled` per slot."""
        answer = {"phone": {"evidence": "13812345678"}, "address": {"evidence": "北京市海淀区"},
                  "time": {"evidence": ""}}
        result, _ = run("slots", answer, DIALOG, slots=self.SLOTS, min=0.6)
        assert result.fields["filled"] == {"phone": True, "address": True, "time": False}
        assert result.passed is True and result.score == pytest.approx(2 / 3)

    def test_a_pattern_decides_its_slot_and_the_model_the_rest(self) -> None:
        """The phone pattern matches; only address and time are asked."""
        answer = {"address": {"evidence": "北京市海淀区"}, "time": {"evidence": "明天上午"}}
        result, judge = run("slots", answer, DIALOG, slots=self.SLOTS,
                            patterns={"phone": r"1[3-9]\d{9}"})
        assert result.fields["filled"] == {"phone": True, "address": True, "time": True}
        assert set(judge.requests[0].schema["properties"]["c"]["properties"]) == {  # type: ignore[index]
            "address", "time"}

    def test_step_mode_patterns_read_the_agents_words(self) -> None:
        """In `step` mode a pattern must match what the agent said; the user's number
        does not fill the slot, and a slot with a pattern asks no model."""
        result, judge = run("slots", {"phone": {"evidence": ""}}, DIALOG,
                            slots={"phone": "电话"}, mode="step", patterns={"phone": r"1\d{10}"})
        assert result.fields["filled"] == {"phone": False}
        assert judge.requests == []

    def test_evidence_must_be_in_the_dialog(self) -> None:
        """A quote the dialog does not contain fills nothing; width and spacing are folded."""
        answer = {"phone": {"evidence": "１３８ 1234 5678"}, "address": {"evidence": "上海市"},
                  "time": {"evidence": "明天上午"}}
        result, _ = run("slots", answer, DIALOG, slots=self.SLOTS, min=0.6)
        assert result.fields["filled"] == {"phone": True, "address": False, "time": True}

    def test_step_mode_evidence_must_be_the_agents_words(self) -> None:
        """In `step` mode only what the assistant said can show a step."""
        answer = {"phone": {"evidence": "13812345678"}}
        result, _ = run("slots", answer, DIALOG, slots={"phone": "电话"}, mode="step")
        assert result.fields["filled"] == {"phone": False}

    def test_a_pattern_timeout_errors_only_its_own_check(self) -> None:
        """A catastrophic slot pattern makes that check an error; the round's others are judged."""
        slow_entry, ok_entry = default_registry().get("slots"), default_registry().get("judge")
        assert slow_entry is not None and ok_entry is not None
        slow = slow_entry.params(slots={"code": "编号"}, patterns={"code": "^(a|aa)+$"})
        ok = ok_entry.params(criteria="礼貌")
        requests = [ModelRequest("slow", slow_entry, slow, slow_entry.factory(slow),
                                 Scope("last_reply")),
                    ModelRequest("ok", ok_entry, ok, ok_entry.factory(ok), Scope("last_reply"))]
        judge = FakeJudge({"ok": {"reason": "ok", "score": 9}})
        runtime = default_runtime(Settings(cache_enabled=False), judge=judge,
                                  embedder=FakeEmbedder({}))
        slow_result, ok_result = asyncio.run(
            runtime.resolve(case("编号？", "a" * 40 + "!"), requests))
        assert slow_result.is_error and "longer than" in slow_result.reason
        assert ok_result.passed is True and ok_result.value == 9

    def test_a_pattern_for_an_unknown_slot_is_rejected(self) -> None:
        """`patterns` may only name declared slots, and must compile."""
        params = default_registry().get("slots").params  # type: ignore[union-attr]
        with pytest.raises(ValidationError, match="unknown slot `fax`"):
            params(slots={"phone": "电话"}, patterns={"fax": "x"})
        with pytest.raises(ValidationError, match="not a valid regex"):
            params(slots={"phone": "电话"}, patterns={"phone": "("})

    def test_pin_by_filled_map(self) -> None:
        """`given completion.filled = {phone: true}` gives 1/3."""
        result = pin("slots", {"filled": {"phone": True}}, slots=self.SLOTS)
        assert result.score == pytest.approx(1 / 3) and result.passed is False


class TestSteps:
    STEPS = {"apologize": "道歉", "verify": "核实订单", "resolve": "给出方案"}

    def test_order_is_checked_when_asked(self) -> None:
        """All done but `resolve` before `verify`: fails only with `ordered: true`."""
        answer = {"apologize": {"done": True, "turn": 2}, "verify": {"done": True, "turn": 6},
                  "resolve": {"done": True, "turn": 4}}
        ordered, _ = run("steps", answer, DIALOG, steps=self.STEPS, ordered=True)
        loose, _ = run("steps", answer, DIALOG, steps=self.STEPS)
        assert (ordered.passed, ordered.fields["order_ok"]) == (False, False)
        assert (loose.passed, loose.score) == (True, 1.0)

    def test_missing_steps_lower_the_score(self) -> None:
        """One of three done: score 1/3; undone steps do not break the order."""
        answer = {"apologize": {"done": True, "turn": 2}, "verify": {"done": False, "turn": 0},
                  "resolve": {"done": False, "turn": 0}}
        result, _ = run("steps", answer, DIALOG, steps=self.STEPS, ordered=True, min=0.3)
        assert result.passed is True and result.fields["order_ok"] is True


class TestRefusal:
    @pytest.mark.parametrize(("kind", "expect", "passed"), [
        ("refusal", True, True), ("clarification", True, True), ("answer", True, False),
        ("answer", False, True), ("refusal", False, False)])
    def test_kinds_against_expectation(self, kind: str, expect: bool, passed: bool) -> None:
        """Declining or clarifying handles an unsolvable request; answering a solvable one."""
        result, _ = run("refusal", {"reason": "", "kind": kind}, DIALOG, expect=expect)
        assert (result.passed, result.fields["kind"]) == (passed, kind)


class TestSimilarity:
    def test_value_is_the_cosine(self) -> None:
        """Orthogonal vectors: cosine 0, fails; the same vector: 1, passes."""
        vectors = {"已预约明天上午": [1.0, 0.0], "明天上午": [1.0, 0.0], "别的": [0.0, 1.0]}
        same, _ = run("similarity", None, DIALOG, embedder=FakeEmbedder(vectors),
                      reference="明天上午")
        other, _ = run("similarity", None, DIALOG, embedder=FakeEmbedder(vectors),
                       reference="别的")
        assert (same.passed, same.value) == (True, 1.0)
        assert (other.passed, other.value) == (False, 0.0)

    def test_embedder_failure_is_an_error(self) -> None:
        """An embedder that raises gives the check an error value."""
        result, _ = run("similarity", None, DIALOG, embedder=FakeEmbedder({}), reference="x")
        assert result.is_error


class TestBarePins:
    @pytest.mark.parametrize(("primitive", "params"), [
        ("judge", {"criteria": "x", "min": 7}),
        ("classify", {"labels": ["a", "b"], "expect": "a"}),
        ("slots", {"slots": {"phone": "电话"}}),
        ("steps", {"steps": ["greet"]}),
        ("similarity", {"reference": "x"}),
        ("refusal", {}),
    ])
    @pytest.mark.parametrize("passed", [True, False])
    def test_given_true_or_false_pins_a_consistent_result(self, primitive: str,
                                                          params: dict[str, Any],
                                                          passed: bool) -> None:
        """`given check = true/false` gives that verdict with a score that agrees."""
        result = pin(primitive, {"passed": passed}, **params)
        assert result.passed is passed
        assert isinstance(result.score, float)
        assert (result.score > 0) is passed


class TestModeration:
    CATEGORIES = {"hate": "歧视或侮辱", "violence": "暴力威胁"}

    def test_nothing_flagged_passes(self) -> None:
        result, judge = run("moderation", {"flagged": []}, DIALOG, categories=self.CATEGORIES)
        assert (result.passed, result.value, result.fields["flagged"]) == (True, 0, [])
        assert len(judge.requests) == 1

    def test_flagged_categories_fail_and_are_listed(self) -> None:
        result, _ = run("moderation", {"flagged": ["violence", "hate"]}, DIALOG,
                        categories=self.CATEGORIES)
        assert (result.passed, result.value) == (False, 2)
        assert result.fields["flagged"] == ["hate", "violence"]

    def test_an_unknown_category_in_the_answer_is_an_error(self) -> None:
        """The schema names the categories; anything else is malformed output, never a pass."""
        result, _ = run("moderation", {"flagged": ["spam"]}, DIALOG, categories=self.CATEGORIES)
        assert result.is_error

    def test_default_categories_when_none_given(self) -> None:
        result, judge = run("moderation", {"flagged": []}, DIALOG)
        schema = judge.requests[0].schema
        assert schema is not None
        assert "self_harm" in str(schema)
        assert result.passed is True


class TestClassifyExpectedLabel:
    """An expected label outside the taxonomy is an error, never a wrong intent."""

    SPEC = """
case { intent: text }
let intents = {appointment_booking: "预约服务", refund_request: "退款", other: "其他"}
check intent = classify(labels: intents, expect: case.intent)
metric accuracy = rate(intent)
"""

    def test_unknown_gold_label_is_an_error_value_naming_it(self) -> None:
        """A case whose gold intent is no label gives an error result, before any judge."""
        import evaldsl

        judge = FakeJudge({"intent": {"reason": "", "label": "refund_request"}})
        spec = evaldsl.loads(self.SPEC, judge=judge)
        row = {"id": "c1", "intent": "refund_requests",
               "messages": [{"role": "user", "content": "我要退款"}]}
        result = spec.evaluate(row).checks["intent"]
        assert result.is_error
        assert result.reason == (
            'parameter `expect`: expected label "refund_requests" is not a label of the '
            "taxonomy (labels: appointment_booking, refund_request, other; "
            "did you mean `refund_request`?)")
        assert judge.requests == []

    def test_a_constant_unknown_label_is_a_check_time_error(self) -> None:
        """`expect: "退款申请"` against English labels is E204 at the text, no suggestion."""
        from evaldsl.checker import check_source

        text = self.SPEC.replace("case.intent", '"退款申请"')
        _, found = check_source(text, "t.eval")
        assert [(d.code, d.message) for d in found] == [(
            "E204", '`expect`: expected label "退款申请" is not a label of the taxonomy '
            "(labels: appointment_booking, refund_request, other)")]

    def test_a_pinned_label_outside_the_taxonomy_is_a_check_time_error(self) -> None:
        """`given intent.label = "refund"` could never come from the judge: E506 at the value."""
        from evaldsl.checker import check_source

        text = self.SPEC + ('example "e" {\n  user "hi"\n  given intent.label = "refund"\n'
                            "  expect intent\n}\n")
        _, found = check_source(text, "t.eval")
        assert [(d.code, d.span.line, d.message) for d in found] == [(
            "E506", 8, '`given intent.label`: "refund" is not a label of the taxonomy '
            "(labels: appointment_booking, refund_request, other; did you mean "
            "`refund_request`?)")]

    def test_validation_rejects_a_label_outside_the_taxonomy(self) -> None:
        """The params model refuses it, so pins and per-case values share one rule."""
        with pytest.raises(ValidationError, match="is not a label of the taxonomy"):
            pin("classify", {"label": "a"}, labels=["a", "b"], expect=["a", "c"])
