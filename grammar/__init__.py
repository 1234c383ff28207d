"""The `.eval` grammar file, shipped as package data: the single source of the syntax."""

from __future__ import annotations

import hashlib
from importlib import resources


def text() -> str:
    """The grammar, grammar/evaldsl.lark."""
    return resources.files(__name__).joinpath("evaldsl.lark").read_text("utf-8")


def sha256() -> str:
    """The grammar's digest: what the generated parser tables record they were made from."""
    return hashlib.sha256(text().encode("utf-8")).hexdigest()
