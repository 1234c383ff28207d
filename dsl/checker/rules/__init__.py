"""The checker's rules, one function per rule, grouped by family.
"""
