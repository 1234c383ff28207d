"""Source text to a typed AST: spans, the parser, worded syntax errors, the formatter.

The only package that imports lark; no lark `Tree` or `Token` leaves it.
"""
