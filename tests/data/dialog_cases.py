"""Task dialogs (CrossWOZ in Chinese, USS-rated SGD and MultiWOZ in English) as cases.

User turns become `user` messages and system turns `assistant` messages; the
cases carry no latency (the corpora have none). USS dialogs also carry the
mean human satisfaction rating (1-5) as the case field `satisfaction`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROLES = {"user": "user", "system": "assistant"}


def _rows(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            yield json.loads(line)


def transcript(turns: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"role": ROLES[t["role"]], "content": t["text"]} for t in turns
            if t.get("role") in ROLES]


def crosswoz_cases(data: Path) -> Iterator[dict[str, Any]]:
    for row in _rows(data / "crosswoz" / "dialogs.jsonl"):
        yield {"id": row["id"], "messages": transcript(row["turns"]),
               "dialog_type": row.get("dialog_type", "")}


def uss_cases(data: Path) -> Iterator[dict[str, Any]]:
    for name in ("uss_sgd.jsonl", "uss_mwoz.jsonl"):
        for row in _rows(data / "uss" / name):
            yield {"id": row["id"], "messages": transcript(row["turns"]),
                   "satisfaction": row["overall"]["mean"]}
