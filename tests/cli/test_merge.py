"""`evaldsl merge SPEC RESULTS...`: the journals of sharded runs make the report of the whole."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest


def _figures(report: dict[str, Any]) -> dict[str, Any]:
    """Everything a report says about its cases; the dialogs of the worst cases come from
    the case files, which a merge does not read."""
    out = {k: v for k, v in report.items() if k not in ("run", "worst_cases")}
    out["worst_cases"] = [{k: v for k, v in c.items() if k not in ("dialog", "origin")}
                          for c in report["worst_cases"]]
    return out


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Path]:
    """40 cases run whole, and in two disjoint shards each with its journal."""
    tmp = tmp_path_factory.mktemp("merge")
    spec = tmp / "runner.eval"
    spec.write_text(kit.SPEC, encoding="utf-8")
    whole = tmp / "whole.jsonl"
    kit.write_cases(whole, 40)
    lines = whole.read_text("utf-8").splitlines(keepends=True)
    paths = {"spec": spec, "whole": whole}
    for name, part in (("a", lines[:17]), ("b", lines[17:])):
        cases = tmp / f"{name}.jsonl"
        cases.write_text("".join(part), encoding="utf-8")
        paths[name] = tmp / f"results-{name}.jsonl"
        done = kit.evaldsl("run", spec, cases, "--results", paths[name], "-q")
        assert done.returncode == 0, done.stderr
    paths["report"] = tmp / "whole.json"
    done = kit.evaldsl("run", spec, whole, "-o", paths["report"], "-q")
    assert done.returncode == 0, done.stderr
    return paths


def embedded_cases(page: Path) -> dict[str, Any]:
    """The case data a report page embeds for its explorer."""
    text = page.read_text("utf-8")
    start = text.index('<script type="application/json" id="explorer-data">')
    body = text[text.index(">", start) + 1 : text.index("</script>", start)]
    data: dict[str, Any] = json.loads(body)
    return data


class TestMergedPage:
    def test_every_case_with_its_dialog_read_back_from_the_shards_files(
            self, tmp_path: Path, kit: Any, shards: dict[str, Path]) -> None:
        page = tmp_path / "m.html"
        folder = shards["spec"].parent
        done = kit.evaldsl("merge", shards["spec"], shards["a"], shards["b"], "--html", page,
                           "--cases", folder / "a.jsonl", folder / "b.jsonl", "-q")
        assert done.returncode == 0, done.stderr
        data = embedded_cases(page)
        assert [c["id"] for c in data["cases"]] == [f"case-{i:05d}" for i in range(40)]
        assert all(d is not None for d in data["dialogs"])
        assert "explorer-note" not in page.read_text("utf-8")

    def test_case_files_gone_are_said_on_the_page(self, tmp_path: Path, kit: Any,
                                                  shards: dict[str, Path]) -> None:
        moved = {}
        for name in ("a", "b"):
            journal = tmp_path / f"results-{name}.jsonl"
            journal.write_bytes(shards[name].read_bytes())
            moved[name] = journal
        header = json.loads(moved["a"].read_text("utf-8").splitlines()[0])
        gone = tmp_path / "gone.jsonl"
        lines = moved["a"].read_text("utf-8").splitlines(keepends=True)
        header["inputs"] = [str(gone)]
        moved["a"].write_text(json.dumps(header) + "\n" + "".join(lines[1:]), "utf-8")
        page = tmp_path / "m.html"
        folder = shards["spec"].parent
        done = kit.evaldsl("merge", shards["spec"], moved["a"], moved["b"], "--html", page,
                           "--cases", folder / "b.jsonl", gone, "-q")
        assert done.returncode == 0, done.stderr
        data = embedded_cases(page)
        assert sum(d is None for d in data["dialogs"]) == 17
        assert "17 of 40 cases show no dialog" in page.read_text("utf-8")

    def test_only_the_case_files_given_are_read_never_those_a_header_names(
            self, tmp_path: Path, kit: Any, shards: dict[str, Path]) -> None:
        """A journal from elsewhere may name any file in its header: merge reads none of
        them, only the files its own command line gives."""
        secret = tmp_path / "secret.jsonl"
        a_rows = (shards["spec"].parent / "a.jsonl").read_text("utf-8").splitlines()
        first = json.loads(a_rows[0])
        first["messages"] = [{"role": "user", "content": "TOPSECRET 4111"},
                             {"role": "assistant", "content": "ok"}]
        secret.write_text(json.dumps(first) + "\n", "utf-8")
        lines = shards["a"].read_text("utf-8").splitlines(keepends=True)
        header = json.loads(lines[0])
        header["inputs"] = [str(secret)]
        case = json.loads(lines[1])
        case["row"] = f"{secret}:1"
        hostile = tmp_path / "hostile.jsonl"
        hostile.write_text(json.dumps(header) + "\n" + json.dumps(case) + "\n" +
                           "".join(lines[2:]), "utf-8")
        page = tmp_path / "m.html"
        done = kit.evaldsl("merge", shards["spec"], hostile, shards["b"], "--html", page, "-q")
        assert done.returncode == 0, done.stderr
        assert "TOPSECRET" not in page.read_text("utf-8")
        assert "no dialog" in page.read_text("utf-8")


class TestHostileJournals:
    @pytest.mark.parametrize("verb", ["merge", "run", "compare", "review"])
    @pytest.mark.parametrize("line", [2, 1])
    def test_a_line_nested_past_any_depth_is_refused_with_its_line(
            self, tmp_path: Path, kit: Any, shards: dict[str, Path], verb: str,
            line: int) -> None:
        lines = shards["a"].read_text("utf-8").splitlines(keepends=True)
        deep = '{"format": "evaldsl-results", "x": ' if line == 1 else '{"id": "x", "y": '
        lines[line - 1] = deep + "[" * 200_000 + "]" * 200_000 + "}\n"
        hostile = tmp_path / "hostile.jsonl"
        hostile.write_text("".join(lines), "utf-8")
        spec, cases = shards["spec"], shards["spec"].parent / "a.jsonl"
        words: dict[str, list[Any]] = {
            "merge": ["merge", spec, hostile, "-o", tmp_path / "o.json", "-q"],
            "run": ["run", spec, cases, "--results", hostile, "--resume", "-q"],
            "compare": ["compare", spec, shards["a"], hostile, "-q"],
            "review": ["review", hostile, "--spec", spec, "-o", tmp_path / "s.csv"]}
        done = kit.evaldsl(*words[verb])
        assert done.returncode in (2, 3), done.stderr
        assert f"hostile.jsonl:{line}:" in done.stderr or "hostile.jsonl`" in done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr


class TestMerge:
    def test_the_merged_report_is_the_report_of_the_whole_run(
            self, tmp_path: Path, kit: Any, shards: dict[str, Path]) -> None:
        out = tmp_path / "merged.json"
        done = kit.evaldsl("merge", shards["spec"], shards["b"], shards["a"], "-o", out,
                           "--html", tmp_path / "m.html", "--md", tmp_path / "m.md",
                           "--junit", tmp_path / "m.xml", "-q")
        assert done.returncode == 0, done.stderr
        merged = json.loads(out.read_text("utf-8"))
        whole = json.loads(shards["report"].read_text("utf-8"))
        assert _figures(merged) == _figures(whole)
        assert merged["cases"]["evaluated"] == 40
        assert merged["run"]["merged_journals"] == [str(shards["b"]), str(shards["a"])]
        assert "<html" in (tmp_path / "m.html").read_text("utf-8")
        assert "success_rate" in (tmp_path / "m.md").read_text("utf-8")
        assert sum(1 for _ in ET.parse(tmp_path / "m.xml").getroot().iter("testcase")) == 40

    def test_journals_of_another_spec_are_refused(self, tmp_path: Path, kit: Any,
                                                  shards: dict[str, Path]) -> None:
        other = tmp_path / "other.eval"
        other.write_text(kit.SPEC.replace("max_chars: 60", "max_chars: 61"), encoding="utf-8")
        done = kit.evaldsl("merge", other, shards["a"], "-o", tmp_path / "m.json")
        assert done.returncode == 2
        assert f"`{shards['a']}` holds results of another spec" in done.stderr
        assert not (tmp_path / "m.json").exists()

    def test_a_case_in_two_journals_is_refused(self, tmp_path: Path, kit: Any,
                                               shards: dict[str, Path]) -> None:
        done = kit.evaldsl("merge", shards["spec"], shards["a"], shards["b"], shards["a"],
                           "-o", tmp_path / "m.json")
        assert done.returncode == 3
        assert f"{shards['a']}:2: case `case-00000` is also in `{shards['a']}`" in done.stderr
        assert "hint: merge the journals of disjoint shards" in done.stderr
        assert not (tmp_path / "m.json").exists()


class TestMergeReadsJournalsAsResumeDoes:
    def test_a_line_of_the_wrong_shape_is_a_data_error_naming_it(
            self, tmp_path: Path, kit: Any, shards: dict[str, Path]) -> None:
        journal = tmp_path / "r.jsonl"
        lines = shards["a"].read_text("utf-8").splitlines(keepends=True)
        record = json.loads(lines[2])
        record["checks"]["greets"]["passed"] = "yes"
        lines[2] = json.dumps(record) + "\n"
        journal.write_text("".join(lines), encoding="utf-8")
        done = kit.evaldsl("merge", shards["spec"], journal, "-o", tmp_path / "m.json")
        assert done.returncode == 3, done.stderr
        assert (f"evaldsl merge: error: {journal}:3: `checks.greets.passed` has the wrong "
                "type") in done.stderr
        assert not (tmp_path / "m.json").exists()

    def test_a_line_written_twice_counts_once(self, tmp_path: Path, kit: Any,
                                             shards: dict[str, Path]) -> None:
        journal = tmp_path / "r.jsonl"
        lines = shards["a"].read_text("utf-8").splitlines(keepends=True)
        journal.write_text("".join(lines + lines[1:4]), encoding="utf-8")
        out, twice = tmp_path / "m.json", tmp_path / "twice.json"
        assert kit.evaldsl("merge", shards["spec"], shards["a"], shards["b"], "-o", out,
                           "-q").returncode == 0
        done = kit.evaldsl("merge", shards["spec"], journal, shards["b"], "-o", twice, "-q")
        assert done.returncode == 0, done.stderr
        merged = json.loads(twice.read_text("utf-8"))
        assert merged["cases"]["evaluated"] == 40
        assert _figures(merged) == _figures(json.loads(out.read_text("utf-8")))

    def test_an_old_journal_is_refused_with_advice(self, tmp_path: Path, kit: Any,
                                                   shards: dict[str, Path]) -> None:
        journal = tmp_path / "r.jsonl"
        lines = shards["a"].read_text("utf-8").splitlines(keepends=True)
        lines[0] = json.dumps({**json.loads(lines[0]), "version": 1}) + "\n"
        journal.write_text("".join(lines), encoding="utf-8")
        done = kit.evaldsl("merge", shards["spec"], journal, "-o", tmp_path / "m.json")
        assert done.returncode == 2, done.stderr
        assert f"`{journal}` is a version 1 journal" in done.stderr


class TestMergeGroups:
    def test_merged_shards_give_the_whole_runs_groups(self, tmp_path: Path, kit: Any) -> None:
        """A grouped metric of the shipped quality_monitoring spec, split 3 + 7 by rows."""
        repo = Path(__file__).resolve().parents[2]
        spec = repo / "specs" / "quality_monitoring.eval"
        rows = (repo / "examples" / "quality_monitoring.jsonl").read_text("utf-8").splitlines(
            keepends=True)
        journals = []
        for name, part in (("a", rows[:3]), ("b", rows[3:])):
            cases = tmp_path / f"{name}.jsonl"
            cases.write_text("".join(part), encoding="utf-8")
            journals.append(tmp_path / f"results-{name}.jsonl")
            done = kit.evaldsl("run", spec, cases, "--results", journals[-1], "-q")
            assert done.returncode == 0, done.stderr
        whole, merged = tmp_path / "whole.json", tmp_path / "merged.json"
        done = kit.evaldsl("run", spec, repo / "examples" / "quality_monitoring.jsonl",
                           "-o", whole, "-q")
        assert done.returncode == 0, done.stderr
        done = kit.evaldsl("merge", spec, *journals, "-o", merged, "-q")
        assert done.returncode == 0, done.stderr

        def groups(path: Path) -> Any:
            report = json.loads(path.read_text("utf-8"))
            return next(m for m in report["metrics"] if m["name"] == "各渠道合格率")["groups"]

        assert groups(merged) == groups(whole)
        assert [(g["key"], g["denominator"]) for g in groups(merged)] == [
            (["app"], 6), (["web"], 4)]
        line = json.loads(journals[0].read_text("utf-8").splitlines()[1])
        assert line["groups"] == {"各渠道合格率": ["app"]}


def test_the_merged_cost_is_the_shards_model_calls_added(tmp_path: Path, kit: Any,
                                                          judge_server: Any) -> None:
    """Each shard's journal ends with the model calls it made; merge adds them up, and a
    compare or a resume reads past that line."""
    spec = tmp_path / "judged.eval"
    spec.write_text(kit.MODEL_SPEC, encoding="utf-8")
    whole = tmp_path / "whole.jsonl"
    kit.write_cases(whole, 10)
    lines = whole.read_text("utf-8").splitlines(keepends=True)
    env = {"EVALDSL_JUDGE_API_KEY": "sk-test", "EVALDSL_JUDGE_BACKOFF": "0.01"}
    calls = []
    for name, part in (("a", lines[:4]), ("b", lines[4:])):
        cases = tmp_path / f"{name}.jsonl"
        cases.write_text("".join(part), encoding="utf-8")
        before = judge_server.stats()["chat"]
        done = kit.evaldsl("run", spec, cases, "--judge", judge_server.base_url, "--no-cache",
                           "--results", tmp_path / f"r-{name}.jsonl", "-o",
                           tmp_path / f"{name}.json", "-q", env=env)
        assert done.returncode in (0, 1), done.stderr
        calls.append(judge_server.stats()["chat"] - before)
        cost = json.loads((tmp_path / f"{name}.json").read_text("utf-8"))["cost"]
        assert cost["model_calls"] == calls[-1] > 0
    merged = tmp_path / "merged.json"
    done = kit.evaldsl("merge", spec, tmp_path / "r-a.jsonl", tmp_path / "r-b.jsonl", "-o",
                       merged)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(merged.read_text("utf-8"))
    assert report["cost"]["model_calls"] == sum(calls)
    assert report["cases"]["evaluated"] == 10
    assert f"cost: {sum(calls)} model calls" in done.stdout
    compared = kit.evaldsl("compare", spec, tmp_path / "r-a.jsonl", tmp_path / "r-a.jsonl")
    assert compared.returncode == 0, compared.stderr
