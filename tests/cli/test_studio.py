"""`evaldsl studio` refuses what it must not do before it serves anything."""

from __future__ import annotations

import socket
from pathlib import Path

from tests.support.run_kit import evaldsl


class TestRefusals:
    def test_an_address_other_machines_reach_is_refused(self, tmp_path: Path) -> None:
        done = evaldsl("studio", tmp_path / "a.eval", "--host", "0.0.0.0", timeout=60)
        assert done.returncode == 2
        assert "the studio listens on this machine only, not on `0.0.0.0`" in done.stderr
        assert "--host 127.0.0.1" in done.stderr

    def test_a_port_in_use_is_said(self, tmp_path: Path) -> None:
        with socket.create_server(("127.0.0.1", 0)) as taken:
            port = taken.getsockname()[1]
            done = evaldsl("studio", tmp_path / "a.eval", "--port", str(port), timeout=60)
        assert done.returncode == 2
        assert f"cannot listen on 127.0.0.1:{port}" in done.stderr

    def test_a_folder_is_not_a_spec(self, tmp_path: Path) -> None:
        done = evaldsl("studio", tmp_path, timeout=60)
        assert done.returncode == 2 and f"`{tmp_path}` is not a file" in done.stderr
