"""A team's own dialog log read as cases through a field map."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.cases.fieldmap import FieldMap
from evaldsl.cases.loading import read_cases
from evaldsl.cases.rows import CaseSchema
from evaldsl.errors import ConfigError

LOG = [
    {"id": 7, "meta": {"tenant": "acme"},
     "turns": [{"who": "用户", "text": "电话多少？"},
               {"who": "客服", "text": "010-12345678", "ms": 900}]},
    {"id": 8, "turns": "not a list"},
]


def write(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


MAP = FieldMap(messages="turns", role="who", text="text", latency_ms="ms",
               roles={"用户": "user", "客服": "assistant"}, fields={"tenant": "meta.tenant"})


def test_a_log_row_becomes_a_case_and_a_bad_one_names_the_path(tmp_path: Path) -> None:
    items = list(read_cases(write(tmp_path, LOG), CaseSchema({}, MAP), "skip"))
    case, bad = items
    assert isinstance(case, Case) and case.id == "7"
    assert [m.role for m in case.messages] == ["user", "assistant"]
    assert case.messages[1].content == "010-12345678"
    assert case.messages[1].latency_ms == 900
    assert case.fields["tenant"] == "acme"
    assert isinstance(bad, BadRow) and bad.line == 2 and bad.field == "turns"
    assert "turns" in bad.reason


def test_without_the_map_the_same_row_is_refused(tmp_path: Path) -> None:
    first = next(iter(read_cases(write(tmp_path, LOG[:1]), CaseSchema({}), "skip")))
    assert isinstance(first, BadRow) and first.field == "messages"


def test_a_map_file_with_an_unknown_key_is_said_at_once(tmp_path: Path) -> None:
    path = tmp_path / "map.toml"
    path.write_text('messages = "turns"\nspeaker = "who"\n', "utf-8")
    with pytest.raises(ConfigError, match="speaker"):
        FieldMap.load(path)


def test_run_reads_the_log_through_map(tmp_path: Path) -> None:
    spec = tmp_path / "s.eval"
    spec.write_text('spec "s"\ncheck phone = regex(pattern: "\\\\d{3}-\\\\d{8}")\n'
                    'metric r = rate(phone)\n', "utf-8")
    mapping = tmp_path / "map.toml"
    mapping.write_text('messages = "turns"\nrole = "who"\ntext = "text"\n'
                       'roles = { "用户" = "user", "客服" = "assistant" }\n', "utf-8")
    log = write(tmp_path, LOG[:1])
    done = subprocess.run([sys.executable, "-m", "evaldsl", "run", str(spec), str(log),
                           "--map", str(mapping), "-o", str(tmp_path / "r.json")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["cases"]["evaluated"] == 1
    refused = subprocess.run([sys.executable, "-m", "evaldsl", "run", str(spec), str(log),
                              "--map", str(mapping), "--workers", "2"],
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "--map" in refused.stderr
