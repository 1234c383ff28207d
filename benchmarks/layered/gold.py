"""What the annotations of a dialog.v1 record say of the three layers.

L1, intent: SGD, the intents active after the first user turn; CrossWOZ and MultiWOZ,
the domains of the first user turn's acts other than `General` (CrossWOZ's English
domain names count too). A prediction is right when it is among them.

L2, completion: a request is a (domain, slot) of a user act `Request` (SGD `REQUEST`),
one per user turn; it is answered when a later system act of the dataset's answering
kinds has the same domain and slot. MultiWOZ's generic `Booking` domain stands for
hotel and restaurant. completion = answered / requested; None without requests.

L3, success: every request answered and, for MultiWOZ, every goal domain with a
`book` section among the bookings; for SGD, every transactional intent of the dialog
called with that method on a turn that also carries `NOTIFY_SUCCESS`.
"""

from __future__ import annotations

from typing import Any

ANSWERING = {
    "crosswoz": {"inform", "recommend"},
    "multiwoz21": {"inform", "recommend", "book", "offerbooked"},
    "sgd": {"inform", "offer"},
}
"""The system acts that answer a request, per dataset (lower case)."""

CROSSWOZ_DOMAINS = {"酒店": "hotel", "餐馆": "restaurant", "景点": "attraction",
                    "地铁": "metro", "出租": "taxi"}
"""CrossWOZ's domains and their English names, both of which count as the gold label."""


def intents(record: dict[str, Any]) -> list[str] | None:
    """The gold L1 labels of a dialog, None where the annotations give none."""
    turns = record.get("turns") or []
    first = next((t for t in turns if t.get("role") == "user"), None)
    if first is None:
        return None
    if record["source"] == "sgd":
        found = [v for v in (first.get("intents") or {}).values() if v and v != "NONE"]
    else:
        found = []
        for act in first.get("acts") or []:
            domain = str(act.get("domain") or "")
            if domain and domain.lower() != "general" and domain not in found:
                found.append(domain)
        if record["source"] == "crosswoz":
            found += [CROSSWOZ_DOMAINS[d] for d in found if d in CROSSWOZ_DOMAINS]
        found = [d.lower() for d in found]
    return found or None


def requests(record: dict[str, Any]) -> list[tuple[int, str, str]]:
    """Each (turn index, domain, slot) the user requested, once per turn."""
    out: list[tuple[int, str, str]] = []
    for i, turn in enumerate(record.get("turns") or []):
        if turn.get("role") != "user":
            continue
        for act in turn.get("acts") or []:
            if str(act.get("act")).lower() == "request" and act.get("slot"):
                key = (i, _domain(act), str(act["slot"]).lower())
                if key not in out:
                    out.append(key)
    return out


def answered(record: dict[str, Any], request: tuple[int, str, str]) -> bool:
    """Whether a system turn after the request informs its domain and slot."""
    at, domain, slot = request
    kinds = ANSWERING[record["source"]]
    for turn in (record.get("turns") or [])[at + 1:]:
        if turn.get("role") != "system":
            continue
        for act in turn.get("acts") or []:
            if str(act.get("act")).lower() not in kinds:
                continue
            if str(act.get("slot") or "").lower() != slot:
                continue
            if _domain(act) == domain or (_domain(act) == "booking"
                                          and domain in ("hotel", "restaurant")):
                return True
    return False


def completion(record: dict[str, Any]) -> float | None:
    """answered / requested, None for a dialog without requests."""
    asked = requests(record)
    if not asked:
        return None
    return sum(answered(record, r) for r in asked) / len(asked)


def success(record: dict[str, Any], schemas: dict[str, Any]) -> bool:
    """L3: every request answered, and the dataset's own task done (module docstring)."""
    done = completion(record)
    if done is not None and done < 1.0:
        return False
    if record["source"] == "multiwoz21":
        booked = {str(b.get("domain", "")).lower() for b in record.get("bookings") or []}
        wanted = {d.lower() for d, g in (record.get("goal") or {}).items()
                  if isinstance(g, dict) and g.get("book")}
        return wanted <= booked
    if record["source"] == "sgd":
        return all(_transaction_done(record, i["service"], i["intent"])
                   for i in record.get("intents") or []
                   if _transactional(schemas, i["service"], i["intent"]))
    return True


def _transaction_done(record: dict[str, Any], service: str, intent: str) -> bool:
    turns = record.get("turns") or []
    for call in record.get("service_calls") or []:
        if call.get("service") != service or call.get("method") != intent:
            continue
        at = call.get("turn_idx")
        if isinstance(at, int) and 0 <= at < len(turns):
            acts = turns[at].get("acts") or []
            if any(a.get("act") == "NOTIFY_SUCCESS" for a in acts):
                return True
    return False


def _transactional(schemas: dict[str, Any], service: str, intent: str) -> bool:
    for item in (schemas.get(service) or {}).get("intents", []):
        if item.get("name") == intent:
            return bool(item.get("is_transactional"))
    return False


def _domain(act: dict[str, Any]) -> str:
    return str(act.get("domain") or "").lower()
