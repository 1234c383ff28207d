"""`evaldsl run` in a project whose evaldsl.toml points the judge elsewhere: the user's key
stays home unless the command line sends it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

KEY = "sk-user-home-key-0123456789"
SPEC = """\
spec "judged"
check polite = judge(criteria: "polite", scale: 10, min: 5)
"""


@pytest.fixture
def project(tmp_path: Path, kit: Any) -> Path:
    """A project folder with a spec and cases; its evaldsl.toml is written by each test."""
    (tmp_path / "judged.eval").write_text(SPEC, encoding="utf-8")
    kit.write_cases(tmp_path / "cases.jsonl", 3)
    return tmp_path


def run_in(folder: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """`evaldsl run judged.eval cases.jsonl ARGS` in `folder`, the user's key in the
    environment and no user-level config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "EVALDSL_"))}
    env.update(OPENAI_API_KEY=KEY, EVALDSL_NO_CACHE="1", EVALDSL_LANG="en",
               XDG_CONFIG_HOME=str(folder / "no-config"), **extra)
    return subprocess.run([sys.executable, "-m", "evaldsl", "run", "judged.eval",
                           "cases.jsonl", "-o", "report.json", *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=folder)


def point_at(folder: Path, server: Any, extra: str = "") -> None:
    (folder / "evaldsl.toml").write_text(
        f'[judge]\nbase_url = "{server.base_url}"\nmax_retries = 0\n{extra}', encoding="utf-8")


class TestProjectFile:
    def test_a_project_judge_elsewhere_never_sees_the_users_key(self, project: Path,
                                                                judge_server: Any) -> None:
        point_at(project, judge_server)
        done = run_in(project)
        assert done.returncode == 0, done.stderr
        assert judge_server.stats()["keys"] == ["not-needed"]

    def test_a_forbidden_variable_name_is_exit_2_naming_file_table_and_rule(
            self, project: Path, judge_server: Any) -> None:
        point_at(project, judge_server, 'api_key_env = "GITHUB_PAT"\n')
        done = run_in(project, GITHUB_PAT="ghp-secret-987")
        assert done.returncode == 2, done.stderr
        assert "evaldsl.toml [judge]: api_key_env `GITHUB_PAT` is refused" in done.stderr
        assert "must end in `_API_KEY` or `_TOKEN`" in done.stderr
        assert judge_server.stats()["chat"] == 0

    def test_naming_the_users_key_for_another_host_is_exit_2(self, project: Path,
                                                            judge_server: Any) -> None:
        point_at(project, judge_server, 'api_key_env = "OPENAI_API_KEY"\n')
        done = run_in(project)
        assert done.returncode == 2, done.stderr
        assert "`OPENAI_API_KEY` holds the key for api.openai.com" in done.stderr
        assert KEY not in done.stderr and judge_server.stats()["chat"] == 0

    def test_the_command_line_sends_the_key_when_asked(self, project: Path,
                                                      judge_server: Any) -> None:
        point_at(project, judge_server, 'api_key_env = "OPENAI_API_KEY"\n')
        done = run_in(project, "--judge-key-env", "OPENAI_API_KEY")
        assert done.returncode == 0, done.stderr
        assert judge_server.stats()["keys"] == [KEY]

    def test_a_url_on_the_command_line_gets_no_default_key(self, project: Path,
                                                          judge_server: Any) -> None:
        done = run_in(project, "--judge", judge_server.base_url)
        assert done.returncode == 0, done.stderr
        assert judge_server.stats()["keys"] == ["not-needed"]


class TestEnvironment:
    def test_a_keyless_judge_named_by_the_environment_is_used_as_with_judge_url(
            self, project: Path, judge_server: Any) -> None:
        """`EVALDSL_JUDGE_BASE_URL` with no key anywhere: the judge is asked, keyless, as
        `--judge URL` asks it."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "EVALDSL_"))}
        env.update(EVALDSL_JUDGE_BASE_URL=judge_server.base_url, EVALDSL_NO_CACHE="1",
                   EVALDSL_LANG="en", XDG_CONFIG_HOME=str(project / "no-config"))
        done = subprocess.run([sys.executable, "-m", "evaldsl", "run", "judged.eval",
                               "cases.jsonl", "-o", "report.json"],
                              capture_output=True, text=True, timeout=120, env=env, cwd=project)
        assert done.returncode == 0, done.stderr
        assert judge_server.stats()["keys"] == ["not-needed"]
        assert judge_server.stats()["chat"] == 3
