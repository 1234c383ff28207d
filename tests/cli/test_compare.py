"""`evaldsl compare SPEC BASE NEW`: two runs' journals paired by id, with paired statistics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]

SPEC = """\
spec "compare"
check greets = keyword(scope: first_user, any: ["hello"])
check polite = keyword(scope: replies, any: ["please"])
outcome {
  success if greets and polite
  failure otherwise
}
metric polite_rate = rate(polite)
metric greeted_polite = rate(polite) where greets
metric polite_score = mean(polite)
metric blend = rate(success) + 0.5 * rate(greets)
"""

POLITE = "please tell me your address"
CURT = "address?"


def _row(case_id: str, reply: str, user: str = "hello there") -> dict[str, Any]:
    return {"id": case_id, "messages": [{"role": "user", "content": user},
                                        {"role": "assistant", "content": reply}]}


def _base_rows() -> list[dict[str, Any]]:
    """c1 and c8-c10 polite, c2-c7 curt; `b-only` and `twice` only here (once each)."""
    rows = [_row(f"c{i}", POLITE if i in (1, 8, 9, 10) else CURT) for i in range(1, 11)]
    return [*rows, _row("b-only", POLITE), _row("twice", POLITE)]


def _new_rows() -> list[dict[str, Any]]:
    """c1 turned curt (1 worse), c2-c7 turned polite (6 better); `twice` twice, `n-only`."""
    rows = [_row(f"c{i}", CURT if i == 1 else POLITE) for i in range(1, 11)]
    return [*rows, _row("n-only", CURT), _row("twice", POLITE), _row("twice", CURT)]


def _write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _journal(kit: Any, tmp: Path, spec: Path, name: str, rows: list[dict[str, Any]]) -> Path:
    cases = _write_rows(tmp / f"{name}-cases.jsonl", rows)
    journal = tmp / f"{name}.jsonl"
    done = kit.evaldsl("run", spec, cases, "--results", journal, "-q")
    assert done.returncode in (0, 1), done.stderr
    return journal


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("compare")
    spec = tmp / "compare.eval"
    spec.write_text(SPEC, encoding="utf-8")
    shrunk = [_row(r["id"], POLITE, user="hi") if r["id"] in ("c8", "c9") else r
              for r in _base_rows()]
    return {"spec": spec, "base": _journal(kit, tmp, spec, "base", _base_rows()),
            "new": _journal(kit, tmp, spec, "new", _new_rows()),
            "shrunk": _journal(kit, tmp, spec, "shrunk", shrunk),
            "all_polite": _journal(kit, tmp, spec, "all-polite",
                                   [_row(f"k{i}", POLITE) for i in range(20)]),
            "all_curt": _journal(kit, tmp, spec, "all-curt",
                                 [_row(f"k{i}", CURT) for i in range(20)])}


def _compare(kit: Any, tmp_path: Path, *args: str | Path) -> tuple[Any, dict[str, Any]]:
    out = tmp_path / "compare.json"
    done = kit.evaldsl("compare", *args, "-o", out)
    return done, json.loads(out.read_text("utf-8")) if out.exists() else {}


def _metric(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(m for m in data["metrics"] if m["name"] == name)


class TestPairing:
    def test_cases_are_paired_by_id_and_the_others_counted(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        done, data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"])
        assert done.returncode == 0, done.stderr
        assert data["cases"] == {"paired": 10, "only_base": 1, "only_new": 1,
                                 "duplicated_base": 0, "duplicated_new": 1}
        assert ("10 cases paired, 1 only in base, 1 only in new, 0 duplicated ids in base, "
                "1 in new") in done.stdout


class TestMetrics:
    def test_a_rate_gets_mcnemar_from_its_discordant_pairs(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        _done, data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"])
        polite = _metric(data, "polite_rate")
        assert polite["test"] == "mcnemar"
        assert polite["discordant"] == {"worse": 1, "better": 6}
        assert polite["p_value"] == 2 * (1 + 7) / 2**7
        assert (polite["base"], polite["new"], polite["paired"]) == (0.4, 0.9, 10)
        assert polite["difference"] == pytest.approx(0.5)

    def test_the_bootstrap_interval_repeats_with_numpy_and_the_seed(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        _done, data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"],
                               "--seed", "5", "--resamples", "300")
        ids = sorted(f"c{i}" for i in range(1, 11))
        base = np.array([1.0 if i in ("c1", "c8", "c9", "c10") else 0.0 for i in ids])
        new = np.array([0.0 if i == "c1" else 1.0 for i in ids])
        idx = np.random.default_rng(5).integers(0, 10, size=(300, 10))
        expected = np.percentile(new[idx].mean(1) - base[idx].mean(1), [2.5, 97.5])
        low, high = _metric(data, "polite_rate")["interval"]
        assert (low, high) == pytest.approx(tuple(expected))
        assert -1 <= low <= 0.5 <= high <= 1

    def test_other_formulas_get_a_permutation_p_value(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        _done, data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"])
        for name in ("polite_score", "blend"):
            metric = _metric(data, name)
            assert metric["test"] == "permutation"
            assert 0 < metric["p_value"] <= 1
            low, high = metric["interval"]
            assert low <= metric["difference"] <= high

    def test_the_output_validates_against_the_published_schema(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        _done, data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"],
                               "--fail-if-worse", "polite_rate")
        schema = json.loads((REPO / "docs" / "compare.schema.json").read_text("utf-8"))
        jsonschema.validate(data, schema)


class TestChanges:
    def test_the_transition_table_and_the_changed_cases_worst_first(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        done, data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"],
                              "--md", tmp_path / "c.md")
        [block] = data["transitions"]
        assert block["labels"] == ["success", "failure", "error"]
        assert block["counts"] == [
            {"base": "failure", "new": "success", "cases": 6},
            {"base": "success", "new": "failure", "cases": 1},
            {"base": "success", "new": "success", "cases": 3}]
        changed = data["changed_cases"]
        assert [c["id"] for c in changed] == ["c1", "c2", "c3", "c4", "c5", "c6", "c7"]
        assert changed[0] == {"id": "c1", "base": "success", "new": "failure", "move": 1,
                              "checks": [{"check": "polite", "base": "passed",
                                          "new": "failed"}]}
        assert "c1: success -> failure (polite passed->failed)" in done.stdout
        markdown = (tmp_path / "c.md").read_text("utf-8")
        assert "| success | 3 | 1 | 0 |" in markdown
        assert "- `c1`: success -> failure (polite passed->failed)" in markdown


    def test_the_list_of_changed_cases_is_bounded_and_the_rest_counted(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        done, data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"],
                              "--changed", "3", "--md", tmp_path / "c.md")
        assert [c["id"] for c in data["changed_cases"]] == ["c1", "c2", "c3"]
        assert (data["changed_total"], data["settings"]["listed"]) == (7, 3)
        [block] = data["transitions"]
        assert sum(c["cases"] for c in block["counts"] if c["base"] != c["new"]) == 7
        assert "... and 4 more" in done.stdout
        assert "- ... and 4 more" in (tmp_path / "c.md").read_text("utf-8")


class TestGate:
    def test_a_significant_drop_fails(self, tmp_path: Path, kit: Any,
                                      runs: dict[str, Path]) -> None:
        done, data = _compare(kit, tmp_path, runs["spec"], runs["all_polite"], runs["all_curt"],
                              "--fail-if-worse", "polite_rate")
        assert done.returncode == 1, done.stderr
        assert data["gates"] == [{"metric": "polite_rate", "margin": 0.0, "failed": True,
                                  "reason": "worse"}]
        assert "gate `polite_rate`: failed (significantly worse)" in done.stdout

    def test_a_gain_or_a_drop_within_the_margin_passes(self, tmp_path: Path, kit: Any,
                                                       runs: dict[str, Path]) -> None:
        gain, _data = _compare(kit, tmp_path, runs["spec"], runs["all_curt"],
                               runs["all_polite"], "--fail-if-worse", "polite_rate")
        within, _data = _compare(kit, tmp_path, runs["spec"], runs["all_polite"],
                                 runs["all_curt"], "--fail-if-worse", "polite_rate:100%")
        assert (gain.returncode, within.returncode) == (0, 0)

    def test_a_drop_that_is_not_significant_passes(self, tmp_path: Path, kit: Any,
                                                   runs: dict[str, Path]) -> None:
        """new -> base: polite_rate falls by 50 points, but McNemar's p is 0.125."""
        done, data = _compare(kit, tmp_path, runs["spec"], runs["new"], runs["base"],
                              "--fail-if-worse", "polite_rate")
        assert done.returncode == 0, done.stderr
        assert _metric(data, "polite_rate")["difference"] == pytest.approx(-0.5)

    def test_a_shrunk_denominator_fails(self, tmp_path: Path, kit: Any,
                                        runs: dict[str, Path]) -> None:
        """Two of twelve paired cases no longer greet: `greeted_polite` counts 10, not 12."""
        done, data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["shrunk"],
                              "--fail-if-worse", "greeted_polite", "--fail-if-worse",
                              "polite_rate")
        assert done.returncode == 1, done.stderr
        assert _metric(data, "greeted_polite")["denominator"] == {"base": 12, "new": 10}
        assert [g["reason"] for g in data["gates"]] == ["denominator", None]

    def test_an_unknown_metric_is_a_usage_error(self, tmp_path: Path, kit: Any,
                                                runs: dict[str, Path]) -> None:
        done, _data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"],
                               "--fail-if-worse", "polite_rat")
        assert done.returncode == 2
        assert "unknown metric `polite_rat`" in done.stderr
        assert "did you mean `polite_rate`?" in done.stderr


class TestSpecHashes:
    def test_another_spec_is_a_warning_and_strict_refuses(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        other = tmp_path / "other.eval"
        other.write_text(SPEC.replace("hello there", "x") + "\n# changed\n", encoding="utf-8")
        done, data = _compare(kit, tmp_path, other, runs["base"], runs["new"])
        assert done.returncode == 0, done.stderr
        assert f"warning: `{runs['base']}` holds results of another spec" in done.stderr
        assert f"warning: `{runs['new']}` holds results of another spec" in done.stderr
        strict, _data = _compare(kit, tmp_path, other, runs["base"], runs["new"],
                                 "--strict")
        assert strict.returncode == 2
        assert f"`{runs['base']}` holds results of another spec" in strict.stderr


class TestOutputs:
    def test_json_on_stdout_moves_the_summary_to_stderr(self, kit: Any,
                                                        runs: dict[str, Path]) -> None:
        done = kit.evaldsl("compare", runs["spec"], runs["base"], runs["new"], "-o", "-")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["cases"]["paired"] == 10
        assert "10 cases paired" in done.stderr

    def test_two_outputs_on_stdout_are_a_usage_error(self, kit: Any,
                                                     runs: dict[str, Path]) -> None:
        done = kit.evaldsl("compare", runs["spec"], runs["base"], runs["new"], "-o", "-",
                           "--md", "-")
        assert done.returncode == 2
        assert "only one of -o and --md can write to stdout" in done.stderr
        assert done.stdout == ""


def _flip(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in data["flips"]["checks"] if f["name"] == name)


class TestFlipRates:
    def test_verdict_and_check_flips_with_their_denominators(
            self, tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
        """c1 turned curt and c2-c7 polite: 7 of the 10 paired verdicts flipped, all
        through `polite`; `greets` never flipped."""
        done, data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"],
                              "--md", tmp_path / "c.md")
        verdict = dict(data["flips"]["verdict"])
        # Coincidences: success-failure 7 each way, success-success 6; n = 20 values, 13
        # success and 7 failure: alpha = 1 - (n - 1) * 14 / (2 * 13 * 7), below 0.
        assert verdict.pop("alpha") == pytest.approx(1 - 19 * 14 / (2 * 13 * 7))
        assert verdict == {"name": "outcome", "flipped": 7, "decided": 10, "undecided": 0,
                           "rate": 0.7}
        assert _flip(data, "polite")["flipped"] == 7
        assert _flip(data, "greets") == {"name": "greets", "flipped": 0, "decided": 10,
                                         "undecided": 0, "rate": 0.0, "alpha": None}
        assert ("verdict flips: 7 of 10 cases decided in both runs (70.0%), Krippendorff's "
                "alpha -0.46") in done.stdout
        assert "check `polite` flips: 7 of 10 cases decided in both runs (70.0%)" in done.stdout
        assert "check `greets`" not in done.stdout
        assert "- verdict flips: 7 of 10" in (tmp_path / "c.md").read_text("utf-8")
        jsonschema.validate(data, json.loads(
            (REPO / "docs" / "compare.schema.json").read_text("utf-8")))

    def test_an_error_in_either_run_is_left_out_and_counted(
            self, tmp_path: Path, kit: Any) -> None:
        """A case without a reply in the new run errs there: it leaves the verdict's and
        `polite`'s denominators and is counted beside them, never a flip."""
        spec = tmp_path / "s.eval"
        spec.write_text(SPEC, encoding="utf-8")
        rows = [_row(f"k{i}", POLITE) for i in range(3)]
        silent = {"id": "k2", "messages": [{"role": "user", "content": "hello there"}]}
        base = _journal(kit, tmp_path, spec, "base", rows)
        new = _journal(kit, tmp_path, spec, "new", [*rows[:2], silent])
        done, data = _compare(kit, tmp_path, spec, base, new)
        assert data["flips"]["verdict"] == {"name": "outcome", "flipped": 0, "decided": 2,
                                            "undecided": 1, "rate": 0.0, "alpha": None}
        assert _flip(data, "polite")["undecided"] == 1
        assert ("verdict flips: 0 of 2 cases decided in both runs (0.0%), 1 left out "
                "(an error or not computed in a run)") in done.stdout
        assert "no check flipped between pass and fail" in done.stdout
