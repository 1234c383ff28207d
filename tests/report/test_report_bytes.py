"""Every report file, byte for byte, as the shipped specs and the old journal's run made it.

`tests/corpus/reports/<name>/` holds what `run`, `merge` and `compare` wrote for a spec and
its cases: report.json, the Markdown and HTML pages, the terminal summary, the merged
report and the comparison. A change to how a report is built or carried (its typed form,
`evaldsl.report.document`) must leave every byte as it was; only what belongs to the
process (`elapsed_seconds`) and the version in `generated_by` are set aside.
After a deliberate change to a report's content, `python tests/report/test_report_bytes.py`
writes the files again (then read the diff).
"""

from __future__ import annotations

import io
import re
import shutil
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from evaldsl.agents.target_tally import TargetTally
from evaldsl.cli.main import main
from evaldsl.report.html import render_html
from evaldsl.report.layout import layout_of
from evaldsl.report.markdown import render_markdown
from evaldsl.report.terminal import render_terminal
from evaldsl.report.writers import render_json
from evaldsl.syntax.source import Source

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "corpus" / "reports"
RUNS = {
    "bfcl": (ROOT / "specs" / "bfcl.eval", ROOT / "examples" / "bfcl.jsonl"),
    "hospital_registration": (ROOT / "specs" / "hospital_registration.eval",
                              ROOT / "examples" / "hospital_registration.jsonl"),
    "quality_monitoring": (ROOT / "specs" / "quality_monitoring.eval",
                           ROOT / "examples" / "quality_monitoring.jsonl"),
    "sgd_service_calls": (ROOT / "specs" / "sgd_service_calls.eval",
                          ROOT / "examples" / "sgd_service_calls.jsonl"),
    "tool_agent": (ROOT / "specs" / "tool_agent.eval", ROOT / "examples" / "tool_agent.jsonl"),
    "journal_v2": (ROOT / "tests" / "corpus" / "journals" / "v2" / "spec.eval",
                   ROOT / "tests" / "corpus" / "journals" / "v2" / "cases.jsonl"),
}
SELECTION_SPEC = """\
spec "预约 & selection"
check intent = keyword(any: ["姓名"])
check polite = keyword(any: ["请"])
outcome {
  success if intent.passed and polite.passed
  failure otherwise
}
metric success_rate = rate(success)
metric avg_polite = mean(polite)
metric gold_rate = rate(success) where intent.passed
"""
"""A `--where` selection and a skipped bad row: what the shipped specs do not hold."""
SELECTION_CASES = [
    '{"id": "s1", "tier": "gold", "messages": [{"role": "user", "content": "预约"}, '
    '{"role": "assistant", "content": "请给我姓名和电话"}]}',
    '{"id": "s2", "tier": "gold", "messages": [{"role": "user", "content": "你好"}, '
    '{"role": "assistant", "content": "姓名?"}]}',
    '{"id": "s3", "tier": "free", "messages": [{"role": "user", "content": "预约"}, '
    '{"role": "assistant", "content": "好的"}]}',
    '{"id": "s4", "tier": "gold", "messages": "not a list"}',
    '{"id": "s5", "tier": "gold", "messages": [{"role": "user", "content": "预约 姓名 电话"}, '
    '{"role": "assistant", "content": "姓名 张三, 电话 123"}]}',
]
_PROCESS = [(re.compile(r'"elapsed_seconds": [0-9.e+-]+'), '"elapsed_seconds": 0'),
            (re.compile(r"evaldsl \d+\.\d+[^\s\"<]*"), "evaldsl VERSION")]


def _steady(text: str) -> str:
    """`text` without what differs from one run of the same cases to the next."""
    for pattern, fixed in _PROCESS:
        text = pattern.sub(fixed, text)
    return text


def _verb(*args: str) -> str:
    """One verb run in this process (English), its standard output."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert main([*args, "--lang", "en"]) in (0, 1)
    return out.getvalue()


def produce(name: str, work: Path) -> dict[str, str]:
    """Every file the three verbs write for `name`, each made steady, by file name."""
    selection: tuple[str, ...] = ()
    if name == "selection":
        (work / "spec.eval").write_text(SELECTION_SPEC, encoding="utf-8")
        (work / "cases.jsonl").write_text("\n".join(SELECTION_CASES) + "\n", encoding="utf-8")
        selection = ("--where", 'case.tier == "gold"', "--on-bad-row", "skip")
    else:
        spec, cases = RUNS[name]
        shutil.copyfile(spec, work / "spec.eval")
        shutil.copyfile(cases, work / "cases.jsonl")
    summary = _verb("run", "spec.eval", "cases.jsonl", "--results", "results.jsonl",
                    "-o", "report.json", "--md", "report.md", "--html", "report.html",
                    "--no-progress", *selection)
    merged = _verb("merge", "spec.eval", "results.jsonl", "-o", "merged.json",
                   "--md", "merged.md")
    _verb("compare", "spec.eval", "results.jsonl", "results.jsonl", "-o", "compare.json",
          "--md", "compare.md", "-q")
    files = {"summary.txt": summary, "merged.txt": merged}
    for file in ("report.json", "report.md", "report.html", "merged.json", "merged.md",
                 "compare.json", "compare.md"):
        files[file] = (work / file).read_text("utf-8")
    return {file: _steady(text) for file, text in files.items()}


NAMES = sorted([*RUNS, "selection"])


@pytest.mark.parametrize("name", NAMES)
def test_every_report_file_is_the_one_written_before(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    made = produce(name, tmp_path)
    expected = {p.name: p.read_text("utf-8") for p in (GOLDEN / name).iterdir()}
    assert sorted(made) == sorted(expected)
    for file, text in made.items():
        assert text == expected[file], f"{name}/{file} changed"


def test_the_corpus_runs_cover_what_a_report_can_hold() -> None:
    """Grouped and filtered metrics, an errored block, the review sample, slots, judges,
    a driven run's target."""
    reports = {name: (GOLDEN / name / "report.json").read_text("utf-8")
               for name in [*NAMES, "records"]}
    together = "".join(reports.values())
    for key in ('"groups": [', '"where": "', '"review": {', '"slots": [\n', '"errored": 1',
                '"left_out": 1', '"bad_rows_skipped": 1', '"parts": [', '"judges": {',
                '"target": {', '"simulator": {'):
        assert key in together, key


def records_files(sample: Any) -> dict[str, str]:
    """The report of the hand-written records (`conftest.py`), with a case two judges
    answered and a driven run's target, in every format a report is written in."""
    layout = layout_of(Source(sample.SPEC, "specs/repair.eval"), "specs/repair.eval")
    judged = sample.record("c7", 1, True, {"name": True, "phone": False}, 0.75)
    judged["checks"]["polite"]["by_judge"] = {"a": 7, "b": 8, "c": None}
    again = sample.record("c8", 0, True, {"name": True, "phone": True}, 0.9)
    again["checks"]["polite"]["by_judge"] = {"a": 9, "b": 9}
    report = sample.build(layout, [*sample.RECORDS, judged, again])
    tally = TargetTally("shop", "http")
    for note in ({"latency_ms": [812.0, 90.5]}, {"error": "timeout", "latency_ms": []},
                 {"latency_ms": [1200.0], "simulator": {"failure": "early"}},
                 {"latency_ms": [300.0], "simulator": {}}):
        tally.add_note(note)
    report.target = tally.summary()
    return {"report.json": render_json(report), "report.md": render_markdown(report),
            "report.html": render_html(report), "summary.txt": render_terminal(report)}


def test_the_records_report_in_every_format_is_the_one_written_before(sample: Any) -> None:
    made = records_files(sample)
    expected = {p.name: p.read_text("utf-8") for p in (GOLDEN / "records").iterdir()}
    assert sorted(made) == sorted(expected)
    for file, text in made.items():
        assert text == expected[file], f"records/{file} changed"


if __name__ == "__main__":  # writes the files again after a deliberate change
    import os
    import tempfile
    from types import SimpleNamespace

    sys.path.insert(0, str(Path(__file__).parent))
    import conftest

    files = records_files(SimpleNamespace(SPEC=conftest.SPEC, RECORDS=conftest.RECORDS,
                                          record=conftest.record, build=conftest.build))
    (GOLDEN / "records").mkdir(parents=True, exist_ok=True)
    for file, text in files.items():
        (GOLDEN / "records" / file).write_text(text, encoding="utf-8")
    for name in sys.argv[1:] or NAMES:
        with tempfile.TemporaryDirectory() as folder:
            here = os.getcwd()
            os.chdir(folder)
            try:
                made = produce(name, Path(folder))
            finally:
                os.chdir(here)
        target = GOLDEN / name
        target.mkdir(parents=True, exist_ok=True)
        for file, text in made.items():
            (target / file).write_text(text, encoding="utf-8")
        print(f"wrote {target}")
