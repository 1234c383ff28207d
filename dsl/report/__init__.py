"""evaldsl.report."""
