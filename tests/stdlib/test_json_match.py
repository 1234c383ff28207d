"""json_match: openevals' deterministic `json_match` tests with openevals' scores."""

from __future__ import annotations

import json
from typing import Any

import pytest

import evaldsl
from evaldsl.primitives.tables import NormalizationTable
from evaldsl.stdlib.json_match import _reply_json
from evaldsl.stdlib.json_scan import Found, iter_json
from tests.stdlib.conftest import Run, dialog


def answer(text: str) -> Any:
    return dialog(("user", "?"), ("assistant", text))

AB = [{"a": 1, "b": 2}, {"a": 1, "b": 2}]
MIXED_OUT = [{"a": 1, "d": 2}, {"a": 1, "b": 2}]
MIXED_REF = [{"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3}]

# (outputs, reference_outputs, openevals options, the score openevals reports), one row
# per deterministic test of openevals' python/tests/test_json.py; `aggregator: None`
# reports a score per key, which is `.keys` here.
OPENEVALS: list[tuple[str, Any, Any, dict[str, Any], Any]] = [
    ("base", {"a": 1, "b": 2}, {"a": 1, "b": 2}, {}, {"a": 1.0, "b": 1.0}),
    ("average", {"a": 1, "b": 2}, {"a": 1, "b": 3}, {"aggregate": "average"}, 0.5),
    ("exclude", {"a": 1, "b": 2}, {"a": 1, "b": 3},
     {"aggregate": "average", "exclude_keys": ["b"]}, 1.0),
    ("all", {"a": 1, "b": 2}, {"a": 1, "b": 3}, {"aggregate": "all"}, 0.0),
    ("list_all_none", AB, AB, {}, {"a": 1.0, "b": 1.0}),
    ("list_average_none", AB, [{"a": 1, "b": 2}, {"a": 1, "b": 3}],
     {"list_aggregate": "average"}, {"a": 1.0, "b": 0.5}),
    ("list_all_all", AB, AB, {"aggregate": "all"}, 1.0),
    ("list_average_all", AB, [{"a": 1, "b": 2}, {"a": 1, "b": 3}],
     {"list_aggregate": "average", "aggregate": "all"}, 0.5),
    ("list_all_average", AB, [{"a": 1, "b": 2}, {"a": 2, "b": 2}],
     {"aggregate": "average"}, 0.0),
    ("list_average_average", AB, [{"a": 1, "b": 2}, {"a": 1, "b": 3}],
     {"list_aggregate": "average", "aggregate": "average"}, 0.75),
    ("list_mismatch_all_none", MIXED_OUT, MIXED_REF, {},
     {"a": 1.0, "b": 0.0, "c": 0.0, "d": 0.0}),
    ("list_mismatch_average_none", MIXED_OUT, MIXED_REF, {"list_aggregate": "average"},
     {"a": 1.0, "b": 0.5, "c": 0.0, "d": 0.0}),
    ("list_mismatch_all_all", MIXED_OUT, MIXED_REF, {"aggregate": "all"}, 0.0),
    ("list_mismatch_average_all", MIXED_OUT, MIXED_REF,
     {"list_aggregate": "average", "aggregate": "all"}, 0.0),
    ("list_mismatch_all_average", MIXED_OUT, MIXED_REF, {"aggregate": "average"}, 0.0),
    ("list_mismatch_average_average", MIXED_OUT, MIXED_REF,
     {"list_aggregate": "average", "aggregate": "average"}, 0.5),
    ("list_mismatch_output_missing",
     [{"a": 1, "b": 2, "d": 3}, {"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "d": 3}],
     [{"a": 1, "b": 2, "d": 3}, {"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "c": 3}],
     {"list_aggregate": "average", "aggregate": "average"}, 5 / 6),
    ("mode_exact_extra_reference", [{"a": 1}] * 2, [{"a": 1}] * 3,
     {"list_aggregate": "average", "aggregate": "average"}, 2 / 3),
    ("mode_exact_extra_output", [{"a": 1}] * 3, [{"a": 1}] * 2,
     {"list_aggregate": "average", "aggregate": "average"}, 2 / 3),
    ("mode_exact_unordered", [{"a": 1, "d": 2, "e": 2}, {"b": 1}, {"c": 1}],
     [{"b": 1, "d": 2, "e": 2}, {"a": 1}, {"c": 1}],
     {"list_aggregate": "average", "aggregate": "average", "exclude_keys": ["d", "e"]}, 1.0),
    ("mode_subset_outputs", [{"a": 1}, {"b": 1}, {"c": 1}], [{"b": 1}, {"a": 1}],
     {"list_aggregate": "average", "aggregate": "average", "mode": "superset"}, 1.0),
    ("mode_subset_reference", [{"a": 1}, {"b": 1}], [{"b": 1}, {"c": 1}, {"a": 1}],
     {"list_aggregate": "average", "aggregate": "average", "mode": "subset"}, 1.0),
    ("mode_order_wrong", [{"a": 1}, {"b": 1}], [{"b": 1}, {"a": 1}],
     {"list_aggregate": "average", "aggregate": "average", "mode": "ordered"}, 0.0),
    ("mode_order_right", [{"a": 1}, {"b": 1}], [{"a": 1}, {"b": 1}],
     {"list_aggregate": "average", "aggregate": "average", "mode": "ordered"}, 1.0),
    ("mode_order", [{"a": 1}, {"b": 1}, {"c": 1}], [{"a": 1}, {"b": 1}, {"d": 1}],
     {"list_aggregate": "average", "aggregate": "average", "mode": "ordered"}, 2 / 3),
]


@pytest.mark.parametrize(("name", "outputs", "reference", "options", "expected"), OPENEVALS,
                         ids=[row[0] for row in OPENEVALS])
def test_openevals(run: Run, name: str, outputs: Any, reference: Any,
                   options: dict[str, Any], expected: Any) -> None:
    r = run("json_match", dialog(("user", "?"), ("assistant", "x")), actual=outputs,
            expected=reference, **options)
    if isinstance(expected, dict):
        assert r.fields["keys"] == pytest.approx(expected)
    else:
        assert r.score == pytest.approx(expected)


class TestTheReply:
    def test_json_in_prose_is_read(self, run: Run) -> None:
        reply = '找到两人：[{"name": "张三"}, {"name": "李四"}]'
        case = dialog(("user", "?"), ("assistant", reply))
        r = run("json_match", case, expected=[{"name": "李四"}, {"name": "张三"}])
        assert (r.passed, r.score, r.fields["items"]) == (True, 1.0, [1.0, 1.0])

    def test_no_json_is_an_error(self, run: Run) -> None:
        r = run("json_match", dialog(("user", "?"), ("assistant", "none")), expected={"a": 1})
        assert r.is_error

    def test_a_shape_mismatch_fails(self, run: Run) -> None:
        r = run("json_match", dialog(("user", "?"), ("assistant", '{"a": 1}')),
                expected=[{"a": 1}])
        assert (r.passed, r.score) == (False, 0.0)

    def test_a_key_table(self, run: Run) -> None:
        table = NormalizationTable.build("t", frozenset({"casefold", "strip"}), "", {})
        case = dialog(("user", "?"), ("assistant", '{"city": " Paris ", "n": 2}'))
        assert run("json_match", case, expected={"city": "paris", "n": 2}).score == 0.5
        assert run("json_match", case, expected={"city": "paris", "n": 2},
                   tables={"city": table}).passed is True


class TestFastPaths:
    """The reply read as JSON only when it can start as JSON, the pairing and the keys in
    loops of their own: what reading and comparing everything gave."""

    @pytest.mark.parametrize("text", [
        '{"a": 1}', ' \n\t[{"a": 1}]', "NaN", "Infinity", "-Infinity", "-1", "true", "null",
        '"x"', '\ufeff{"a": 1}', '\u3000{"a": 1}', 'say {"a": 1} or [2]', "{oops} [1]",
        "", "   ", "nothing here", '[{"a": 1}] trailing', "tru", "{"])
    def test_the_reply_as_json_is_read_as_before(self, text: str) -> None:
        def reference(text: str) -> Any:
            try:
                return json.loads(text)
            except ValueError:
                pass
            for item in iter_json(text):
                return item.data if isinstance(item, Found) else None
            return None

        got, wanted = _reply_json(text), reference(text)
        assert got == wanted or (got != got and wanted != wanted)  # NaN is not NaN

    def test_the_first_most_equal_item_pairs_on_a_tie(self, run: Run) -> None:
        reply = answer(json.dumps([{"a": 1, "b": 9}, {"a": 1, "b": 2}]))
        r = run("json_match", reply, expected=[{"a": 1, "b": 2}, {"a": 1, "b": 3}],
                list_aggregate="average")
        assert r.fields["items"] == [0.5, 0.5]  # {"a": 1, "b": 9} took the first, a tie
        r = run("json_match", reply, expected=[{"a": 1, "b": 3}, {"a": 1, "b": 2}],
                list_aggregate="average", mode="superset")
        assert r.fields["items"] == [0.5, 1.0]

    def test_checks_with_other_parameters_in_one_spec(self) -> None:
        spec = evaldsl.loads(
            'spec "s"\ncheck plain = json_match(expected: [{"id": 1, "n": "x"}])\n'
            'check loose = json_match(expected: [{"id": 1, "n": "y"}], exclude_keys: ["n"])\n'
            'check part = json_match(expected: [{"id": 1, "n": "x"}, {"id": 2}], '
            'mode: subset)\n')
        for _ in range(2):
            checks = spec.evaluate(answer('[{"id": 1, "n": "x"}]')).checks
            assert {k: (r.passed, r.score) for k, r in checks.items()} == {
                "plain": (True, 1.0), "loose": (True, 1.0), "part": (True, 1.0)}
            assert checks["loose"].fields["keys"] == {"id": 1.0}
