"""`window:` on the standard library's model primitives, checked like any argument."""

from __future__ import annotations

from evaldsl.checker import check_source
from evaldsl.diagnostics import Diagnostic, render
from evaldsl.primitives.registry import default_registry


def check(call: str) -> tuple[list[Diagnostic], object]:
    text = f"check a = {call}\nmetric m = rate(a)\n"
    result, found = check_source(text, "t.eval", default_registry())
    return found, result.source


def messages(call: str, code: str) -> list[str]:
    return [d.message for d in check(call)[0] if d.code == code]


class TestBadWindows:
    def test_a_negative_count_is_an_error_at_the_value(self) -> None:
        found, source = check('judge(scope: dialog, criteria: "x", window: {last: -1})')
        assert len(found) == 1
        assert render(found[0], source).splitlines()[:3] == [  # type: ignore[arg-type]
            "t.eval:1:62: error[E204]: `window.last` must be greater than or equal to 0, "
            "found `-1`",
            '1 | check a = judge(scope: dialog, criteria: "x", window: {last: -1})',
            "  |" + " " * 62 + "^^"]

    def test_an_empty_window_is_an_error(self) -> None:
        assert messages('judge(scope: dialog, criteria: "x", window: {})', "E204") == [
            "`window`: a window keeps at least one message: give `first` or `last`"]

    def test_an_unknown_key_is_an_error(self) -> None:
        assert messages('slots(slots: ["phone"], window: {lats: 3})', "E201") == [
            "unknown key `lats` in `window`"]

    def test_a_number_is_not_a_window(self) -> None:
        assert messages('classify(labels: ["a", "b"], window: 6)', "E203") == [
            "`window` must be a map, found `6`"]


class TestGoodWindows:
    def test_every_model_primitive_takes_one(self) -> None:
        for call in ('judge(scope: dialog, criteria: "x", window: {first: 1, last: 6})',
                     'classify(labels: ["a", "b"], window: {last: 4})',
                     'slots(slots: ["phone"], window: {first: 1, last: 4})',
                     'steps(steps: ["greet"], window: {first: 2})',
                     'refusal(scope: dialog, window: {last: 2})',
                     'moderation(scope: dialog, window: {last: 2})'):
            assert check(call)[0] == [], call
