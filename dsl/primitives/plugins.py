"""Third-party primitives: the modules named by the `evaldsl.primitives` entry points.

`importlib.metadata.entry_points()` reads the metadata of every installed
distribution, and importing it pulls in `email` and `zipfile`: about 20 ms of
every `check` and `run`, while most installations have no plugin at all. So a
plain scan of the `entry_points.txt` files on `sys.path` comes first, and only
when one of them names the group (or a path entry or a finder is one the scan
cannot read) does `importlib.metadata` load the entry points, in its order.
"""

from __future__ import annotations

import os
import sys

ENTRY_POINT_GROUP = "evaldsl.primitives"

_METADATA = (".dist-info", ".egg-info")


def load_plugins() -> None:
    """Import the module of every installed `evaldsl.primitives` entry point."""
    if not _may_have_plugins():
        return
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        ep.load()


def _may_have_plugins() -> bool:
    """False only when no distribution on `sys.path` declares the group."""
    if any(_unusual_finder(finder) for finder in sys.meta_path):
        return True
    return any(_declares_group(entry or ".") for entry in sys.path)


def _unusual_finder(finder: object) -> bool:
    """A finder other than the path finder that can list distributions of its own."""
    return (hasattr(finder, "find_distributions")
            and getattr(finder, "__name__", "") != "PathFinder")


def _declares_group(entry: str) -> bool:
    if not os.path.isdir(entry):
        return os.path.exists(entry)
    try:
        names = [n for n in os.listdir(entry) if n.lower().endswith(_METADATA)]
    except OSError:
        return True
    return any(_names_group(os.path.join(entry, name, "entry_points.txt")) for name in names)


def _names_group(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return f"[{ENTRY_POINT_GROUP}]" in file.read()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
