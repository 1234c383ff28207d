"""The default runtime through the real `openai` client against the test server."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaldsl.values import ErrorValue

THREE = [
    ("polite", "judge", {"criteria": "服务态度是否专业、礼貌", "scale": 10, "min": 7}),
    ("clear", "judge", {"criteria": "the next step is clear", "scale": 5}),
    ("declined", "refusal", {}),
]


def three(requests_of: Any, fuse: bool = True) -> list[Any]:
    return [requests_of(n, p, "last_reply", fuse=fuse, **kw) for n, p, kw in THREE]


def resolve(runtime: Any, case: Any, requests: list[Any]) -> list[Any]:
    return asyncio.run(runtime.resolve(case, requests))


class TestStructuredAnswers:
    def test_every_primitive_reads_a_conforming_answer(self, runtime_for: Any, requests_of: Any,
                                                       make_dialog: Any) -> None:
        """Each model primitive gets a decided result from a json_schema answer."""
        runtime = runtime_for()
        requests = [
            requests_of("polite", "judge", criteria="礼貌", scale=10),
            requests_of("intent", "classify", "first_user", labels=["booking", "other"]),
            requests_of("info", "slots", "dialog", slots={"phone": "电话", "addr": "地址"}),
            requests_of("flow", "steps", "dialog", steps=["greet", "confirm"], ordered=True),
            requests_of("declined", "refusal"),
            requests_of("same", "similarity", reference="好的，师傅明天上门"),
        ]
        case = make_dialog("我想预约维修", "好的，师傅明天上门")
        results = resolve(runtime, case, requests)
        assert [r.is_error for r in results] == [False] * 6
        assert 0 <= results[0].value <= 10
        assert results[1].fields["label"] in ("booking", "other")
        assert set(results[2].fields["filled"]) == {"phone", "addr"}
        assert set(results[3].fields) == {"done", "order_ok"}
        assert results[4].fields["kind"] in ("refusal", "clarification", "answer")
        assert results[5].value > 0.99

    def test_a_scope_that_selects_nothing_is_an_error(self, runtime_for: Any,
                                                      requests_of: Any, make_dialog: Any) -> None:
        """A dialog without replies gives an error result, not a verdict."""
        result, = resolve(runtime_for(), make_dialog("你好"), [requests_of("p", "judge",
                                                                          criteria="x")])
        assert isinstance(result.passed, ErrorValue)
        assert "selects nothing" in result.reason


class TestFusion:
    def test_checks_on_one_scope_share_one_request(self, runtime_for: Any, requests_of: Any,
                                                   make_dialog: Any, openai_server: Any) -> None:
        """Three model checks on the last reply cost one call."""
        runtime = runtime_for(cache=False)
        resolve(runtime, make_dialog("hi", "hello"), three(requests_of))
        assert openai_server.stats()["chat"] == 1
        assert runtime.stats().calls == 1

    def test_fuse_false_asks_separately(self, runtime_for: Any, requests_of: Any,
                                        make_dialog: Any, openai_server: Any) -> None:
        """`fuse: false` gives every check its own request."""
        resolve(runtime_for(cache=False), make_dialog("hi", "hello"), three(requests_of, False))
        assert openai_server.stats()["chat"] == 3

    def test_different_scopes_are_not_fused(self, runtime_for: Any, requests_of: Any,
                                            make_dialog: Any, openai_server: Any) -> None:
        """Checks on different texts need different requests."""
        requests = [requests_of("a", "judge", "dialog", criteria="x"),
                    requests_of("b", "judge", "last_reply", criteria="y")]
        resolve(runtime_for(cache=False), make_dialog("hi", "hello"), requests)
        assert openai_server.stats()["chat"] == 2

    @settings(max_examples=12, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(turns=st.lists(st.text(min_size=1, max_size=40), min_size=2, max_size=5))
    def test_law_fused_verdicts_equal_separate_ones(self, runtime_for: Any, requests_of: Any,
                                                    make_dialog: Any, turns: list[str]) -> None:
        """Law: with a deterministic judge, fusing never changes a verdict."""
        runtime = runtime_for(cache=False)
        case = make_dialog(*turns)
        fused = resolve(runtime, case, three(requests_of, True))
        separate = resolve(runtime, case, three(requests_of, False))
        assert [r.to_dict() for r in fused] == [r.to_dict() for r in separate]


class TestPatterns:
    def test_slots_decided_by_pattern_need_no_model(self, runtime_for: Any, requests_of: Any,
                                                    make_dialog: Any, openai_server: Any) -> None:
        """A slot whose pattern matches is filled without a call."""
        request = requests_of("info", "slots", "dialog", slots={"phone": "电话"},
                              patterns={"phone": r"1[3-9]\d{9}"})
        result, = resolve(runtime_for(), make_dialog("电话13812345678", "好的"), [request])
        assert result.fields["filled"] == {"phone": True}
        assert openai_server.stats()["chat"] == 0


class TestEmbeddingBatches:
    def test_similarity_of_many_cases_is_batched(self, runtime_for: Any, requests_of: Any,
                                                 make_dialog: Any, openai_server: Any) -> None:
        """Forty concurrent cases embed in a handful of requests, not eighty."""
        runtime = runtime_for(cache=False)
        request = requests_of("same", "similarity", reference="师傅明天上门")

        async def main() -> list[Any]:
            cases = [make_dialog("约维修", f"师傅明天{i}点上门", case_id=str(i)) for i in range(40)]
            return await asyncio.gather(*(runtime.resolve(c, [request]) for c in cases))

        results = asyncio.run(main())
        assert all(not r[0].is_error for r in results)
        assert openai_server.stats()["embeddings"] <= 2

    def test_cosine_ranks_shared_wording_higher(self, runtime_for: Any, requests_of: Any,
                                                make_dialog: Any) -> None:
        """The value is the cosine: closer wording, higher value."""
        near = requests_of("near", "similarity", reference="师傅明天上午上门维修")
        far = requests_of("far", "similarity", reference="The stock market fell today")
        a, b = resolve(runtime_for(), make_dialog("约", "师傅明天上午上门"), [near, far])
        assert a.value > b.value


class TestModelOverride:
    def test_a_check_on_another_model_is_asked_apart(self, runtime_for: Any, requests_of: Any,
                                                     make_dialog: Any,
                                                     openai_server: Any) -> None:
        """`model:` sends that check to another model, in a request of its own."""
        requests = [requests_of("a", "judge", criteria="x"),
                    requests_of("b", "judge", criteria="y", model="bigger-model")]
        results = resolve(runtime_for(cache=False), make_dialog("hi", "hello"), requests)
        assert not any(r.is_error for r in results)
        assert sorted(openai_server.stats()["models"]) == ["bigger-model", "gpt-4o-mini"]
