"""The static checker."""
