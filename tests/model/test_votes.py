"""`votes: N` against the test server: samples combined, cached one by one, still fused."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import ValidationError

from evaldsl.model.votes import combine_votes
from evaldsl.values import CheckResult

DIALOG = ("我想约维修", "师傅明天上门")


def run(runtime: Any, case: Any, requests: list[Any]) -> list[Any]:
    return asyncio.run(runtime.resolve(case, requests))


def scores(openai_server: Any, key: str, values: list[int]) -> None:
    """The judge answers `key` with these points, one per request in turn."""
    openai_server.control(script=[{"contains": "师傅", "key": key,
                                   "values": [{"score": v, "reason": "r"} for v in values]}])


class TestVotedAnswers:
    def test_a_judge_takes_the_median_sample(self, runtime_for: Any, requests_of: Any,
                                             make_dialog: Any, openai_server: Any) -> None:
        """Points 2, 9 and 5 give 5 (not their mean), which one sample in three gave."""
        scores(openai_server, "polite", [2, 9, 5])
        result, = run(runtime_for(), make_dialog(*DIALOG),
                      [requests_of("polite", "judge", criteria="礼貌", votes=3)])
        assert (result.value, result.fields) == (5.0, {"agreement": pytest.approx(1 / 3),
                                                       "votes": 3})
        assert openai_server.stats()["chat"] == 3

    def test_classify_takes_the_most_common_label(self, runtime_for: Any, requests_of: Any,
                                                  make_dialog: Any, openai_server: Any) -> None:
        """Labels b, a, b give b, which two samples in three agree with."""
        openai_server.control(script=[{"contains": "师傅", "key": "intent", "values": [
            {"label": x, "reason": "r"} for x in ("b", "a", "b")]}])
        result, = run(runtime_for(), make_dialog(*DIALOG),
                      [requests_of("intent", "classify", "dialog", labels=["a", "b"],
                                   votes=3)])
        assert result.fields == {"label": "b", "agreement": pytest.approx(2 / 3), "votes": 3}

    def test_one_vote_is_the_single_answer_unchanged(self, runtime_for: Any, requests_of: Any,
                                                     make_dialog: Any,
                                                     openai_server: Any) -> None:
        """Without `votes` a result carries no agreement: nothing was voted on."""
        scores(openai_server, "polite", [7])
        result, = run(runtime_for(), make_dialog(*DIALOG),
                      [requests_of("polite", "judge", criteria="礼貌")])
        assert (result.value, result.fields) == (7.0, {})


class TestVotesCache:
    def test_each_sample_is_cached_so_more_votes_pay_only_new_samples(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            openai_server: Any) -> None:
        """A re-run asks nothing; raising 3 votes to 5 asks two; one vote reuses the first."""
        scores(openai_server, "p", [2, 9, 5, 9, 9])
        case = make_dialog(*DIALOG)
        first, = run(runtime_for(), case, [requests_of("p", "judge", criteria="x", votes=3)])
        again = runtime_for()
        second, = run(again, case, [requests_of("p", "judge", criteria="x", votes=3)])
        assert (again.stats().calls, again.stats().cached) == (0, 3)
        assert second.to_dict() == first.to_dict()
        more = runtime_for()
        five, = run(more, case, [requests_of("p", "judge", criteria="x", votes=5)])
        assert (more.stats().calls, more.stats().cached) == (2, 3)
        assert (five.value, five.fields["agreement"]) == (9.0, pytest.approx(3 / 5))
        single = runtime_for()
        run(single, case, [requests_of("p", "judge", criteria="x")])
        assert (single.stats().calls, single.stats().cached) == (0, 1)


class TestVotesFuse:
    def test_fused_checks_share_their_samples(self, runtime_for: Any, requests_of: Any,
                                              make_dialog: Any, openai_server: Any) -> None:
        """Two checks on one scope with 3 votes each are 3 requests, not 6; a check fused
        with them asking one vote reads the first sample and adds none."""
        runtime = runtime_for()
        results = run(runtime, make_dialog(*DIALOG), [
            requests_of("a", "judge", "dialog", criteria="x", votes=3),
            requests_of("b", "classify", "dialog", labels=["p", "q"], votes=3),
            requests_of("c", "judge", "dialog", criteria="y")])
        assert openai_server.stats()["chat"] == 3
        assert [r.fields.get("votes") for r in results] == [3, 3, None]


class TestVoteErrors:
    def test_a_failed_sample_is_counted_not_voted(self, runtime_for: Any, requests_of: Any,
                                                  make_dialog: Any,
                                                  openai_server: Any) -> None:
        """One sample of three fails: the answer stands on two votes, and says so."""
        openai_server.control(faults=[{"kind": "429", "count": 1}])
        runtime = runtime_for(judge_max_retries="0", cache=False)
        result, = run(runtime, make_dialog(*DIALOG),
                      [requests_of("p", "judge", criteria="x", votes=3)])
        assert not result.is_error
        assert result.fields["votes"] == 2
        assert runtime.stats().errors == 1

    def test_most_samples_failed_is_an_error(self, runtime_for: Any, requests_of: Any,
                                             make_dialog: Any, openai_server: Any) -> None:
        """Two samples of three fail: too few answered to vote, so the check errs."""
        openai_server.control(faults=[{"kind": "429", "count": 2}])
        runtime = runtime_for(judge_max_retries="0", cache=False)
        result, = run(runtime, make_dialog(*DIALOG),
                      [requests_of("p", "judge", criteria="x", votes=3)])
        assert result.is_error
        assert "only 1 of 3 samples answered" in result.reason
        assert runtime.stats().errors == 2


def per_model(openai_server: Any, key: str, answers: dict[str, Any]) -> None:
    """Each judge model answers `key` with its own value."""
    openai_server.control(script=[{"contains": "师傅", "key": key, "model": model, "value": v}
                                  for model, v in answers.items()])


class TestJudges:
    """`judges: [...]`: several models answer one check, combined by a declared rule."""

    def test_a_judge_ensemble_takes_the_median_of_its_models(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            openai_server: Any) -> None:
        """Three models give 3, 8 and 6 points: 6, one model in three agreeing; each
        model's points are kept for the report's agreement."""
        per_model(openai_server, "polite", {"m1": {"score": 3, "reason": "r"},
                                            "m2": {"score": 8, "reason": "r"},
                                            "m3": {"score": 6, "reason": "r"}})
        result, = run(runtime_for(), make_dialog(*DIALOG), [requests_of(
            "polite", "judge", criteria="礼貌", judges=["m1", "m2", "m3"])])
        assert result.value == 6.0
        assert result.fields == {"judges": 3, "judge_agreement": pytest.approx(1 / 3),
                                 "by_judge": {"m1": 3.0, "m2": 8.0, "m3": 6.0}}
        assert sorted(openai_server.stats()["models"]) == ["m1", "m2", "m3"]

    @pytest.mark.parametrize(("rule", "label", "passed"), [
        ("majority", "b", True), ("all", "a", False), ("any", "b", True)])
    def test_the_declared_rule_combines_labels(self, rule: str, label: str, passed: bool,
                                               runtime_for: Any, requests_of: Any,
                                               make_dialog: Any, openai_server: Any) -> None:
        """Labels a, b, b with `expect: b`: the majority and `any` pass on b; `all` fails
        on the first model that said a."""
        per_model(openai_server, "intent", {"m1": {"label": "a", "reason": "r"},
                                            "m2": {"label": "b", "reason": "r"},
                                            "m3": {"label": "b", "reason": "r"}})
        result, = run(runtime_for(), make_dialog(*DIALOG), [requests_of(
            "intent", "classify", "dialog", labels=["a", "b"], expect="b",
            judges=["m1", "m2", "m3"], combine=rule)])
        assert (result.value, result.passed) == (label, passed)
        assert result.fields["by_judge"] == {"m1": "a", "m2": "b", "m3": "b"}

    def test_fused_checks_on_one_ensemble_share_each_models_request(
            self, runtime_for: Any, requests_of: Any, make_dialog: Any,
            openai_server: Any) -> None:
        """Two checks on the same two judges are two requests, one per model."""
        run(runtime_for(), make_dialog(*DIALOG), [
            requests_of("a", "judge", "dialog", criteria="x", judges=["m1", "m2"]),
            requests_of("b", "classify", "dialog", labels=["p", "q"], judges=["m1", "m2"])])
        assert openai_server.stats()["chat"] == 2

    def test_too_few_judges_answered_is_an_error(self, runtime_for: Any, requests_of: Any,
                                                 make_dialog: Any,
                                                 openai_server: Any) -> None:
        """One model of two fails: no verdict from the one left, and the reason says so."""
        openai_server.control(faults=[{"kind": "500", "count": 1}])
        runtime = runtime_for(judge_max_retries="0", cache=False)
        result, = run(runtime, make_dialog(*DIALOG), [requests_of(
            "p", "judge", criteria="x", judges=["m1", "m2"])])
        assert result.is_error
        assert "only 1 of 2 judges answered" in result.reason
        assert result.fields["by_judge"] in ({"m1": None, "m2": result.fields["by_judge"]["m2"]},
                                             {"m1": result.fields["by_judge"]["m1"], "m2": None})

    def test_each_model_is_cached_on_its_own(self, runtime_for: Any, requests_of: Any,
                                             make_dialog: Any, openai_server: Any) -> None:
        """A re-run asks nothing; adding a third model asks only it."""
        case = make_dialog(*DIALOG)
        run(runtime_for(), case, [requests_of("p", "judge", criteria="x", judges=["m1", "m2"])])
        more = runtime_for()
        run(more, case, [requests_of("p", "judge", criteria="x", judges=["m1", "m2", "m3"])])
        assert (more.stats().calls, more.stats().cached) == (1, 2)

    @pytest.mark.parametrize(("params", "words"), [
        ({"judges": ["m1"]}, "at least 2"),
        ({"judges": ["m1", "m1"]}, "twice"),
        ({"judges": ["m1", "m2"], "model": "m3"}, "`model` or `judges`"),
        ({"combine": "all"}, "`combine` needs `judges`"),
    ])
    def test_a_misdeclared_ensemble_is_refused(self, requests_of: Any, params: dict[str, Any],
                                               words: str) -> None:
        with pytest.raises(ValidationError, match=words):
            requests_of("p", "judge", criteria="x", **params)

    def test_median_needs_points(self, requests_of: Any) -> None:
        """A label has no median: `combine: median` is for `judge` only."""
        with pytest.raises(ValidationError, match="median"):
            requests_of("p", "classify", "dialog", labels=["a", "b"], judges=["m1", "m2"],
                        combine="median")


class TestCombineVotes:
    """The combination on its own, over hand-made sample results."""

    def test_a_tie_goes_to_the_earliest_sample(self) -> None:
        """Two labels twice each: the first sample's label, agreed by half."""
        samples = [CheckResult.of(True, value=x, label=x) for x in ("a", "b", "b", "a")]
        result = combine_votes(samples, "majority", "c")
        assert (result.value, result.fields["agreement"]) == ("a", 0.5)

    def test_an_even_median_is_the_lower_sample(self) -> None:
        """Scores .2, .4, .6, .8: the lower median .4, a score a sample gave."""
        samples = [CheckResult.of(s > 0.5, s) for s in (0.8, 0.2, 0.6, 0.4)]
        assert combine_votes(samples, "median", "c").score == 0.4

    def test_half_failed_is_too_few(self) -> None:
        """Two of four answered: not more than half, so an error naming the first failure."""
        samples = [CheckResult.of(True), CheckResult.error("timed out", "c"),
                   CheckResult.of(True), CheckResult.error("refused", "c")]
        result = combine_votes(samples, "majority", "c")
        assert result.is_error
        assert result.reason.endswith("timed out")


class TestVotesParams:
    @pytest.mark.parametrize("votes", [0, 26])
    def test_out_of_range_votes_are_refused(self, requests_of: Any, votes: int) -> None:
        """At least one sample, and at most 25."""
        with pytest.raises(ValidationError):
            requests_of("p", "judge", criteria="x", votes=votes)
