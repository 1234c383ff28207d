"""docs/report.schema.json: generated from the typed report, and what every report file is.

The report's shape is declared once, as the structs of `evaldsl.report.document`; the
shipped schema is theirs, every report the pinned runs wrote (`tests/corpus/reports/`)
validates against it and reads back into the typed report, written again byte for byte.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

import evaldsl
from evaldsl.errors import EvaldslError
from evaldsl.report.document import ReportDoc, decode_report, main, rendered, report_schema
from evaldsl.report.writers import render_json

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "docs" / "report.schema.json"
REPORTS = sorted(p for p in (ROOT / "tests" / "corpus" / "reports").glob("*/*.json")
                 if not p.name.startswith("compare"))
_ELAPSED = re.compile(r'"elapsed_seconds": [0-9.]+')


class TestShippedFile:
    def test_the_shipped_schema_is_the_generated_one(self) -> None:
        """After the report's type changes, `python -m evaldsl.report.document
        docs/report.schema.json` regenerates the file."""
        assert SHIPPED.read_text("utf-8") == rendered()

    def test_check_mode_tells_a_stale_file(self, tmp_path: Path) -> None:
        stale = tmp_path / "report.schema.json"
        stale.write_text("{}\n", encoding="utf-8")
        assert main([str(stale), "--check"]) == 1
        assert main([str(stale)]) == 0
        assert main([str(stale), "--check"]) == 0

    def test_it_is_a_valid_draft_2020_12_schema(self) -> None:
        jsonschema.Draft202012Validator.check_schema(json.loads(SHIPPED.read_text("utf-8")))

    def test_a_bootstrap_interval_needs_its_seed_and_a_wilson_one_has_none(self) -> None:
        validator = jsonschema.Draft202012Validator(report_schema()["$defs"]["Interval"])
        wilson = {"low": 0.1, "high": 0.5, "level": 0.95, "method": "wilson"}
        assert validator.is_valid(wilson)
        assert not validator.is_valid({**wilson, "seed": 1})
        boot = {**wilson, "method": "bootstrap", "seed": 0, "resamples": 1000}
        assert validator.is_valid(boot)
        assert not validator.is_valid({k: v for k, v in boot.items() if k != "seed"})


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_pinned_report_is_valid_and_reads_back_typed_byte_for_byte(path: Path) -> None:
    text = path.read_text("utf-8")
    jsonschema.validate(json.loads(text), json.loads(SHIPPED.read_text("utf-8")))
    report = decode_report(text.encode("utf-8"), path.name)
    assert isinstance(report, ReportDoc)
    # the pinned file's `elapsed_seconds` is set aside as 0, which reads back as 0.0
    assert _ELAPSED.sub('"elapsed_seconds": 0', render_json(report)) == text


def test_the_pinned_reports_include_runs_merges_and_the_records() -> None:
    assert len(REPORTS) >= 15


class TestMalformed:
    @pytest.mark.parametrize(("text", "problem"), [
        ("{not json", "malformed"),
        ('{"format": "evaldsl-report"}', "missing required field"),
        ("[]", "Expected `object`"),
    ])
    def test_names_the_file_and_the_problem(self, text: str, problem: str) -> None:
        with pytest.raises(EvaldslError, match=rf"^runs/old\.json is not an evaldsl report: "
                                               rf".*{problem}"):
            decode_report(text, "runs/old.json")

    def test_a_wrong_type_deep_inside_says_where(self) -> None:
        good = json.loads((ROOT / "tests" / "corpus" / "reports" / "bfcl" / "report.json")
                          .read_text("utf-8"))
        good["checks"][0]["passed"] = "many"
        with pytest.raises(EvaldslError, match=r"`\$\.checks\[0\]\.passed`"):
            decode_report(json.dumps(good), "report.json")

    def test_report_from_json_names_the_file(self, tmp_path: Path) -> None:
        broken = tmp_path / "report.json"
        broken.write_text('{"format": "evaldsl-report", "version": 1}', encoding="utf-8")
        with pytest.raises(EvaldslError, match=re.escape(str(broken))):
            evaldsl.Report.from_json(broken)
