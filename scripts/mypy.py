"""Run `mypy --strict` on the package as it is installed: `python scripts/mypy.py [MYPY ARGS]`.

The source folders are not named as the package is imported (`dsl/` is `evaldsl`,
`stdlib_rules/` is `evaldsl.stdlib`, `grammar/` is `evaldsl.grammar`, see
`package-dir` in pyproject.toml), and mypy cannot follow that mapping or the
editable install's import hook. So this script lays the installed layout out as
symlinks in a temporary folder, checks `-p evaldsl` there with the project's
configuration, and prints the messages with the paths of the source tree.
Extra arguments go to mypy (e.g. `--cache-dir DIR`; by default `.mypy_cache/`
of the checkout, so a second run is fast). The exit code is mypy's.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAYOUT = (("evaldsl/stdlib/", "stdlib_rules/"), ("evaldsl/grammar/", "grammar/"),
          ("evaldsl/", "dsl/"))
"""Installed path prefix -> source path prefix; the longest prefixes first."""


def package_tree(root: Path) -> Path:
    """The installed layout (`evaldsl`, `evaldsl.stdlib`, `evaldsl.grammar`) as symlinks."""
    package = root / "evaldsl"
    package.mkdir()
    for entry in (REPO / "dsl").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    (package / "stdlib").symlink_to(REPO / "stdlib_rules")
    (package / "grammar").symlink_to(REPO / "grammar")
    return root


def source_paths(output: str) -> str:
    """mypy's messages with each installed path turned back into its source path."""
    lines = []
    for line in output.splitlines(keepends=True):
        for installed, source in LAYOUT:
            if line.startswith(installed):
                line = source + line[len(installed):]
                break
        lines.append(line)
    return "".join(lines)


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="evaldsl-mypy-") as tmp:
        tree = package_tree(Path(tmp))
        if not any(a == "--cache-dir" or a.startswith("--cache-dir=") for a in argv):
            argv = ["--cache-dir", str(REPO / ".mypy_cache"), *argv]
        result = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict",
             "--config-file", str(REPO / "pyproject.toml"), *argv, "-p", "evaldsl"],
            cwd=tree, capture_output=True, text=True)
    sys.stdout.write(source_paths(result.stdout))
    sys.stderr.write(result.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
