"""The extension point: the primitive registry, value types, normalization tables and the clock.
"""
