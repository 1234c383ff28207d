"""evaldsl.cli."""
