"""Tool-call primitives and the argument machinery they share.

Importing this package registers `tool_called`, `args_match` and `trajectory`.
"""

from evaldsl.stdlib.tools import primitives, trajectory

__all__ = ["primitives", "trajectory"]
