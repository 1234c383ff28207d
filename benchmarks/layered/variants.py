"""Broken variants of real dialogs, with their annotations changed to match.

In the recorded CrossWOZ and SGD dialogs the agent nearly always answers, so a
benchmark of them alone cannot tell a check that finds unanswered requests from one
that always says "answered". Two kinds of break, each chosen by a hash of the id so
every run builds the same ones:

- *answer dropped*: a system turn that answers a request is replaced by a filler that
  answers nothing (a courtesy or "let me check" line of another dialog of the same
  dataset and language), its acts replaced by the filler's, and the bookings and
  service calls made on it taken away;
- *cut short*: the dialog ends right after a user turn that requests something.

The gold of a variant is computed from its changed acts by `gold`, as for any dialog.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

from layered import gold

SILENT_ACTS = {"reqmore", "req_more", "welcome", "bye", "goodbye", "greet", "thank"}
"""Acts that inform nothing: a filler turn carries only these."""


def fraction(key: str) -> float:
    """A number in [0, 1) from a text, the same on every machine and run."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:12], 16) / 16**12


def fillers(records: list[dict[str, Any]]) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(record id, text, acts) of every system turn that informs nothing."""
    out = []
    for record in records:
        for turn in record.get("turns") or []:
            acts = turn.get("acts") or []
            if turn.get("role") == "system" and acts and all(
                    str(a.get("act")).lower() in SILENT_ACTS for a in acts):
                out.append((record["id"], turn["text"], acts))
    return out


def dropped(record: dict[str, Any], pool: list[tuple[str, str, list[dict[str, Any]]]],
            ) -> dict[str, Any] | None:
    """The record with one answering system turn replaced by a filler; None if it has none."""
    answering = sorted({_first_answer(record, r) for r in gold.requests(record)} - {None})
    others = [f for f in pool if f[0] != record["id"]]
    if not answering or not others:
        return None
    at = answering[int(fraction(record["id"] + "#turn") * len(answering))]
    _, text, acts = others[int(fraction(record["id"] + "#filler") * len(others))]
    out = copy.deepcopy(record)
    out["id"] = record["id"] + "#dropped"
    turn = out["turns"][at]
    for key in ("db_query", "selected", "booked", "service_calls"):
        turn.pop(key, None)
    turn["text"], turn["acts"] = text, copy.deepcopy(acts)
    _drop_events(out, lambda i: i == at)
    return out


def cut(record: dict[str, Any]) -> dict[str, Any] | None:
    """The record ending right after a user turn that requests something; None if none."""
    turns = sorted({at for at, _d, _s in gold.requests(record)})
    if not turns:
        return None
    at = turns[int(fraction(record["id"] + "#cut") * len(turns))]
    out = copy.deepcopy(record)
    out["id"] = record["id"] + "#cut"
    out["turns"] = out["turns"][:at + 1]
    _drop_events(out, lambda i: i > at)
    return out


def broken(record: dict[str, Any], pool: list[tuple[str, str, list[dict[str, Any]]]],
           ) -> dict[str, Any] | None:
    """One broken variant of the record: dropped or cut, as its hash says, else the other."""
    if fraction(record["id"] + "#kind") < 0.5:
        return dropped(record, pool) or cut(record)
    return cut(record) or dropped(record, pool)


def _first_answer(record: dict[str, Any], request: tuple[int, str, str]) -> int | None:
    at = request[0]
    for i in range(at + 1, len(record["turns"])):
        single = dict(record, turns=record["turns"][:i + 1])
        if gold.answered(single, request):
            return i
    return None


def _drop_events(record: dict[str, Any], gone: Any) -> None:
    for key in ("bookings", "service_calls"):
        if key in record:
            record[key] = [e for e in record[key] if not gone(e.get("turn_idx"))]
