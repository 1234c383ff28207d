"""The evaldsl standard library of primitives.

One module per family; importing this package registers every primitive with
`evaldsl.primitives.registry.primitive`.
"""

from evaldsl.stdlib import (
    classifying,
    dialog_state,
    judging,
    moderation,
    safety,
    signals,
    similarity,
    structure,
    text,
    timing,
    tools,
)

__all__ = ["classifying", "dialog_state", "judging", "moderation", "safety", "signals",
           "similarity", "structure", "text", "timing", "tools"]
