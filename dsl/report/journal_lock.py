"""One writer per journal: an exclusive lock taken before anything is written.

Two runs appending to one results.jsonl would each write at their own offset
over the other's lines (a run starting afresh truncates the file first, so
the other's next lines land after a hole of NUL bytes), and both would exit
0 with a journal that no longer reads. So a run opens its journal without
truncating it, takes an exclusive `flock` on it without waiting, and only
then looks at it, truncates it or appends. A second run is refused with
`JournalBusyError`, naming the holder's process id when the system says it
(Linux lists every lock in /proc/locks). The lock goes with the open file:
closing it, or the process ending in any way (`kill -9` included), frees it,
so a resumed run after a crash never finds a stale lock.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path
from typing import IO

from evaldsl.atomic import named
from evaldsl.errors import JournalBusyError
from evaldsl.i18n import _

LOCKS = Path("/proc/locks")


def lock(path: Path) -> IO[bytes]:
    """The journal open for reading and writing, untouched, with this process's lock on it.

    Raises `JournalBusyError` when another process holds the lock; the file is
    created empty when it does not exist.
    """
    file = open(_regular(path), "r+b")  # noqa: SIM115
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(os.fstat(file.fileno()))
        file.close()
        raise JournalBusyError(_busy(path, holder)) from None
    except BaseException:
        file.close()
        raise
    return file


def _regular(path: Path) -> int:
    """A descriptor of the journal, created when absent; a device, a FIFO or a directory
    at the path is refused by name (opened without blocking, so a FIFO cannot hang)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o666)
    except OSError as exc:
        raise named(exc, path) from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, _("not a regular file, so it is not a journal"), str(path))
    os.set_blocking(fd, True)
    return fd


def _busy(path: Path, holder: int | None) -> str:
    if holder is None:
        return _("another run is writing `{path}`").format(path=path)
    return _("another run is writing `{path}` (pid {pid})").format(path=path, pid=holder)


def _holder(stat: os.stat_result) -> int | None:
    """The process id holding a `flock` on the file, from /proc/locks; None if not listed.

    A line reads `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF`: the pid,
    then the device as hexadecimal major:minor and the inode.
    """
    device = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    try:
        text = LOCKS.read_text("ascii", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == device:
            pid = fields[4]
            return int(pid) if pid.isdigit() and pid != "0" else None
    return None
