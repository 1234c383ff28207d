"""The public API is a handful of names, and changing it is a deliberate act.

`evaldsl.__all__` is the whole contract for engines; everything else lives in
submodules. A new export must be added here on purpose, in sorted order.
"""

from __future__ import annotations

import evaldsl

PUBLIC = [
    "Case", "CaseResult", "CheckResult", "Cost", "Diagnostic", "Embedder", "ErrorValue",
    "EvaldslError",
    "Judge", "Registry", "Report", "Scope", "Spec", "SpecError", "Unit", "evaluate_over", "load",
    "loads", "primitive", "set_language",
]


class TestPublicNames:
    def test_all_is_sorted(self) -> None:
        """Sorted, so a diff of the list shows an addition where it belongs."""
        assert evaldsl.__all__ == sorted(evaldsl.__all__)

    def test_all_is_exactly_the_public_api(self) -> None:
        """The package exports a small, deliberate set of names."""
        assert evaldsl.__all__ == PUBLIC

    def test_every_exported_name_exists(self) -> None:
        """`from evaldsl import *` cannot fail on a stale entry."""
        assert all(hasattr(evaldsl, name) for name in evaldsl.__all__)
