"""docs/internals.md is the map of the code: every module on it, and nothing that is gone."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "internals.md"
ROOTS = ("dsl", "stdlib_rules", "grammar")
NAMED = re.compile(r"`((?:dsl|stdlib_rules|grammar)/(?:[\w/]*\w\.(?:py|lark)|[\w/]*))`")
"""A module (`dsl/syntax/parser.py`) or a package (`dsl/syntax/`) named on the page."""


def _files() -> set[str]:
    """Every module of the package (and the grammar), as a path from the repository root."""
    found = set()
    for root in ROOTS:
        for path in (REPO / root).rglob("*"):
            if path.suffix in (".py", ".lark") and "__pycache__" not in path.parts:
                found.add(path.relative_to(REPO).as_posix())
    return found


def _packages() -> set[str]:
    return {f.removesuffix("__init__.py") for f in _files() if f.endswith("/__init__.py")}


def _named() -> set[str]:
    return set(NAMED.findall(PAGE.read_text("utf-8")))


def test_every_module_is_on_the_map() -> None:
    """A new module gets its one-line job in docs/internals.md."""
    modules = {f for f in _files() if not f.endswith("/__init__.py")}
    missing = sorted(modules - _named())
    assert not missing, f"modules missing from docs/internals.md: {missing}"


def test_every_package_is_on_the_map() -> None:
    """A package is named as its folder (`dsl/syntax/`) or by its `__init__.py`."""
    named = _named()
    missing = sorted(p for p in _packages() if p not in named and f"{p}__init__.py" not in named)
    assert not missing, f"packages missing from docs/internals.md: {missing}"


def test_the_map_names_no_module_that_is_gone() -> None:
    """A removed or renamed module leaves the page too."""
    gone = sorted(_named() - _files() - _packages())
    assert not gone, f"docs/internals.md names modules that do not exist: {gone}"


def test_each_module_has_one_row() -> None:
    """One line per module, so the map never says two things about one file."""
    rows = [m for line in PAGE.read_text("utf-8").splitlines() if line.startswith("| `")
            for m in NAMED.findall(line.split("|")[1])]
    assert len(rows) == len(set(rows)), sorted({m for m in rows if rows.count(m) > 1})
