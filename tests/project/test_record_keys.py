"""A results line's shape is written once: in `dsl/record.py` (`CaseRecord`).

Every module that writes or reads a line goes through the record's attributes, so a field
renamed, added or retyped is changed in one place. This test reads every module under
`dsl/` and fails on a results line's key (a field name of `CaseRecord`, as the line
spells it) used as a key: a subscript (`x["checks"]`), a `get`/`pop`/`setdefault`, a dict
display's key, an `in` test, or a `(name, ...)` row of a table of fields.

The same words are keys of other documents too; `ELSEWHERE` names each module that uses
them so, with the keys it uses and which document they belong to. A module that starts
reading a results line by its keys fails here until it reads a `CaseRecord` instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec

from evaldsl.record import CaseRecord

DSL = Path(__file__).resolve().parents[2] / "dsl"
KEYS = frozenset(f.encode_name for f in msgspec.structs.fields(CaseRecord))

_CASE_ROWS = "an input case's (or a tool call's) own `id` and fields, not a results line"
_REPORT = "report.json's document (its sections and entries), not a results line"
_SAMPLE = "the review sample's rows and the review store's cases, not a results line"
_WEB = "a web page's JSON (the studio's, the review page's)"
ELSEWHERE: dict[str, tuple[frozenset[str], str]] = {
    "dsl/agents/driver.py": (frozenset({"id", "trial"}), _CASE_ROWS),
    "dsl/agents/http_target.py": (frozenset({"id"}), _CASE_ROWS),
    "dsl/agents/openai_target.py": (frozenset({"id"}), _CASE_ROWS),
    "dsl/cases/case.py": (frozenset({"id"}), _CASE_ROWS),
    "dsl/cases/fieldmap.py": (frozenset({"id"}), _CASE_ROWS),
    "dsl/cases/openinference.py": (frozenset({"id"}), _CASE_ROWS),
    "dsl/cases/otel.py": (frozenset({"id"}), _CASE_ROWS),
    "dsl/cases/rows.py": (frozenset({"id"}), _CASE_ROWS),
    "dsl/cases/spanview.py": (frozenset({"id"}), _CASE_ROWS),
    "dsl/cases/traces.py": (frozenset({"id"}), _CASE_ROWS),
    "dsl/model/local/server.py": (frozenset({"id"}), "an OpenAI-style response's `id`"),
    "dsl/model/engine.py": (frozenset({"checks"}), "the model engine's own statistics"),
    "dsl/run/spec_tests.py": (frozenset({"id"}), _CASE_ROWS),
    "dsl/run/driving.py": (frozenset({"trial"}), "a scenario's `trial` case field"),
    "dsl/runtime/graph.py": (frozenset({"review"}), "the evaluation graph's `review` node"),
    "dsl/runtime/aggregation.py": (frozenset({"errors", "groups"}), _REPORT),
    "dsl/report/folded.py": (frozenset({"checks", "errors", "id", "metrics", "review",
                                        "skipped"}), _REPORT),
    "dsl/report/html_explorer.py": (frozenset({"branches", "checks", "lets"}),
                                    "the case explorer's page data"),
    "dsl/analysis/calibrate.py": (frozenset({"id", "labels"}), "a calibration's JSON"),
    "dsl/analysis/compare_render.py": (
        frozenset({"checks", "errors", "groups", "id", "labels", "metrics"}),
        "a comparison's JSON (docs/compare.schema.json)"),
    "dsl/analysis/pairing.py": (frozenset({"id"}), _SAMPLE),
    "dsl/analysis/sample_file.py": (frozenset({"id", "labels"}), _SAMPLE),
    "dsl/review/label_rows.py": (frozenset({"id"}), _SAMPLE),
    "dsl/review/store.py": (frozenset({"id", "skipped"}), _SAMPLE),
    "dsl/review/training.py": (frozenset({"id"}), "the training set's rows"),
    "dsl/review/web.py": (frozenset({"id", "labels", "skipped"}), _WEB),
    "dsl/studio/app.py": (frozenset({"id"}), _WEB),
    "dsl/studio/pages.py": (frozenset({"id", "review"}), _WEB),
    "dsl/studio/runs.py": (frozenset({"id"}), _WEB),
    "dsl/watch/monitor.py": (frozenset({"id"}), "the watch journal's session entry"),
    "dsl/report/journal.py": (frozenset({"trial"}), "a scenario's `trial` case field"),
    "dsl/report/explorer.py": (frozenset({"id", "row"}), "the case explorer's compact record"),
    "dsl/review/sample.py": (frozenset({"id", "labels"}), _SAMPLE),
    "dsl/review/importing.py": (
        frozenset({"checks", "errors", "id", "labels", "lets", "skipped"}),
        "the review page's view of what the spec said (its JSON); the sample's rows"),
    "dsl/calibration/neighbour_examples.py": (
        frozenset({"id", "labels"}),
        "the `classify` check's `labels:` argument; the proposed examples' JSON"),
    "dsl/calibration/judge_shots.py": (frozenset({"id"}), "the proposed shots' JSON"),
    "dsl/watch/judge_sample.py": (frozenset({"checks", "metrics"}),
                                  "the watch report's `denominators` section"),
    "dsl/report/record_shape.py": (
        frozenset({"branches", "checks", "errors", "groups", "labels", "lets", "metrics",
                   "review", "skipped", "target", "trial"}),
        "a line read from a file checked field by field, each problem in words naming the "
        "field: the types are `record.checked_type`'s, and tests/report/test_record_struct.py "
        "holds the two to the same answers"),
}


def _key_of(node: ast.AST) -> object:
    """The constant a node uses as a key, or None."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault") and node.args
            and isinstance(node.args[0], ast.Constant)):
        return node.args[0].value
    if (isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant)
            and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops)):
        return node.left.value
    return None


def keys_used(tree: ast.AST) -> set[str]:
    """The results-line keys a module's syntax tree uses as keys."""
    found: set[str] = set()
    for node in ast.walk(tree):
        candidates: list[object] = [_key_of(node)]
        if isinstance(node, ast.Dict):
            candidates += [k.value for k in node.keys if isinstance(k, ast.Constant)]
        if isinstance(node, (ast.List, ast.Tuple)):  # a table of (field, ...) rows
            candidates += [e.elts[0].value for e in node.elts
                           if isinstance(e, ast.Tuple) and len(e.elts) > 1
                           and isinstance(e.elts[0], ast.Constant)]
        found.update(k for k in candidates if isinstance(k, str) and k in KEYS)
    return found


def test_the_record_has_the_keys_this_test_looks_for() -> None:
    assert {"id", "labels", "checks", "metrics", "row"} <= KEYS


def test_the_scan_finds_a_line_read_by_its_keys() -> None:
    tree = ast.parse('labels = line.get("labels", {})\nscore = line["checks"]["a"]\n'
                     'fields = [("skipped", list), ("other", int)]\nbad = {"lets": 1}\n')
    assert keys_used(tree) == {"labels", "checks", "skipped", "lets"}
    assert keys_used(ast.parse('x = line.labels\ny = {"other": 1}\n')) == set()


def test_a_results_line_is_read_and_written_by_key_only_in_record_py() -> None:
    wrong = []
    for path in sorted(DSL.rglob("*.py")):
        name = path.relative_to(DSL.parent).as_posix()
        if name == "dsl/record.py":
            continue
        used = keys_used(ast.parse(path.read_text("utf-8"), name))
        allowed = ELSEWHERE.get(name, (frozenset(), ""))[0]
        if used - allowed:
            wrong.append(f"{name}: {sorted(used - allowed)}")
    assert not wrong, ("a results line's keys outside dsl/record.py (read a CaseRecord's "
                       "attributes, or name the other document in ELSEWHERE):\n"
                       + "\n".join(wrong))
