"""The package installs as users install it: a plain (non-editable) `pip install .`."""

from __future__ import annotations

import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with evaldsl installed from a copy of the source tree.

    The venv sees the site-packages of the environment running the tests (a `.pth`
    file), so dependencies need not be downloaded and are found wherever they were
    installed, in a project venv or in the base interpreter; evaldsl itself is
    installed without `-e`, from a wheel built from the tree. The venv gets no pip of
    its own (bootstrapping one was most of this setup): the running interpreter's pip
    installs into it through `--python` (pip >= 22.3).
    """
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    _see_dependencies(python)
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python),
         "install", "--quiet", "--no-deps", str(REPO)],
        check=True, capture_output=True, timeout=300,
    )
    return env_dir


def _see_dependencies(python: Path) -> None:
    """Append the running environment's site-packages to the new venv's `sys.path`.

    A folder named in a `.pth` file is only appended: its own `.pth` files (such
    as the editable install's import hook) are not run, so the source tree stays
    invisible and the venv's own evaldsl comes first.
    """
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip()
    folders = dict.fromkeys([*site.getsitepackages(), *sys.path])
    lines = [f for f in folders
             if f and Path(f).is_dir() and f.endswith(("site-packages", "dist-packages"))]
    (Path(purelib) / "_evaldsl_test_dependencies.pth").write_text("\n".join(lines) + "\n")


def test_installed_package_is_not_the_source_tree(installed: Path) -> None:
    """The import resolves inside the venv, so package data must really be installed."""
    python = installed / "bin" / "python"
    out = subprocess.run(
        [str(python), "-I", "-c", "import evaldsl, sys; print(evaldsl.__file__)"],
        check=True, capture_output=True, text=True, cwd=installed,
    )
    assert str(installed) in out.stdout, out.stdout


def test_installed_cli_checks_the_shipped_specs(installed: Path) -> None:
    """The console script works and finds the grammar and the standard library."""
    specs = sorted((REPO / "specs").glob("*.eval"))
    if not specs:
        pytest.skip("no specs shipped yet")
    result = subprocess.run(
        [str(installed / "bin" / "evaldsl"), "check", *map(str, specs)],
        capture_output=True, text=True, cwd=installed,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_installed_cli_speaks_chinese(installed: Path, tmp_path: Path) -> None:
    """The compiled Chinese catalogue is package data: without it messages stay English."""
    spec = tmp_path / "bad.eval"
    spec.write_text('spec "s"\nlet x = y\n', encoding="utf-8")
    result = subprocess.run(
        [str(installed / "bin" / "evaldsl"), "--lang", "zh", "check", str(spec)],
        capture_output=True, text=True, encoding="utf-8", cwd=installed,
    )
    assert "未知名称 `y`" in result.stdout, result.stdout + result.stderr


def test_installed_parser_reads_a_spec(installed: Path) -> None:
    python = installed / "bin" / "python"
    code = (
        "from evaldsl.syntax.parser import parse; "
        "r = parse('check k = keyword(any: [\"hi\"])', 'x.eval'); "
        "print(len(r.module.statements), len(r.diagnostics))"
    )
    out = subprocess.run([str(python), "-I", "-c", code], check=True, capture_output=True,
                         text=True, cwd=installed)
    assert out.stdout.split() == ["1", "0"]


def test_every_source_package_is_declared() -> None:
    """setuptools does not discover packages under remapped folders: each must be listed."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    declared = set(config["packages"])
    roots = {folder: name for name, folder in config["package-dir"].items()}
    found = set()
    for folder, name in roots.items():
        for init in (REPO / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(REPO / folder).parts
            found.add(".".join((name, *relative)))
    assert found <= declared, f"undeclared packages: {sorted(found - declared)}"


if sys.platform == "win32":  # pragma: no cover
    pytestmark = pytest.mark.skip("venv layout differs on Windows")
