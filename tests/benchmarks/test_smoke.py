"""Every script in benchmarks/ still runs: each at its `--smoke` size, as a real process.

A new script is picked up by the glob; one without `--smoke` fails here. Smoke mode is a
tiny size, a few seconds, no network but 127.0.0.1, and no local-judge model unless it is
installed (the script then says why it skipped and exits 0). Scripts that start Ray run
in their own slow test.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((REPO / "benchmarks").glob("*.py"))
RAY = {"ray_judged.py", "scale_out.py"}
"""Scripts that start a local Ray cluster: smoke-run apart, as Ray tests are."""
TIMEOUT_S = 300


def _smoke(script: Path) -> None:
    text = script.read_text("utf-8")
    assert '"--smoke"' in text, f"{script.name} has no --smoke flag"
    done = subprocess.run([sys.executable, str(script), "--smoke"], capture_output=True,
                          text=True, timeout=TIMEOUT_S, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, (f"{script.name} --smoke exited {done.returncode}:\n"
                                  f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    assert done.stdout.strip(), f"{script.name} --smoke printed no figure"


def test_the_scripts_are_found() -> None:
    assert len(SCRIPTS) >= 20 and RAY <= {s.name for s in SCRIPTS}


@pytest.mark.slow
@pytest.mark.parametrize("script", [s for s in SCRIPTS if s.name not in RAY],
                         ids=lambda s: s.name)
def test_a_script_runs_at_its_smoke_size(script: Path) -> None:
    _smoke(script)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                    reason="Ray is not installed (the `ray` extra)")
@pytest.mark.parametrize("script", [s for s in SCRIPTS if s.name in RAY],
                         ids=lambda s: s.name)
def test_a_ray_script_runs_at_its_smoke_size(script: Path) -> None:
    _smoke(script)
