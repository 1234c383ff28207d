"""Case files named by a URI (`s3://`, `gs://`, `hdfs://`, `file://`), read through
pyarrow's filesystems.

A Ray run's inputs may live where its cluster reads, not on the machine that starts
it. pyarrow comes with Ray (the `ray` extra), knows these filesystems and takes their
credentials from the environment as Ray Data does. The reading task copies the file
to a temporary one beside it, then reads it with the loader every run uses, so every
format, bad-row message and line number is the same as for a local file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

import msgspec

URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
CHUNK = 1 << 20


def is_uri(text: str) -> bool:
    """Whether `text` names a file by a URI rather than a local path.

    >>> is_uri("s3://bucket/cases.jsonl"), is_uri("cases.jsonl"), is_uri("C:/cases.jsonl")
    (True, False, False)
    """
    return URI.match(text) is not None


class RemoteFile(msgspec.Struct, frozen=True):
    """A case file given on the command line as a URI (only `--engine ray` reads one)."""

    uri: str

    def __str__(self) -> str:
        return self.uri

    @property
    def suffix(self) -> str:
        return PurePosixPath(self.uri.split("://", 1)[1]).suffix


def case_input(text: str) -> Path | RemoteFile:
    """A command line's case file: a local path, or a `RemoteFile` for a URI."""
    return RemoteFile(text) if is_uri(text) else Path(text)


@contextmanager
def fetched(uri: str) -> Iterator[Path]:
    """The file at `uri` as a local temporary copy, removed after; `OSError` (with the
    filesystem's reason) when it cannot be read."""
    import shutil
    import tempfile

    from pyarrow import fs

    filesystem, path = fs.FileSystem.from_uri(uri)
    folder = Path(tempfile.mkdtemp(prefix="evaldsl-input-"))
    try:
        local = folder / (PurePosixPath(path).name or "cases")
        with filesystem.open_input_stream(path) as source, local.open("wb") as target:
            shutil.copyfileobj(source, target, CHUNK)
        yield local
    finally:
        shutil.rmtree(folder, ignore_errors=True)
