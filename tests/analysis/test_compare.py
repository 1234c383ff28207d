"""The gate's rules over one metric's comparison: a significant drop, lost coverage."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from evaldsl.analysis.compare import (
    Gate,
    MetricComparison,
    coverage_loss,
    pair,
    parse_gate,
    significantly_worse,
)
from evaldsl.analysis.compare_columns import Columns
from evaldsl.analysis.paired_stats import Interval
from evaldsl.errors import OptionsError

DROP = MetricComparison("m", True, "mcnemar", 100, 0.8, 0.6, -0.2, Interval(-0.3, -0.1),
                        0.001, 100, 100, 0, 0, (25, 5))


class TestSignificantlyWorse:
    def test_a_significant_drop_beyond_the_margin(self) -> None:
        assert significantly_worse(DROP, 0.0)
        assert significantly_worse(DROP, 0.19)

    def test_a_drop_within_the_margin_passes(self) -> None:
        assert not significantly_worse(DROP, 0.2)

    def test_p_at_the_level_passes(self) -> None:
        assert not significantly_worse(replace(DROP, p_value=0.05), 0.0)

    def test_an_interval_reaching_zero_passes(self) -> None:
        assert not significantly_worse(replace(DROP, interval=Interval(-0.3, 0.0)), 0.0)


class TestCoverageLoss:
    def test_a_denominator_more_than_ten_percent_smaller(self) -> None:
        assert coverage_loss(replace(DROP, denominator_new=89), 100) == "denominator"
        assert coverage_loss(replace(DROP, denominator_new=90), 100) is None

    def test_errors_grown_by_more_than_ten_percent_of_the_paired_cases(self) -> None:
        grown = replace(DROP, errors_base=2, errors_new=13)
        assert coverage_loss(grown, 100) == "errors"
        assert coverage_loss(replace(grown, errors_new=12), 100) is None


class TestParseGate:
    @pytest.mark.parametrize(("text", "gate"), [
        ("success_rate", Gate("success_rate", 0.0)),
        ("success_rate:2%", Gate("success_rate", 0.02)),
        ("avg:0.5", Gate("avg", 0.5))])
    def test_metric_and_margin(self, text: str, gate: Gate) -> None:
        assert parse_gate(text) == pytest.approx(gate)

    @pytest.mark.parametrize(("text", "message"), [
        (":2%", "expected METRIC[:MARGIN], got `:2%`"),
        ("m:lots", "`lots` is not a number or a percentage"),
        ("m:-1", "the margin `-1` must be 0 or more")])
    def test_bad_gates_are_refused_in_words(self, text: str, message: str) -> None:
        with pytest.raises(OptionsError, match=message.replace("[", r"\[")
                           .replace("]", r"\]")):
            parse_gate(text)


def _run(*ids: str) -> Columns:
    empty = np.zeros((len(ids), 0), dtype=np.int8)
    return Columns(Path("r.jsonl"), None, np.array([i.encode() for i in ids], dtype=bytes),
                   empty, empty, ())


class TestPair:
    def test_the_sort_merge_pairs_as_sets_of_ids_do(self) -> None:
        """Ids of other lengths, prefixes of each other, duplicates on either side."""
        base = ["a", "a1", "b", "b", "ccc", "d", "é", "z"]
        new = ["a", "a10", "b", "ccc", "ccc", "d", "é", "zz", "z"]
        got = pair(_run(*base), _run(*new))
        once_b = {i for i in base if base.count(i) == 1}
        once_n = {i for i in new if new.count(i) == 1}
        both = sorted(once_b & once_n)
        assert [i.decode() for i in got.paired] == both == ["a", "d", "z", "é"]
        assert [base[r] for r in got.base_rows] == [new[r] for r in got.new_rows] == both
        dup_b = {i for i in base if base.count(i) > 1}
        dup_n = {i for i in new if new.count(i) > 1}
        assert (got.only_base, got.only_new, got.duplicated_base, got.duplicated_new) == (
            len(once_b - once_n - dup_n), len(once_n - once_b - dup_b), len(dup_b), len(dup_n))

    def test_an_empty_run_pairs_nothing(self) -> None:
        got = pair(_run("a", "b"), _run())
        assert (len(got.paired), got.only_base, got.only_new) == (0, 2, 0)
