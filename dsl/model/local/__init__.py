"""The shipped local models: an in-process embedder, and a local judge server that
evaldsl starts and stops.
"""
