"""The evaldsl standard library of primitives."""

from evaldsl.stdlib import classifying, dialog_state, judging, similarity

__all__ = ["classifying", "dialog_state", "judging", "similarity"]
