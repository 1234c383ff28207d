"""Case files named by a URI: told apart from paths, fetched through pyarrow's filesystems."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaldsl.cases.remote import RemoteFile, case_input, fetched, is_uri


def test_a_uri_is_a_remote_file_and_anything_else_a_path() -> None:
    assert case_input("s3://bucket/day/cases.jsonl") == RemoteFile("s3://bucket/day/cases.jsonl")
    assert case_input("s3://bucket/day/cases.jsonl").suffix == ".jsonl"
    assert case_input("cases/s3:x.jsonl") == Path("cases/s3:x.jsonl")
    assert not is_uri("C:\\data\\cases.jsonl")


def test_a_file_uri_is_fetched_whole_and_the_copy_removed(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    source = tmp_path / "cases.jsonl"
    source.write_bytes(b'{"id": "a"}\n' * 100_000)
    with fetched(source.as_uri()) as local:
        assert local.read_bytes() == source.read_bytes() and local.name == "cases.jsonl"
    assert not local.exists()


def test_a_missing_file_is_an_os_error_with_the_filesystems_reason(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    with pytest.raises(OSError, match="No such file"), fetched((tmp_path / "no.jsonl").as_uri()):
        pass


def test_only_the_ray_engine_reads_a_uri(kit: object, spec_file: Path, tmp_path: Path) -> None:
    """A local run stops before any work, saying why and what to do."""
    uri = (tmp_path / "cases.jsonl").as_uri()
    done = kit.evaldsl("run", spec_file, uri)  # type: ignore[attr-defined]
    assert done.returncode == 2
    assert f"`{uri}` is a URI: only --engine ray reads" in done.stderr
    assert "Traceback" not in done.stderr
