"""`evaldsl compare` on a grouped metric (`by case.tenant`): the comparison within each group."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[2]

SPEC = """\
spec "groups"
case { tenant: text }
check polite = keyword(scope: replies, any: ["please"])
metric polite_rate = rate(polite) by case.tenant
"""
POLITE, CURT = "please tell me your address", "address?"
BASE = {"a1": ("A", POLITE), "a2": ("A", POLITE), "a3": ("A", CURT), "a4": ("A", CURT),
        "b1": ("B", CURT), "b2": ("B", CURT), "b3": ("B", CURT)}
NEW = {"a1": ("A", POLITE), "a2": ("A", CURT), "a3": ("A", POLITE), "a4": ("A", POLITE),
       "b1": ("B", POLITE), "b2": ("B", CURT), "b3": ("B", CURT)}
"""A: 2/4 polite -> 3/4 (a2 worse; a3, a4 better). B: 0/3 -> 1/3 (b1 better)."""


def _journal(kit: Any, tmp: Path, spec: Path, name: str,
             rows: dict[str, tuple[str, str]]) -> Path:
    cases = tmp / f"{name}-cases.jsonl"
    cases.write_text("".join(json.dumps({
        "id": case_id, "tenant": tenant,
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": reply}],
    }) + "\n" for case_id, (tenant, reply) in rows.items()), encoding="utf-8")
    journal = tmp / f"{name}.jsonl"
    done = kit.evaldsl("run", spec, cases, "--results", journal, "-q")
    assert done.returncode in (0, 1), done.stderr
    return journal


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, kit: Any) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("compare-groups")
    spec = tmp / "groups.eval"
    spec.write_text(SPEC, encoding="utf-8")
    only_a = {k: v for k, v in BASE.items() if v[0] == "A"}
    only_a_new = {k: v for k, v in NEW.items() if v[0] == "A"}
    return {"spec": spec, "base": _journal(kit, tmp, spec, "base", BASE),
            "new": _journal(kit, tmp, spec, "new", NEW),
            "a_base": _journal(kit, tmp, spec, "a-base", only_a),
            "a_new": _journal(kit, tmp, spec, "a-new", only_a_new)}


def _compare(kit: Any, tmp_path: Path, *args: str | Path) -> tuple[Any, dict[str, Any]]:
    out = tmp_path / "compare.json"
    done = kit.evaldsl("compare", *args, "-o", out)
    assert done.returncode == 0, done.stderr
    return done, json.loads(out.read_text("utf-8"))


def test_each_group_has_its_own_figures(tmp_path: Path, kit: Any,
                                        runs: dict[str, Path]) -> None:
    """The figures written out by hand: McNemar's p from the discordant counts (A: 1 worse,
    2 better, p = 2 * (C(3,0) + C(3,1)) / 2^3 capped at 1; B: 0 and 1, p = 1)."""
    done, data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"])
    metric, = data["metrics"]
    assert (metric["base"], metric["new"], metric["paired"]) == (2 / 7, 4 / 7, 7)
    assert metric["p_value"] == pytest.approx(2 * (1 + 4) / 16)
    a, b = metric["groups"]
    assert (a["key"], a["paired"], a["base"], a["new"]) == (["A"], 4, 0.5, 0.75)
    assert a["difference"] == pytest.approx(0.25)
    assert a["discordant"] == {"worse": 1, "better": 2} and a["p_value"] == 1.0
    assert (b["key"], b["paired"], b["base"], b["new"]) == (["B"], 3, 0.0, 1 / 3)
    assert b["discordant"] == {"worse": 0, "better": 1} and b["p_value"] == 1.0
    assert a["small"] and b["small"]
    for group in (a, b):
        low, high = group["interval"]
        assert -1 <= low <= group["difference"] <= high <= 1
    assert "`polite_rate` by group:" in done.stdout
    assert "A *" in done.stdout and "fewer than 30 paired cases" in done.stdout


def test_a_group_is_compared_as_its_cases_alone_would_be(
        tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
    """Group A's figures, interval and p-value are those of comparing A's cases by themselves."""
    _done, whole = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"])
    _done, alone = _compare(kit, tmp_path, runs["spec"], runs["a_base"], runs["a_new"])
    group = whole["metrics"][0]["groups"][0]
    figures = ("base", "new", "difference", "interval", "p_value", "paired", "discordant")
    assert {k: group[k] for k in figures} == {k: alone["metrics"][0][k] for k in figures}


def test_the_output_validates_and_markdown_shows_the_groups(
        tmp_path: Path, kit: Any, runs: dict[str, Path]) -> None:
    md = tmp_path / "compare.md"
    _done, data = _compare(kit, tmp_path, runs["spec"], runs["base"], runs["new"], "--md", md)
    schema = json.loads((REPO / "docs" / "compare.schema.json").read_text("utf-8"))
    jsonschema.validate(data, schema)
    bad = json.loads(json.dumps(data))
    del bad["metrics"][0]["groups"][0]["small"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    text = md.read_text("utf-8")
    assert "### `polite_rate` by group:" in text
    assert "| A * | 50.0% | 75.0% | +25.0% |" in text
