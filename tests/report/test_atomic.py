"""Files replaced whole: no planted link followed, no device replaced, the name in errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evaldsl.report.writers import write_atomic


def test_planted_link_at_the_old_temp_name_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me", encoding="utf-8")
    (tmp_path / ".report.json.tmp").symlink_to(victim)
    write_atomic(tmp_path / "report.json", "{}")
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert (tmp_path / "report.json").read_text(encoding="utf-8") == "{}"


def test_a_fifo_is_refused_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as caught:
        write_atomic(fifo, "{}")
    assert caught.value.filename == str(fifo)
    assert fifo.is_fifo()
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o640)
    write_atomic(target, "new")
    assert target.stat().st_mode & 0o777 == 0o640
    assert target.read_text(encoding="utf-8") == "new"


FULL = """
import resource, signal, sys
from pathlib import Path
from evaldsl.report.writers import write_atomic
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (10, 10))
try:
    write_atomic(Path(sys.argv[1]), "x" * 100000)
except OSError as exc:
    print(exc.filename)
"""


def test_a_failed_write_names_the_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-c", FULL, str(target)], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == str(target)
    assert list(tmp_path.iterdir()) == []
