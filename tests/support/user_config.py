"""evaldsl's user-level config (`$XDG_CONFIG_HOME/evaldsl/config.toml`) written for a test, so
the settings readers meet a user's file without the test touching the real home."""

from __future__ import annotations

from pathlib import Path


def user_config(tmp_path: Path, text: str) -> dict[str, str]:
    """An environment whose XDG_CONFIG_HOME holds `text` as evaldsl's user-level config."""
    folder = tmp_path / "xdg" / "evaldsl"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(text, encoding="utf-8")
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
