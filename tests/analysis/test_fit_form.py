"""The fittable numbers of a spec, found in its syntax tree, and the patch that changes them."""

from __future__ import annotations

import pytest

from evaldsl.analysis.fit import Scoring
from evaldsl.analysis.fit_form import find_form, patch, weight_texts
from evaldsl.errors import FormError
from evaldsl.syntax.parser import parse

SPEC = """\
spec "form"
check a = turns(max: 10)
check b = length(scope: each_reply, max_chars: 150)
check c = signals(scope: user_turns)
let other = 3
let score = 100 * (0.2 * a + b.score * 0.5 + 0.3 * (c))  # guessed
outcome level {
  high if score >= 80
  mid if score > 55.5
  low otherwise
}
"""


def form_of(text: str, block: str | None = "level"):  # type: ignore[no-untyped-def]
    parsed = parse(text, "form.eval")
    assert parsed.module is not None
    return find_form(parsed.module, block), parsed.source


class TestFind:
    def test_weights_checks_and_thresholds_are_read_with_their_spans(self) -> None:
        form, _ = form_of(SPEC)
        assert (form.let, form.scale, form.checks) == ("score", 100.0, ("a", "b", "c"))
        assert [w.value for w in form.weights] == [0.2, 0.5, 0.3]
        assert (form.weights[1].span.line, form.weights[1].span.col) == (6, 40)
        assert form.levels == ("high", "mid", "low")
        assert [t.value for t in form.thresholds] == [80.0, 55.5]
        assert form.strict == (False, True)

    def test_the_spec_as_written_is_on_points(self) -> None:
        form, _ = form_of(SPEC.replace("100 * (", "(").replace("80", "0.8").replace(
            "55.5", "0.555"))
        assert form.written().thresholds == pytest.approx((80.0, 55.5))

    def test_a_term_without_a_number_is_refused_with_its_place(self) -> None:
        with pytest.raises(FormError, match=r"form.eval:6:1: `let score` is not a weighted sum"):
            form_of(SPEC.replace("0.3 * (c)", "c"))

    def test_a_name_that_is_no_check_is_refused(self) -> None:
        with pytest.raises(FormError, match="is not a weighted sum"):
            form_of(SPEC.replace("0.3 * (c)", "0.3 * other"))

    def test_an_outcome_cut_otherwise_keeps_the_weights_fittable(self) -> None:
        form, _ = form_of(SPEC.replace("mid if score > 55.5", "mid if a"))
        assert form.levels == () and "is not `LABEL if score >= NUMBER`" in form.why_no_levels


class TestPatch:
    def test_only_the_numbers_change(self) -> None:
        form, source = form_of(SPEC)
        fitted = Scoring((0.1, 0.6, 0.3), (75.25, 50.0), form.levels, form.strict)
        diff = patch(source, form, fitted, "form.eval")
        assert "+let score = 100 * (0.1 * a + b.score * 0.6 + 0.3 * (c))  # guessed" in diff
        assert "+  high if score >= 75.2\n" in diff or "+  high if score >= 75.3\n" in diff
        assert "+  mid if score > 50\n" in diff
        assert diff.startswith("--- a/form.eval\n+++ b/form.eval\n")

    def test_nothing_changed_is_no_patch(self) -> None:
        form, source = form_of(SPEC)
        assert patch(source, form, form.written(), "form.eval") == ""

    def test_rounded_weights_still_sum_to_one(self) -> None:
        texts = weight_texts((0.1234, 0.4567, 0.4199))
        assert sum(float(t) for t in texts) == pytest.approx(1.0, abs=1e-12)
