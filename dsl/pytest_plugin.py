"""pytest plugin: collects `.eval` examples as test items (filled in by the examples runner)."""
