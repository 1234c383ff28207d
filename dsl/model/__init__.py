"""evaldsl.model."""
