"""Every exception class is declared in `dsl/errors.py` or in a package's one `errors` module that
`errors.py`'s docstring names; a private `_Signal` a module raises and catches within itself is
the one exception (it is control flow, not an error of the library)."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DSL = REPO / "dsl"
BUILTIN = {name for name, value in vars(builtins).items()
           if isinstance(value, type) and issubclass(value, BaseException)}


def errors_homes(root: Path) -> set[Path]:
    """`dsl/errors.py` and every `evaldsl.X.errors` its docstring names."""
    doc = ast.get_docstring(ast.parse((root / "errors.py").read_text("utf-8"))) or ""
    named = set(re.findall(r"`evaldsl\.([\w.]+)\.errors`", doc))
    return {root / "errors.py", *(root.joinpath(*p.split("."), "errors.py") for p in named)}


def exception_classes(root: Path) -> dict[str, list[tuple[Path, int]]]:
    """Each class under `root` that derives from an exception, by name, with where it is."""
    bases: dict[str, set[str]] = {}
    places: dict[str, list[tuple[Path, int]]] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(
                    ast.unparse(b).rpartition(".")[2] for b in node.bases)
                places.setdefault(node.name, []).append((path, node.lineno))

    def is_exception(name: str, seen: frozenset[str] = frozenset()) -> bool:
        if name in BUILTIN:
            return True
        if name in seen or name not in bases:
            return False
        return any(is_exception(b, seen | {name}) for b in bases[name])

    return {name: where for name, where in places.items() if is_exception(name)}


def misplaced(root: Path) -> list[str]:
    homes = errors_homes(root)
    return sorted(f"{path.relative_to(root.parent).as_posix()}:{line} {name}"
                  for name, where in exception_classes(root).items() if not name.startswith("_")
                  for path, line in where if path not in homes)


def test_every_exception_class_is_in_an_errors_module() -> None:
    found = misplaced(DSL)
    assert not found, ("exception classes outside dsl/errors.py and the errors modules its "
                       "docstring names:\n" + "\n".join(found))


def test_the_named_errors_modules_exist() -> None:
    missing = sorted(p for p in errors_homes(DSL) if not p.is_file())
    assert not missing, f"dsl/errors.py names errors modules that do not exist: {missing}"


def test_errors_py_lists_each_of_its_classes() -> None:
    """The docstring's tree is the map of the hierarchy: a class it does not show is news."""
    tree = ast.parse((DSL / "errors.py").read_text("utf-8"))
    doc = ast.get_docstring(tree) or ""
    unlisted = [n.name for n in tree.body if isinstance(n, ast.ClassDef)
                and not re.search(rf"\b{n.name}\b", doc)]
    assert not unlisted, f"classes of dsl/errors.py missing from its docstring: {unlisted}"


# The check itself, on a small tree written for it.

@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "dsl"
    files: Mapping[str, str] = {
        "errors.py": '"""Homes: `evaldsl.model.errors`."""\nclass BaseError(Exception): ...\n',
        "model/errors.py": "from evaldsl.errors import BaseError\n"
                           "class ModelError(BaseError): ...\n",
        "model/engine.py": "from evaldsl.model.errors import ModelError\n"
                           "class Late(ModelError): ...\nclass _Signal(Exception): ...\n"
                           "class Plain: ...\n",
        "run/pool.py": "class WorkerDied(RuntimeError): ...\n",
        "run/errors.py": "class NotNamed(ValueError): ...\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, "utf-8")
    return root


def test_the_check_finds_classes_outside_the_named_modules(tree: Path) -> None:
    assert misplaced(tree) == ["dsl/model/engine.py:2 Late", "dsl/run/errors.py:1 NotNamed",
                               "dsl/run/pool.py:1 WorkerDied"]
