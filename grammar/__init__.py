"""The `.eval` grammar file, shipped as package data."""
