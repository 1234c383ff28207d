"""Third-party primitives: the modules named by the `evaldsl.primitives` entry points.

`importlib.metadata.entry_points()` reads the metadata of every installed
distribution, and importing it pulls in `email` and `zipfile`: about 20 ms of
every `check` and `run`, while most installations have no plugin at all. So a
plain scan of the `entry_points.txt` files on `sys.path` comes first, and only
when one of them names the group (or a path entry or a finder is one the scan
cannot read) does `importlib.metadata` load the entry points, in its order.

pydantic asks the same question of its own group, `pydantic`, the first time it
builds a model (every params model is one), through `importlib.metadata` over every
distribution: 5-10 ms more. The same scan answers it: when no distribution declares
that group either, pydantic is told it has no plugins (what its own search would
find) before it searches.
"""

from __future__ import annotations

import os
import sys

ENTRY_POINT_GROUP = "evaldsl.primitives"
PYDANTIC_GROUP = "pydantic"
"""pydantic's plugins (`pydantic.plugin`)."""

_GROUPS = (ENTRY_POINT_GROUP, PYDANTIC_GROUP)
_METADATA = (".dist-info", ".egg-info")


def load_plugins() -> None:
    """Import the module of every installed `evaldsl.primitives` entry point."""
    groups = _declared_groups()
    if groups is not None and PYDANTIC_GROUP not in groups:
        _no_pydantic_plugins()
    if groups is not None and ENTRY_POINT_GROUP not in groups:
        return
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        ep.load()


def _may_have_plugins() -> bool:
    """False only when no distribution on `sys.path` declares the group."""
    groups = _declared_groups()
    return groups is None or ENTRY_POINT_GROUP in groups


def _no_pydantic_plugins() -> None:
    """pydantic's answer to its search for plugins, given before it searches: none.

    Only while it has not searched yet (its cache of plugins is still None); a pydantic
    that keeps that cache otherwise (or cannot be imported from this `sys.path`) is left to
    search as it does."""
    try:
        from pydantic.plugin import _loader
    except ImportError:
        return
    if getattr(_loader, "_plugins", False) is None and not _loader._loading_plugins:
        _loader._plugins = {}


def _declared_groups() -> frozenset[str] | None:
    """Which of the two groups some distribution on `sys.path` declares; None when the
    scan cannot tell (a finder or a path entry it cannot read)."""
    if any(_unusual_finder(finder) for finder in sys.meta_path):
        return None
    found: set[str] = set()
    for entry in sys.path:
        groups = _groups_in(entry or ".")
        if groups is None:
            return None
        found |= groups
    return frozenset(found)


def _unusual_finder(finder: object) -> bool:
    """A finder other than the path finder that can list distributions of its own."""
    return (hasattr(finder, "find_distributions")
            and getattr(finder, "__name__", "") != "PathFinder")


def _groups_in(entry: str) -> set[str] | None:
    if not os.path.isdir(entry):
        return None if os.path.exists(entry) else set()
    try:
        names = [n for n in os.listdir(entry) if n.lower().endswith(_METADATA)]
    except OSError:
        return None
    found: set[str] = set()
    for name in names:
        groups = _groups_named(os.path.join(entry, name, "entry_points.txt"))
        if groups is None:
            return None
        found |= groups
    return found


def _groups_named(path: str) -> set[str] | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            text = file.read()
    except (FileNotFoundError, NotADirectoryError):
        return set()
    except OSError:
        return None
    return {group for group in _GROUPS if f"[{group}]" in text}
