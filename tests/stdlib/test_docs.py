"""Every deterministic primitive has a page in docs/primitives with a parsing example."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evaldsl.primitives.registry import default_registry
from evaldsl.syntax.parser import parse

DOCS = Path(__file__).resolve().parents[2] / "docs" / "primitives"
DETERMINISTIC = ["keyword", "regex", "latency", "length", "turns", "json_schema",
                 "contains_json", "signals",
                 "safety", "args_match", "trajectory", "tool_called", "numeric", "exact", "f1",
                 "edit_distance", "json_match"]


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_page_lists_every_parameter_and_field(name: str) -> None:
    primitive = default_registry().get(name)
    assert primitive is not None
    page = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    for param in primitive.params.model_fields:
        assert f"| `{param}` |" in page, param
    for result_field in primitive.result_fields():
        assert f"| `.{result_field}` |" in page, result_field
    assert f"Default: `{primitive.default_scope}`" in page


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_page_example_parses_and_uses_the_primitive(name: str) -> None:
    page = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    example = re.search(r"```eval\n(.*?)```", page, re.S)
    assert example is not None
    result = parse(example.group(1), f"{name}.md")
    assert result.module is not None and not result.diagnostics
    assert f"{name}(" in example.group(1)
