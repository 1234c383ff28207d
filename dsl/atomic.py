"""Replace a file whole: a fresh temp file beside it, fsync, then rename.

The temp name comes from `tempfile.mkstemp` (created exclusively, never
followed through a planted link); only a regular file (or nothing) is
replaced, so `-o /dev/full` or a FIFO is refused rather than swapped for a
file; and every OSError carries the target's name, so a message says which
file could not be written.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from evaldsl.i18n import _


def replace_file(path: Path, text: str | Iterable[str]) -> None:
    """Write `text`, or its pieces in order, to `path` atomically, keeping an existing
    file's mode."""
    mode = _target_mode(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise named(exc, path) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            if isinstance(text, str):
                handle.write(text)
            else:
                handle.writelines(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise named(exc, path) from exc
        raise


def _target_mode(path: Path) -> int:
    """The mode the new file gets: the old file's, or what `open` would give."""
    try:
        info = path.stat()
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
    except OSError as exc:
        raise named(exc, path) from exc
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, _("not a regular file, so it is not replaced"), str(path))
    return info.st_mode & 0o777


def named(exc: OSError, path: Path) -> OSError:
    """`exc` with the target's name: an error on a temp file or a handle names none."""
    if exc.filename == str(path):
        return exc
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))
