"""`evaldsl review`: the drawn sample, by priority, in a file people can fill in."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("review")
    spec = folder / "runner.eval"
    spec.write_text(kit.SPEC, encoding="utf-8")
    cases = folder / "cases.jsonl"
    kit.write_cases(cases, 200)
    done = kit.evaldsl("run", spec, cases, "--results", folder / "results.jsonl")
    assert done.returncode == 0, done.stderr
    return {"folder": folder, "spec": spec, "cases": cases, "results": folder / "results.jsonl"}


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()[1:]]


def test_sample_is_the_drawn_cases_by_priority(judged: dict[str, Path], kit: Any) -> None:
    out = judged["folder"] / "sample.jsonl"
    done = kit.evaldsl("review", judged["results"], "--spec", judged["spec"], "-o", out)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    drawn = {r["id"]: r["review"] for r in records(judged["results"]) if r["review"]["sampled"]}
    assert {r["id"] for r in rows} == set(drawn)
    keys = [(-r["priority"], r["id"]) for r in rows]
    assert keys == sorted(keys)
    assert {r["rule"] for r in rows} == {"sample 50% where failure priority 100 - 100 * short",
                                         "sample 10%"}
    assert all((r["label"], r["score"], r["note"]) == ("", "", "") for r in rows)
    assert f"{len(rows)} cases drawn for review" in done.stdout


def test_csv_with_dialogs(judged: dict[str, Path], kit: Any) -> None:
    out = judged["folder"] / "sample.csv"
    done = kit.evaldsl("review", judged["results"], "--spec", judged["spec"], "-o", out,
                       "--cases", judged["cases"], "--limit", "5")
    assert done.returncode == 0, done.stderr
    with out.open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 5
    assert rows[0]["dialog"].startswith("user: ")
    assert {"id", "priority", "rule", "outcome", "label", "score", "note"} <= set(rows[0])


def test_csv_has_a_bom_so_excel_reads_chinese(judged: dict[str, Path], kit: Any) -> None:
    """Excel reads a CSV without a BOM in the machine's code page: 姓名 would be mojibake."""
    out = judged["folder"] / "excel.csv"
    done = kit.evaldsl("review", judged["results"], "--spec", judged["spec"], "-o", out,
                       "--cases", judged["cases"])
    assert done.returncode == 0, done.stderr
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbfid,priority,")
    assert "请问您的姓名" in data.decode("utf-8-sig")


def test_jsonl_stays_plain_utf8(judged: dict[str, Path], kit: Any) -> None:
    out = judged["folder"] / "plain.jsonl"
    done = kit.evaldsl("review", judged["results"], "--spec", judged["spec"], "-o", out)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes().startswith(b'{"id": ')


def test_results_of_another_spec_are_refused(judged: dict[str, Path], kit: Any,
                                             tmp_path: Path) -> None:
    other = tmp_path / "other.eval"
    other.write_text(kit.SPEC.replace("seed: 3", "seed: 4"), encoding="utf-8")
    done = kit.evaldsl("review", judged["results"], "--spec", other, "-o", tmp_path / "s.jsonl")
    assert done.returncode == 2 and "written by another spec" in done.stderr


@pytest.mark.parametrize("verb", ["review", "calibrate"])
@pytest.mark.parametrize("field, value", [("review", "yes"), ("labels", 5), ("id", None)])
def test_a_malformed_journal_line_is_named(judged: dict[str, Path], kit: Any, tmp_path: Path,
                                           verb: str, field: str, value: Any) -> None:
    """A line of the wrong shape is a data error naming its file and line, not a traceback."""
    lines = judged["results"].read_text("utf-8").splitlines()
    bad = json.loads(lines[3])
    bad[field] = value
    lines[3] = json.dumps(bad)
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"id": "c1", "label": "success"}) + "\n", encoding="utf-8")
    args = ("-o", tmp_path / "s.jsonl") if verb == "review" else (labels,)
    done = kit.evaldsl(verb, results, *args, "--spec", judged["spec"])
    assert done.returncode == 3, done.stderr
    assert f"{results}:4" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("verb", ["review", "calibrate"])
def test_two_results_for_one_row_are_refused(judged: dict[str, Path], kit: Any, tmp_path: Path,
                                             verb: str) -> None:
    """Which of two different results for one row to trust cannot be told: a data error."""
    lines = judged["results"].read_text("utf-8").splitlines()
    other = json.loads(lines[3])
    other["labels"] = {k: "other" for k in other["labels"]}
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join([*lines, json.dumps(other)]) + "\n", encoding="utf-8")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"id": "c1", "label": "success"}) + "\n", encoding="utf-8")
    args = ("-o", tmp_path / "s.jsonl") if verb == "review" else (labels,)
    done = kit.evaldsl(verb, results, *args, "--spec", judged["spec"])
    assert done.returncode == 3, done.stderr
    assert f"{results}:{len(lines) + 1}" in done.stderr
