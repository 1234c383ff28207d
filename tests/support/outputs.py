"""What every verb prints and writes for the shipped specs and 300 generated ones, as digests.

A refactoring of the run loop, the results line or the report must leave every output byte
for byte as it was; `tests/project/test_outputs_unchanged.py` recomputes these digests and
compares them with `tests/corpus/outputs/digests.json`. Where a change of output is meant,
rewrite the file and let the diff show which specs and verbs moved:

    python -m tests.support.outputs --write

The generated specs are stored as text (`generated_specs.jsonl`, drawn once from
`tests.strategies.specs`), so a new hypothesis version does not change them. Each verb is
called in this process through `evaldsl.cli.main.main`; model checks ask the project's
OpenAI-compatible test server, whose answers are a hash of the question and the dialog.
What varies between two identical runs (elapsed seconds, the temporary folder, the
server's port) is blanked before hashing, and runs take one case at a time, since the journal
and JUnit list cases as they finish.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus" / "outputs"
DIGESTS = CORPUS / "digests.json"
SHIPPED_SPECS = sorted((REPO / "specs").rglob("*.eval"))
SHIPPED_VERBS = ("check", "check-zh", "fmt", "explain", "test")
GENERATED_VERBS = SHIPPED_VERBS + ("run", "merge", "compare")

_ELAPSED = re.compile(rb'"elapsed_seconds": [0-9.e+-]+')
_SUITE_TIME = re.compile(rb'(<testsuite [^>]*) time="[0-9.]+"')
_DURATION = re.compile("(in|耗时) [0-9.]+ ?(s|ms|秒)".encode())


def generated_specs() -> list[str]:
    """The 300 stored generated specs."""
    with open(CORPUS / "generated_specs.jsonl", encoding="utf-8") as rows:
        return [json.loads(row)["spec"] for row in rows]


@contextlib.contextmanager
def _captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


def cli(*args: str | Path) -> bytes:
    """One verb's exit code, stdout and stderr, as bytes."""
    from evaldsl.cli.main import main

    with _captured() as (out, err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 2
    return f"exit {code}\n{out.getvalue()}\n--\n{err.getvalue()}".encode()


class Outputs:
    """The digests of one spec's outputs, verb by verb, in a scratch folder."""

    def __init__(self, folder: Path, judge_url: str, keep: Path | None = None) -> None:
        self.folder = folder
        self.judge_url = judge_url
        self.keep = keep
        """Where each output is also written whole (`NAME.VERB`), to diff a moved one."""

    def _blank(self, data: bytes) -> bytes:
        data = data.replace(str(self.folder).encode(), b"<dir>")
        data = data.replace(self.judge_url.encode(), b"<judge>")
        data = _ELAPSED.sub(b'"elapsed_seconds": 0', data)
        data = _SUITE_TIME.sub(b'\\1 time="0"', data)
        return _DURATION.sub(b"\\1 <t>", data)

    def _files(self, *names: str) -> bytes:
        parts = [name.encode() + b"\n" + (self.folder / name).read_bytes()
                 for name in names if (self.folder / name).exists()]
        return b"\n==\n".join(parts)

    def digest(self, text: str, verbs: tuple[str, ...], name: str = "spec") -> dict[str, str]:
        for entry in self.folder.iterdir():
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        spec = self.folder / "spec.eval"
        spec.write_text(text, encoding="utf-8")
        for cases in ("cases_b.jsonl", "cases_a1.jsonl", "cases_a2.jsonl"):
            shutil.copy(CORPUS / cases, self.folder / cases)
        return {verb: self._hashed(name, verb, getattr(self, "_" + verb.replace("-", "_"))(spec))
                for verb in verbs}

    def _hashed(self, name: str, verb: str, data: bytes) -> str:
        data = self._blank(data)
        if self.keep is not None:
            (self.keep / f"{name.replace('/', '_')}.{verb}").write_bytes(data)
        return hashlib.sha256(data).hexdigest()[:16]

    def _check(self, spec: Path) -> bytes:
        return cli("check", spec, "--lang", "en")

    def _check_zh(self, spec: Path) -> bytes:
        return cli("check", spec, "--lang", "zh")

    def _fmt(self, spec: Path) -> bytes:
        copy = self.folder / "formatted.eval"
        shutil.copy(spec, copy)
        return cli("fmt", copy, "--lang", "en") + self._files("formatted.eval")

    def _explain(self, spec: Path) -> bytes:
        return cli("explain", spec, "--lang", "en")

    def _test(self, spec: Path) -> bytes:
        return cli("test", spec, "--lang", "en")

    def _judged(self, spec: Path, cases: str, tag: str, *more: str) -> bytes:
        return cli("run", spec, self.folder / cases, "--judge", self.judge_url, "--no-cache",
                   "--concurrency", "1", "--lang", "en", "-o", self.folder / f"{tag}.json",
                   "--md", self.folder / f"{tag}.md", "--junit", self.folder / f"{tag}.xml",
                   "--results", self.folder / f"{tag}.jsonl", *more)

    def _run(self, spec: Path) -> bytes:
        """Three runs: the two halves of cases_a in English (merge and compare read their
        journals) and cases_b, which changes some replies and adds a case, in Chinese."""
        out = b""
        for cases, tag, lang in (("cases_a1.jsonl", "a1", "en"), ("cases_a2.jsonl", "a2", "en"),
                                 ("cases_b.jsonl", "b", "zh")):
            out += self._judged(spec, cases, tag, "--lang", lang) + self._files(
                f"{tag}.json", f"{tag}.md", f"{tag}.xml", f"{tag}.jsonl")
        return out

    def _journals(self, spec: Path) -> None:
        if not (self.folder / "b.jsonl").exists():
            self._run(spec)

    def _merge(self, spec: Path) -> bytes:
        self._journals(spec)
        printed = cli("merge", spec, self.folder / "a1.jsonl", self.folder / "a2.jsonl",
                      "--lang", "en", "-o", self.folder / "merged.json",
                      "--md", self.folder / "merged.md")
        return printed + self._files("merged.json", "merged.md")

    def _compare(self, spec: Path) -> bytes:
        self._journals(spec)
        printed = cli("compare", spec, self.folder / "a1.jsonl", self.folder / "b.jsonl",
                      "--lang", "en", "-o", self.folder / "compared.json",
                      "--md", self.folder / "compared.md", "--seed", "7",
                      "--resamples", "200")
        return printed + self._files("compared.json", "compared.md")


def chunk_digests(folder: Path, judge_url: str, chunk: int = 0, chunks: int = 1,
                  keep: Path | None = None) -> dict[str, dict[str, str]]:
    """The digests of every `chunks`-th stored spec from `chunk` on: shipped specs by path,
    generated ones by index (outputs kept whole in `keep`, if given)."""
    outputs = Outputs(folder, judge_url, keep)
    found: dict[str, dict[str, str]] = {}
    cwd = os.getcwd()
    os.chdir(REPO)  # shipped specs read their tables and example files beside them
    try:
        for path in SHIPPED_SPECS[chunk::chunks]:
            text = path.read_text(encoding="utf-8")
            name = str(path.relative_to(REPO))
            found[name] = _shipped(outputs, name, path, text)
        for index, text in list(enumerate(generated_specs()))[chunk::chunks]:
            name = f"generated/{index:03d}"
            found[name] = outputs.digest(text, GENERATED_VERBS, name)
    finally:
        os.chdir(cwd)
    return found


def _shipped(outputs: Outputs, name: str, path: Path, text: str) -> dict[str, str]:
    """A shipped spec checked, formatted, explained and tested where it lives (its tables
    and example files are read beside it), named by its path in the repository, as the
    verbs print it, so the digests do not depend on where the repository is checked out."""
    path = Path(name)
    return {
        "text": hashlib.sha256(text.encode()).hexdigest()[:16],  # a spec edited moves this too
        "check": outputs._hashed(name, "check", cli("check", path, "--lang", "en")),
        "check-zh": outputs._hashed(name, "check-zh", cli("check", path, "--lang", "zh")),
        "fmt": outputs.digest(text, ("fmt",), name)["fmt"],
        "explain": outputs._hashed(name, "explain", cli("explain", path, "--lang", "en")),
        "test": outputs._hashed(name, "test", cli("test", path, "--lang", "en")),
    }


def differences(expected: dict[str, dict[str, str]], found: dict[str, dict[str, str]]
                ) -> list[str]:
    """`spec: verb` for every output that moved, appeared or went."""
    moved = []
    for name in sorted(expected.keys() | found.keys()):
        before, after = expected.get(name, {}), found.get(name, {})
        moved += [f"{name}: {verb}" for verb in sorted(before.keys() | after.keys())
                  if before.get(verb) != after.get(verb)]
    return moved


def parallel_digests(folder: Path, judge_url: str, processes: int = 2
                     ) -> dict[str, dict[str, str]]:
    """`chunk_digests` of everything, in `processes` Python processes at once (the suite
    runs in one process, so a second core would otherwise idle while this test runs)."""
    running = []
    for chunk in range(processes):
        scratch = folder / f"chunk{chunk}"
        scratch.mkdir()
        command = [sys.executable, "-m", "tests.support.outputs", "--judge", judge_url,
                   "--chunk", str(chunk), "--chunks", str(processes), "--folder", str(scratch)]
        running.append(subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE))
    found: dict[str, dict[str, str]] = {}
    for process in running:
        out, err = process.communicate(timeout=900)
        if process.returncode != 0:
            raise RuntimeError(f"tests.support.outputs failed: {err.decode(errors='replace')}")
        found.update(json.loads(out))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="rewrite tests/corpus/outputs/digests.json")
    parser.add_argument("--write", action="store_true", help="rewrite the stored digests")
    parser.add_argument("--keep", type=Path, help="also write each output whole in this folder")
    parser.add_argument("--judge", help="a running test server's URL (default: start one)")
    parser.add_argument("--chunk", type=int, default=0, help="every --chunks-th spec from this")
    parser.add_argument("--chunks", type=int, default=1)
    parser.add_argument("--folder", type=Path, help="the scratch folder (default: a new one)")
    args = parser.parse_args(argv)
    if args.judge and args.folder:
        found = chunk_digests(args.folder, args.judge, args.chunk, args.chunks, args.keep)
    else:
        found = _digests_with_a_server(args.keep)
    text = json.dumps(found, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.write:
        DIGESTS.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _digests_with_a_server(keep: Path | None) -> dict[str, dict[str, str]]:
    import tempfile

    from tests.support import openai_server

    server = openai_server.start()
    try:
        with tempfile.TemporaryDirectory() as scratch:
            if keep is not None:
                return chunk_digests(Path(scratch), server.base_url, keep=keep)
            return parallel_digests(Path(scratch), server.base_url)
    finally:
        server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
