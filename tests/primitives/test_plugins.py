"""The scan for `evaldsl.primitives` entry points before `importlib.metadata` is asked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from evaldsl.primitives import plugins


def _dist(root: Path, name: str, entry_points: str) -> None:
    info = root / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")


class TestMayHavePlugins:
    def test_a_distribution_declaring_the_group_is_found(self, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
        """A dist-info whose entry_points.txt names the group sends discovery on."""
        _dist(tmp_path, "plug", "[evaldsl.primitives]\nmine = plug.prims\n")
        monkeypatch.setattr(sys, "path", [str(tmp_path)])
        assert plugins._may_have_plugins()

    def test_other_groups_are_not_plugins(self, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
        """Console scripts and other groups do not count."""
        _dist(tmp_path, "tool", "[console_scripts]\ntool = tool:main\n")
        monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "missing")])
        assert not plugins._may_have_plugins()

    def test_a_zip_on_the_path_is_left_to_importlib_metadata(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """The scan reads folders only; any other existing path entry means ask."""
        archive = tmp_path / "bundle.zip"
        archive.write_bytes(b"PK")
        monkeypatch.setattr(sys, "path", [str(archive)])
        assert plugins._may_have_plugins()

    def test_a_declared_plugin_is_imported(self, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
        """load_plugins imports the module an entry point names."""
        _dist(tmp_path, "plug", "[evaldsl.primitives]\nmine = plug_prims_mod\n")
        (tmp_path / "plug_prims_mod.py").write_text("LOADED = True\n", encoding="utf-8")
        monkeypatch.setattr(sys, "path", [str(tmp_path)])
        monkeypatch.delitem(sys.modules, "plug_prims_mod", raising=False)
        plugins.load_plugins()
        assert sys.modules["plug_prims_mod"].LOADED


class TestPydanticPlugins:
    """pydantic's search for plugins of its own (`pydantic` entry points) is answered by
    the same scan when no distribution declares the group."""

    @pytest.fixture
    def unsearched(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from pydantic.plugin import _loader

        monkeypatch.setattr(_loader, "_plugins", None)

    def test_none_declared_tells_pydantic_it_has_none(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unsearched: None) -> None:
        from pydantic.plugin import _loader

        _dist(tmp_path, "tool", "[console_scripts]\ntool = tool:main\n")
        monkeypatch.setattr(sys, "path", [str(tmp_path)])
        plugins.load_plugins()
        assert _loader._plugins == {}

    def test_a_declared_pydantic_plugin_is_left_to_pydantic(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unsearched: None) -> None:
        from pydantic.plugin import _loader

        _dist(tmp_path, "observer", "[pydantic]\nobserver = observer_mod:plugin\n")
        monkeypatch.setattr(sys, "path", [str(tmp_path)])
        plugins.load_plugins()
        assert _loader._plugins is None

    def test_a_path_the_scan_cannot_read_is_left_to_pydantic(
            self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unsearched: None) -> None:
        from pydantic.plugin import _loader

        archive = tmp_path / "bundle.zip"
        archive.write_bytes(b"PK")
        monkeypatch.setattr(sys, "path", [str(archive)])
        plugins.load_plugins()
        assert _loader._plugins is None
