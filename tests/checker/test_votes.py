"""`votes:` on the standard library's model primitives, checked like any argument."""

from __future__ import annotations

from evaldsl.checker import check_source
from evaldsl.diagnostics import Diagnostic, render
from evaldsl.primitives.registry import default_registry


def check(call: str, metric: str = "rate(a)") -> tuple[list[Diagnostic], object]:
    text = f"check a = {call}\nmetric m = {metric}\n"
    result, found = check_source(text, "t.eval", default_registry())
    return found, result.source


def messages(call: str, code: str, metric: str = "rate(a)") -> list[str]:
    return [d.message for d in check(call, metric)[0] if d.code == code]


class TestBadVotes:
    def test_no_sample_is_an_error_at_the_value(self) -> None:
        found, source = check('judge(criteria: "x", votes: 0)')
        assert len(found) == 1
        assert render(found[0], source).splitlines()[:3] == [  # type: ignore[arg-type]
            "t.eval:1:39: error[E204]: `votes` must be greater than or equal to 1, found `0`",
            '1 | check a = judge(criteria: "x", votes: 0)',
            "  |" + " " * 39 + "^"]

    def test_too_many_samples_are_an_error(self) -> None:
        assert messages('classify(labels: ["a", "b"], votes: 26)', "E204") == [
            "`votes` must be less than or equal to 25, found `26`"]

    def test_a_fraction_is_not_a_count(self) -> None:
        assert [d.code for d in check('slots(slots: ["phone"], votes: 2.5)')[0]] == ["E203"]

    def test_a_similarity_takes_no_votes(self) -> None:
        """Embeddings do not vary between samples: nothing to vote on."""
        assert messages('similarity(reference: "x", votes: 3)', "E201") == [
            "`similarity` has no parameter `votes`"]


class TestGoodVotes:
    def test_the_four_voted_primitives_take_votes_and_give_agreement(self) -> None:
        for call in ('judge(scope: dialog, criteria: "x", votes: 3)',
                     'classify(labels: ["a", "b"], votes: 5)',
                     'slots(slots: ["phone"], votes: 3)',
                     'steps(steps: ["greet"], votes: 2)'):
            assert check(call, "mean(a.agreement)")[0] == [], call
            assert check(call, "mean(a.votes)")[0] == [], call
