"""Running specs over many cases: the streaming runner, concurrency, a spec's own
example tests, the pytest plugin.
"""
