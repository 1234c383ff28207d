"""The evaldsl standard library of primitives.

One module per family; importing a family registers its primitives with
`evaldsl.primitives.registry.primitive`. `FAMILIES` names each family's
primitives so that `default_registry` can list them all and import a family
only when a spec uses one of its primitives: a deterministic spec never
loads the model checks, the tool-call matchers or their dependencies. A test
holds `FAMILIES` to what the modules register.
"""

from __future__ import annotations

FAMILIES: dict[str, tuple[str, ...]] = {
    "evaldsl.stdlib.answered": ("answered",),
    "evaldsl.stdlib.answers": ("edit_distance", "exact", "f1"),
    "evaldsl.stdlib.classifying": ("classify",),
    "evaldsl.stdlib.contains_json": ("contains_json",),
    "evaldsl.stdlib.dialog_state": ("slots", "steps"),
    "evaldsl.stdlib.json_match": ("json_match",),
    "evaldsl.stdlib.judging": ("judge", "refusal"),
    "evaldsl.stdlib.moderation": ("moderation",),
    "evaldsl.stdlib.numeric": ("numeric",),
    "evaldsl.stdlib.safety": ("safety",),
    "evaldsl.stdlib.signals": ("signals",),
    "evaldsl.stdlib.similarity": ("similarity",),
    "evaldsl.stdlib.structure": ("json_schema",),
    "evaldsl.stdlib.text": ("keyword", "length", "regex"),
    "evaldsl.stdlib.timing": ("latency", "turns"),
    "evaldsl.stdlib.tools": ("args_match", "tool_called", "trajectory"),
}
"""Family module -> the primitives its import registers."""

__all__ = ["FAMILIES"]
