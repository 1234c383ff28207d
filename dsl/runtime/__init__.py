"""A checked spec, evaluated: the graph, compiled closures, the three-valued logic,
the interpreter, metrics.
"""
