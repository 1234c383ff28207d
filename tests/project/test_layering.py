"""The stages of docs/internals.md, kept: no import from a later stage, no cycle between modules.

Every import of every module under `dsl/` is read with `ast`, at module level and inside
functions (a lazy import is an import all the same); only `if TYPE_CHECKING:` blocks are left
out, since nothing runs them.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "internals.md"
DSL = REPO / "dsl"
PACKAGE = "evaldsl"
ENTRY = re.compile(r"`(dsl/[\w/]*(?:\.py|/))`")
ELSEWHERE = tuple(name for name in tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
                  ["tool"]["setuptools"]["package-dir"] if name != PACKAGE)
"""Subpackages kept outside `dsl/` (`evaldsl.grammar`, `evaldsl.stdlib`): not this check's."""


@dataclass(frozen=True)
class Import:
    line: int
    target: str


def module_name(path: Path, root: Path = DSL) -> str:
    parts = [PACKAGE, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path = DSL) -> dict[str, Path]:
    """Every module under `root`, by its import name."""
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))
            if "__pycache__" not in p.parts}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
            or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _statements(node: ast.AST) -> Iterator[ast.AST]:
    """Every node below `node`, leaving out the body of `if TYPE_CHECKING:`."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _statements(other)
            continue
        yield child
        yield from _statements(child)


def imports(name: str, path: Path, known: Mapping[str, Path]) -> list[Import]:
    """The modules under `dsl/` that `name` imports, each with the line that imports it."""
    tree = ast.parse(path.read_text("utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            found += [Import(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                whole = f"{source}.{alias.name}"
                if whole in known or whole.startswith(ELSEWHERE):
                    found.append(Import(node.lineno, whole))
                else:
                    found.append(Import(node.lineno, source))
    return sorted({i for i in found if i.target in known}, key=lambda i: (i.line, i.target))


def stage_order(text: str) -> list[list[str]]:
    """The numbered list under `## Stage order`: per stage, the paths it names."""
    section = text.split("\n## Stage order\n", 1)[1].split("\n## ", 1)[0]
    return [ENTRY.findall(line) for line in section.splitlines()
            if re.match(r"\d+\. ", line)]


def stage_of(path: str, stages: list[list[str]]) -> int | None:
    """The stage of the most specific entry naming `path` (a module before its folder)."""
    best: tuple[int, int] | None = None
    for number, entries in enumerate(stages):
        for entry in entries:
            if path == entry or entry.endswith("/") and path.startswith(entry):
                if best is None or len(entry) > best[0]:
                    best = (len(entry), number)
    return None if best is None else best[1]


def upward_imports(known: Mapping[str, Path], stages: list[list[str]],
                   root: Path) -> list[str]:
    """Each import from a later stage, as `importer:line imports target (stage a < b)`."""
    def stage(name: str) -> int | None:
        return stage_of(known[name].relative_to(root.parent).as_posix(), stages)

    found = []
    for name, path in known.items():
        mine = stage(name)
        for each in imports(name, path, known):
            theirs = stage(each.target)
            if mine is not None and theirs is not None and theirs > mine:
                where = path.relative_to(root.parent).as_posix()
                found.append(f"{where}:{each.line} ({name}, stage {mine + 1}) imports "
                             f"{each.target} (stage {theirs + 1})")
    return found


def cycles(known: Mapping[str, Path]) -> list[list[str]]:
    """One cycle through each strongly connected group of modules (Tarjan, no recursion)."""
    edges = {name: sorted({i.target for i in imports(name, path, known)} - {name})
             for name, path in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(set(group))
    return [_cycle_in(group, edges) for group in groups]


def _cycle_in(group: set[str], edges: Mapping[str, list[str]]) -> list[str]:
    """A path from the group's first module back to itself, inside the group."""
    first = min(group)
    seen = {first: [first]}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for child in edges[node]:
                if child == first:
                    return [*seen[node], first]
                if child in group and child not in seen:
                    seen[child] = [*seen[node], child]
                    following.append(child)
        frontier = following
    raise AssertionError(group)


KNOWN = modules()
STAGES = stage_order(PAGE.read_text("utf-8"))


def test_the_page_declares_the_stages() -> None:
    assert len(STAGES) > 5 and all(STAGES)
    named = [e for entries in STAGES for e in entries]
    assert len(named) == len(set(named)), "a path is named in two stages"


def test_every_module_has_a_stage() -> None:
    """A new package is placed in the order on purpose, not left out of the check."""
    unplaced = sorted(p.relative_to(REPO).as_posix() for p in KNOWN.values()
                      if stage_of(p.relative_to(REPO).as_posix(), STAGES) is None)
    assert not unplaced, f"modules in no stage of docs/internals.md: {unplaced}"


def test_no_import_from_a_later_stage() -> None:
    found = upward_imports(KNOWN, STAGES, DSL)
    assert not found, "imports from a later stage:\n" + "\n".join(found)


def test_no_cycle_between_modules() -> None:
    found = [" -> ".join(c) for c in cycles(KNOWN)]
    assert not found, "import cycles:\n" + "\n".join(found)


# The check itself, on a small tree written for it: it must see what it is there to see.

@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "dsl"
    files = {
        "__init__.py": "",
        "low/__init__.py": "",
        "low/a.py": "from typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n    from evaldsl.high.b import B\n",
        "low/c.py": "def f():\n    from ..high import b\n",
        "high/__init__.py": "",
        "high/b.py": "import evaldsl.low.a\nfrom evaldsl.low.c import f\n",
        "high/d.py": "from . import e\n",
        "high/e.py": "class E:\n    def m(self):\n        from evaldsl.high.d import x\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, "utf-8")
    return root


def test_the_check_finds_a_lazy_upward_import_and_spares_type_checking(tree: Path) -> None:
    known = modules(tree)
    stages = stage_order("\n## Stage order\n\n1. `dsl/low/`\n2. `dsl/high/` `dsl/__init__.py`\n")
    found = upward_imports(known, stages, tree)
    assert found == ["dsl/low/c.py:2 (evaldsl.low.c, stage 1) imports evaldsl.high.b (stage 2)"]


def test_the_check_finds_cycles_through_lazy_and_relative_imports(tree: Path) -> None:
    assert sorted(cycles(modules(tree))) == [
        ["evaldsl.high.b", "evaldsl.low.c", "evaldsl.high.b"],
        ["evaldsl.high.d", "evaldsl.high.e", "evaldsl.high.d"]]


def test_a_module_entry_is_more_specific_than_its_folder() -> None:
    stages = [["dsl/syntax/"], ["dsl/syntax/source.py"]]
    assert stage_of("dsl/syntax/source.py", stages) == 1
    assert stage_of("dsl/syntax/parser.py", stages) == 0
    assert stage_of("dsl/other.py", stages) is None
