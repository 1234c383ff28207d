"""The case explorer's records: compact, bounded, one per case in the order they came."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaldsl.cases.case import Case
from evaldsl.record import CaseRecord
from evaldsl.report.explorer import TEXT_LIMIT, CaseEntries, Explorer, case_entry, clip
from evaldsl.report.explorer_cases import TURNS_LIMIT, dialog_entry, read_back
from evaldsl.report.layout import SpecLayout, layout_of
from evaldsl.syntax.source import Source

LAYERED = """\
spec "layers"
case { tenant: text, vip: bool, spend: number }
check greets = keyword(scope: first_user, any: ["hello"])
check asks = keyword(scope: replies, any: ["name"])
let score = 100 * asks
outcome intent { reached if greets
  missed otherwise }
outcome success { done if asks
  not_done otherwise }
metric avg = mean(score)
"""


def layered() -> SpecLayout:
    return layout_of(Source(LAYERED, "layers.eval"), "layers.eval")


def line(case_id: str, intent: str, success: str, **extra: Any) -> dict[str, Any]:
    checks = {"greets": {"status": "passed" if intent == "reached" else "failed",
                         "passed": intent == "reached", "score": 1.0, "value": 1.0,
                         "reason": ""}}
    return {"id": case_id, "row": f"cases.jsonl:{case_id}",
            "labels": {"intent": intent, "success": success},
            "branches": {"intent": 0 if intent == "reached" else 1,
                         "success": None if success == "error" else
                         (0 if success == "done" else 1)},
            "errors": {"success": "error(asks: judge down)"} if success == "error" else {},
            "checks": checks, "skipped": ["asks"], "metrics": {}, "lets": {"score": 50.0},
            "review": None, **extra}


class TestCaseEntry:
    def test_labels_and_checks_follow_the_layout_order(self) -> None:
        entry = case_entry(CaseRecord.of(line("a", "reached", "done")), layered())
        assert entry["l"] == ["reached", "done"] and entry["b"] == [0, 0]
        assert entry["c"] == [["passed", 1.0, 1.0, "", {}], ["not_needed"]]
        assert entry["v"] == {"score": 50.0} and entry["r"] is None

    def test_an_errored_block_keeps_its_reason_and_the_case_its_error_reasons(self) -> None:
        entry = case_entry(CaseRecord.of(line("a", "reached", "error")), layered())
        assert entry["b"] == [0, "error(asks: judge down)"]
        assert entry["e"] == ["error(asks: judge down)"] and entry["x"] is False

    def test_every_text_is_clipped_with_a_visible_mark(self) -> None:
        record = line("a" * 5000, "reached", "done")
        record["checks"]["greets"]["reason"] = "r" * 5000
        record["checks"]["greets"]["pairs"] = [["x" * 10] * 1000]
        entry = case_entry(CaseRecord.of(record), layered())
        assert len(entry["id"]) == 200 and entry["id"].endswith("…")
        check = entry["c"][0]
        assert len(check[3]) == TEXT_LIMIT and check[3].endswith("…")
        assert isinstance(check[4]["pairs"], str) and len(check[4]["pairs"]) == TEXT_LIMIT

    def test_strict_and_normalized_verdicts_are_both_kept(self) -> None:
        record = line("a", "reached", "done")
        record["checks"]["greets"].update(strict=False, mismatches=[],
                                          strict_mismatches=["amount: '1万' ≠ 10000"])
        fields = case_entry(CaseRecord.of(record), layered())["c"][0][4]
        assert fields == {"strict": False, "mismatches": [],
                          "strict_mismatches": ["amount: '1万' ≠ 10000"]}

    def test_a_sampled_case_keeps_its_priority_and_rule(self) -> None:
        review = {"sampled": True, "rule": 1, "priority": 37.5, "draw": 0.2, "error": None}
        record = CaseRecord.of(line("a", "missed", "not_done", review=review))
        entry = case_entry(record, layered())
        assert entry["r"] == [37.5, 1]


class TestExplorer:
    def records(self) -> list[dict[str, Any]]:
        review = {"sampled": True, "rule": 0, "priority": 10.0, "draw": 0.2, "error": None}
        return [line("a", "reached", "done"), line("b", "reached", "not_done", review=review),
                line("c", "missed", "done"),
                line("d", "reached", "done", review={**review, "priority": 90.0})]

    def test_the_funnel_counts_cases_that_reach_each_layer_and_every_one_before(self) -> None:
        explorer = Explorer(layered())
        for record in self.records():
            explorer.add(CaseRecord.of(record))
        assert explorer.funnel() == [3, 2]

    def test_the_page_lists_cases_by_input_row_whatever_order_they_finished_in(self) -> None:
        """A judged run finishes cases as the judge answers; the page must not depend on it."""
        explorer = Explorer(layered())
        for case_id, row in (("c", "b.jsonl:2"), ("a", "a.jsonl:10"), ("b", "a.jsonl:9")):
            explorer.add(CaseRecord.of(line(case_id, "reached", "done", row=row)))
        explorer.in_input_order()
        assert [e.row for e in explorer.entries] == ["a.jsonl:9", "a.jsonl:10", "b.jsonl:2"]

    def test_the_review_sample_is_listed_highest_priority_first(self) -> None:
        explorer = Explorer(layered())
        for record in self.records():
            explorer.add(CaseRecord.of(record))
        assert explorer.review_sample() == [(90.0, 3), (10.0, 1)]

    def test_numeric_lets_are_collected_for_histograms(self) -> None:
        explorer = Explorer(layered())
        records = self.records()
        records[2]["lets"] = {"score": {"error": "x"}}
        for record in records:
            explorer.add(CaseRecord.of(record))
        assert explorer.scores() == {"score": [50.0, 50.0, 50.0]}

    def test_an_entry_holds_no_angle_bracket_to_close_its_element(self) -> None:
        record = line("</script><!--", "reached", "done")
        record["checks"]["greets"]["reason"] = "</script><script>alert(1)</script>"
        text = CaseEntries(layered()).render(CaseRecord.of(record)).text
        assert "<" not in text
        assert json.loads(text)["c"][0][3] == "</script><script>alert(1)</script>"

    def test_rendered_parts_append_as_added_ones_do(self) -> None:
        """A worker renders, the parent appends: the same entries as one process."""
        one, other = Explorer(layered()), Explorer(layered())
        for record in self.records():
            one.add(CaseRecord.of(record))
        renderer = other.renderer()
        rendered = [renderer.render(CaseRecord.of(r)) for r in self.records()]
        other.add_rendered(CaseEntries.join(rendered))
        assert one.entries == other.entries
        assert json.loads(one.entries[0].text)["id"] == "a"


class TestReadBack:
    def write(self, path: Path, rows: list[dict[str, Any]]) -> None:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    def test_dialogs_and_group_values_come_back_by_row(self, tmp_path: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        self.write(cases, [{"id": "a", "tenant": "acme", "vip": True, "spend": 3,
                            "messages": [{"role": "user", "content": "hello"}]}])
        explorer = Explorer(layered(), [str(cases)])
        explorer.add(CaseRecord.of(line("a", "reached", "done", row=f"{cases}:1")))
        texts = read_back(explorer.entries, explorer.inputs, explorer.layout.groups)
        assert explorer.layout.groups == ("tenant", "vip")
        assert json.loads(texts.dialogs[0]) == [["user", "hello", [], None]]
        assert json.loads(texts.groups[0]) == ["acme", True] and texts.note is None

    def test_a_changed_or_missing_file_is_said_not_raised(self, tmp_path: Path) -> None:
        cases = tmp_path / "cases.jsonl"
        self.write(cases, [{"id": "other", "messages": []}])
        explorer = Explorer(layered(), [str(cases), str(tmp_path / "gone.jsonl")])
        explorer.add(CaseRecord.of(line("a", "reached", "done", row=f"{cases}:1")))
        texts = read_back(explorer.entries, explorer.inputs, explorer.layout.groups)
        assert texts.dialogs == ["null"]
        assert texts.note is not None and texts.note.startswith("1 of 1 cases show no dialog")
        assert "gone.jsonl" in texts.note

    def test_a_long_dialog_is_cut_and_the_rest_counted(self) -> None:
        messages = [{"role": "user", "content": "x" * 5000}] * (TURNS_LIMIT + 5)
        turns = dialog_entry(Case.from_dict({"id": "a", "messages": messages}))
        assert len(turns) == TURNS_LIMIT + 1 and turns[0][1] == clip("x" * 5000, 2000)
        assert turns[-1][1] == "5 more turns not shown"
