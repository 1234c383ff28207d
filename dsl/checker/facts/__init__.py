"""What the checker knows about a spec: symbols, folded constants, types, ranges.

Rules read these facts; the runtime consumes the same facts instead of recomputing them.
"""
