"""No two modules under `dsl/` share a file name, unless docs/internals.md lists them (`## Names`:
one concept at two stages, or one role in each model provider's package), or they are the
`errors` modules `errors.py` names."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from tests.project.test_errors import errors_homes

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "internals.md"
DSL = REPO / "dsl"
PATH = re.compile(r"`(dsl/[\w/]+\.py)`")


def shared_names(root: Path) -> dict[str, set[str]]:
    """Each file name two or more modules under `root` have, with their paths."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in root.rglob("*.py"):
        if path.name != "__init__.py" and "__pycache__" not in path.parts:
            found[path.name].add(path.relative_to(root.parent).as_posix())
    homes = {p.relative_to(root.parent).as_posix() for p in errors_homes(root)}
    return {name: paths for name, paths in found.items()
            if len(paths) > 1 and not paths <= homes}


def declared(text: str) -> list[set[str]]:
    """The groups `## Names` lists: one line each, its modules in backticks."""
    section = text.split("\n## Names\n", 1)[1].split("\n## ", 1)[0]
    return [set(PATH.findall(line)) for line in section.splitlines()
            if line.startswith("- ") and PATH.search(line)]


def problems(root: Path, groups: list[set[str]]) -> list[str]:
    out = []
    shared = shared_names(root)
    for name, paths in sorted(shared.items()):
        if paths not in groups:
            out.append(f"{name}: {sorted(paths)} share a name without being listed as one "
                       "concept at two stages")
    for group in groups:
        names = {p.rpartition("/")[2] for p in group}
        if len(names) != 1 or len(group) < 2 or group != shared.get(next(iter(names))):
            out.append(f"listed as one name, but not the modules of that name: {sorted(group)}")
        elif len({p.rpartition("/")[0] for p in group}) != len(group):
            out.append(f"listed as two stages, but in one folder: {sorted(group)}")
    return out


def test_no_two_modules_share_a_name_unless_listed() -> None:
    found = problems(DSL, declared(PAGE.read_text("utf-8")))
    assert not found, "\n".join(found)


# The check itself, on a small tree written for it.

@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "dsl"
    for name in ("errors.py", "model/errors.py", "analysis/compare.py", "cli/compare.py",
                 "watch/journal.py", "report/journal.py", "model/local/judge.py",
                 "model/openai/judge.py", "review/store.py", "review/old/store.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text('"""`evaldsl.model.errors`"""\n' if name == "errors.py"
                                 else "", "utf-8")
    return root


def test_the_check_finds_an_unlisted_pair_and_a_listing_that_is_wrong(tree: Path) -> None:
    groups = [{"dsl/analysis/compare.py", "dsl/cli/compare.py"},
              {"dsl/model/local/judge.py", "dsl/model/openai/judge.py"},
              {"dsl/review/store.py", "dsl/cli/store.py"}]
    assert problems(tree, groups) == [
        "journal.py: ['dsl/report/journal.py', 'dsl/watch/journal.py'] share a name without "
        "being listed as one concept at two stages",
        "store.py: ['dsl/review/old/store.py', 'dsl/review/store.py'] share a name without "
        "being listed as one concept at two stages",
        "listed as one name, but not the modules of that name: "
        "['dsl/cli/store.py', 'dsl/review/store.py']"]
