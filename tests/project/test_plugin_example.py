"""The plugin of docs/writing_a_primitive.md, found through its entry point and run.

An install of examples/plugin_example/ leaves its package and a dist-info
with the `entry_points.txt` its pyproject declares; the test lays out
exactly that on a fresh `sys.path` (building a wheel would need the network
or the `wheel` package) and runs the commands the guide shows, each in a new
process so that discovery happens as for a user.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "plugin_example"
GUIDE = ROOT / "docs" / "writing_a_primitive.md"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding what installing the plugin leaves behind."""
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text("utf-8"))["project"]
    root = tmp_path_factory.mktemp("site")
    info = root / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n", "utf-8")
    points = project["entry-points"]["evaldsl.primitives"]
    (info / "entry_points.txt").write_text(
        "[evaldsl.primitives]\n" + "".join(f"{k} = {v}\n" for k, v in points.items()), "utf-8")
    (root / "evaldsl_questions").symlink_to(PLUGIN / "src" / "evaldsl_questions")
    return root


def _evaldsl(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "evaldsl", *args], cwd=PLUGIN, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


class TestPluginExample:
    def test_declares_the_group_the_registry_reads(self) -> None:
        from evaldsl.primitives.plugins import ENTRY_POINT_GROUP

        project = tomllib.loads((PLUGIN / "pyproject.toml").read_text("utf-8"))["project"]
        assert ENTRY_POINT_GROUP in project["entry-points"]

    def test_is_listed_by_primitives(self, site: Path) -> None:
        done = _evaldsl(site, "primitives", "questions")
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("questions  (free; scopes: ")

    def test_its_spec_checks_and_its_examples_pass(self, site: Path) -> None:
        assert _evaldsl(site, "check", "--strict", "questions.eval").returncode == 0
        done = _evaldsl(site, "test", "questions.eval")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "PASS  one question at a time" in done.stdout

    def test_runs_on_its_cases_as_the_guide_prints(self, site: Path) -> None:
        done = _evaldsl(site, "run", "questions.eval", "questions.jsonl")
        assert done.returncode == 0, done.stderr
        printed = re.search(r"```text\n(the agent asks.*?)```", GUIDE.read_text("utf-8"), re.S)
        assert printed is not None and done.stdout == printed.group(1)

    def test_without_the_plugin_the_primitive_is_unknown(self, tmp_path: Path) -> None:
        """The entry point, not the example's folder, is what makes `questions` known."""
        done = _evaldsl(tmp_path, "check", "questions.eval")
        assert done.returncode == 2 and "unknown primitive `questions`" in done.stdout


class TestGuide:
    def test_shows_the_plugin_as_it_is(self) -> None:
        """The guide's code blocks are the example's files, so copying them works."""
        guide = GUIDE.read_text("utf-8")
        for path in ("pyproject.toml", "src/evaldsl_questions/__init__.py", "questions.eval"):
            assert (PLUGIN / path).read_text("utf-8") in guide, path
