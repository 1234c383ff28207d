"""`evaldsl lsp` without the `lsp` extra: a usage error that says what to install."""

from __future__ import annotations

import subprocess
import sys

WITHOUT_PYGLS = """\
import sys
sys.modules["pygls"] = None  # as if the extra were not installed
from evaldsl.cli.main import main
sys.exit(main(["lsp"]))
"""


def test_without_pygls_the_verb_says_what_to_install() -> None:
    done = subprocess.run([sys.executable, "-c", WITHOUT_PYGLS], capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "the language server needs pygls" in done.stderr
    assert 'pip install "evaldsl[lsp]"' in done.stderr
