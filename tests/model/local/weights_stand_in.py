"""`ensure_weights` in a process of its own, over stand-in parts and their sha256.

`python weights_stand_in.py MODELS_DIR PART...` pins the concatenation of the PART files
as the weights (their size and sha256 in place of the real file's), offers each PART as an
installed slice package, and prints the bytes of the file `ensure_weights(MODELS_DIR)`
returns. The real slices are 491 MB; the code path that checks them is the same.
"""

from __future__ import annotations

import hashlib
import sys
import types
from pathlib import Path

from evaldsl.model.local import weights


def main(models: Path, parts: list[Path]) -> None:
    names = []
    for i, path in enumerate(parts, start=1):
        module = types.ModuleType(f"stand_in_weights_part{i}")
        module.get_part_path = lambda path=path: str(path)  # type: ignore[attr-defined]
        sys.modules[module.__name__] = module
        names.append(module.__name__)
    whole = b"".join(path.read_bytes() for path in parts)
    weights.PART_MODULES = tuple(names)
    weights.WEIGHTS_SIZE = len(whole)
    weights.WEIGHTS_SHA256 = hashlib.sha256(whole).hexdigest()
    sys.stdout.write(weights.ensure_weights(models).read_bytes().decode())


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(arg) for arg in sys.argv[2:]])
