"""`evaldsl primitives`: the registry printed as a reference."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaldsl.cli.main import main
from evaldsl.primitives.registry import default_registry

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "primitives" / "reference.md"


class TestPrimitivesCommand:
    def test_lists_every_registered_primitive(self, capsys: pytest.CaptureFixture[str]) -> None:
        assert main(["primitives"]) == 0
        out = capsys.readouterr().out
        for name in default_registry().names():
            assert f"\n{name}  (" in f"\n{out}"

    def test_one_primitive_shows_parameters_scopes_and_fields(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        assert main(["primitives", "latency"]) == 0
        out = capsys.readouterr().out
        assert out.startswith("latency  (free; scopes: ")
        assert "max_ms (" in out
        assert ".passed (bool)" in out

    def test_default_scope_in_words(self, capsys: pytest.CaptureFixture[str]) -> None:
        """What `judge` sees when a check gives no scope is said, not only named."""
        assert main(["primitives", "judge"]) == 0
        assert "  with no scope: last_reply, the last assistant reply\n" in (
            capsys.readouterr().out)

    def test_default_scope_in_the_markdown_reference(
        self, capsys: pytest.CaptureFixture[str]
    ) -> None:
        assert main(["primitives", "judge", "--format", "markdown"]) == 0
        assert "With no scope it judges `last_reply`: the last assistant reply." in (
            capsys.readouterr().out)

    def test_unknown_name_is_a_usage_error(self, capsys: pytest.CaptureFixture[str]) -> None:
        assert main(["primitives", "keywords"]) == 2
        assert "unknown primitive: keywords" in capsys.readouterr().err

    def test_published_reference_is_current(self, capsys: pytest.CaptureFixture[str]) -> None:
        """docs/primitives/reference.md is this command's markdown output, regenerated."""
        assert main(["primitives", "--format", "markdown"]) == 0
        generated = capsys.readouterr().out
        assert generated.strip() in REFERENCE.read_text("utf-8")
