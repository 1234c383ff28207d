"""The evaldsl standard library of primitives."""
