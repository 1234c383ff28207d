"""What is judged: `Case` and its messages, case rows, file loading, scopes.
"""
