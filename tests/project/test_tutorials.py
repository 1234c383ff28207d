"""The tutorials, replayed: each step's command is run and prints what the page shows.

The driver follows the pages' instructions literally, in both languages, on
the blocks in the order they appear: block 1 is the cases file, block 2
starts the first spec, the table block replaces the check it redefines, the
outcome, metric and example blocks are appended, and "drop the table" drops
it. Sections 6 and 8 run the shipped quality-monitoring spec, the review
sample filled in with the rows the page shows. Everything runs offline (no
step needs a judge). A printed line `...` stands for any lines.
"""

from __future__ import annotations

import csv
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)
LANGUAGES = ("en", "zh")


class Block(NamedTuple):
    tag: str
    text: str


class Page:
    """One tutorial's blocks and the names of its files."""

    def __init__(self, language: str) -> None:
        text = (ROOT / "docs" / f"tutorial.{language}.md").read_text("utf-8")
        self.blocks = [Block(m.group(1).strip(), m.group(2)) for m in FENCE.finditer(text)]

    def command(self, index: int) -> list[str]:
        block = self.blocks[index]
        assert block.tag == "sh", block
        return shlex.split(block.text.replace("\\\n", " "))

    def printed(self, index: int) -> str:
        block = self.blocks[index]
        assert block.tag == "text", block
        return block.text


def _evaldsl(cwd: Path, words: list[str]) -> subprocess.CompletedProcess[str]:
    assert words[0] == "evaldsl", words
    env = {**os.environ, "NO_COLOR": "1", "EVALDSL_CACHE_DIR": str(cwd / ".cache")}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "evaldsl", *words[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def _same(printed: str, shown: str) -> bool:
    """`shown` equals `printed`, a `...` line of the page standing for any lines."""
    pattern = "\n".join(r"(?:.*\n)*?.*" if line.strip() == "..." else re.escape(line)
                        for line in printed.rstrip("\n").split("\n"))
    return re.fullmatch(pattern, shown.rstrip("\n")) is not None


def _first_spec(page: Page) -> str:
    """The first spec after sections 2-5: checks, the table, outcome, metrics, examples."""
    spec = page.blocks[2].text
    table = page.blocks[5].text
    redefined = re.search(r"^check (\S+) =.*$", table, re.M)
    assert redefined is not None
    line = re.compile(rf"^check {re.escape(redefined.group(1))} =.*\n", re.M)
    spec = line.sub(lambda _: "", spec)
    head, checks = spec.split("\n\n", 1)
    spec = f"{head}\n\n{table}{checks}"
    return "\n".join([spec, page.blocks[6].text, page.blocks[7].text, page.blocks[10].text])


@pytest.fixture(params=LANGUAGES)
def page(request: pytest.FixtureRequest) -> Page:
    return Page(request.param)


@pytest.fixture
def first(page: Page, tmp_path: Path) -> tuple[Page, Path]:
    """The working folder of sections 1-5: the cases file and the finished first spec."""
    run = page.command(8)
    (tmp_path / run[3]).write_text(page.blocks[1].text, "utf-8")
    (tmp_path / run[2]).write_text(_first_spec(page), "utf-8")
    return page, tmp_path


class TestFirstSpec:
    def test_the_first_checks_are_a_clean_spec(self, page: Page, tmp_path: Path) -> None:
        words = page.command(3)
        (tmp_path / words[2]).write_text(page.blocks[2].text, "utf-8")
        done = _evaldsl(tmp_path, words)
        assert done.returncode == 0, done.stdout

    def test_a_misspelt_name_is_explained_as_printed(self, first: tuple[Page, Path]) -> None:
        """The typo file is the first spec with the name misspelt in the first outcome branch."""
        page, folder = first
        shown = page.printed(4)
        typo, wrong = shown.split(":", 1)[0], re.search(r"unknown name `(.+?)`", shown)
        hint = re.search(r"similar name exists: `(.+?)`", shown)
        assert wrong is not None and hint is not None
        spec = (folder / page.command(8)[2]).read_text("utf-8")
        branch = re.search(r"^  \S+ if .*$", spec, re.M)
        assert branch is not None
        fixed = branch.group(0).replace(hint.group(1), wrong.group(1), 1)
        (folder / typo).write_text(spec.replace(branch.group(0), fixed, 1), "utf-8")
        done = _evaldsl(folder, ["evaldsl", "check", typo])
        assert done.returncode == 2
        assert done.stdout.startswith(shown), done.stdout

    def test_run_prints_the_report(self, first: tuple[Page, Path]) -> None:
        page, folder = first
        done = _evaldsl(folder, page.command(8))
        assert done.returncode == 0, done.stderr
        assert _same(page.printed(9), done.stdout), done.stdout

    def test_the_examples_pass(self, first: tuple[Page, Path]) -> None:
        page, folder = first
        done = _evaldsl(folder, page.command(11))
        assert done.returncode == 0, done.stdout
        assert _same(page.printed(12), done.stdout), done.stdout

    def test_without_the_table_an_example_fails_as_printed(
        self, first: tuple[Page, Path]
    ) -> None:
        page, folder = first
        path = folder / page.command(11)[2]
        path.write_text(re.sub(r", table: \S+\)", ")", path.read_text("utf-8")), "utf-8")
        done = _evaldsl(folder, page.command(11))
        assert done.returncode == 1
        assert page.printed(13).rstrip("\n") in done.stdout, done.stdout


class TestShippedSpec:
    def test_run_with_every_output(self, page: Page, tmp_path: Path) -> None:
        done = _evaldsl(ROOT, _into(page.command(15), tmp_path))
        assert done.returncode == 0, done.stderr
        assert _same(page.printed(16), done.stdout), done.stdout
        assert {p.name for p in tmp_path.iterdir()} >= {
            "report.json", "report.html", "summary.md", "junit.xml", "results.jsonl"}

    def test_review_then_calibrate(self, page: Page, tmp_path: Path) -> None:
        """The sample is drawn as shown, filled in as the page says, and compared."""
        assert _evaldsl(ROOT, _into(page.command(15), tmp_path)).returncode == 0
        review = _evaldsl(ROOT, _into(page.command(20), tmp_path))
        assert review.returncode == 0, review.stderr
        _fill(tmp_path / "sample.csv", _human_labels(page))
        done = _evaldsl(ROOT, _into(page.command(22), tmp_path))
        assert done.returncode == 0, done.stderr
        assert _same(page.printed(23), done.stdout), done.stdout


def _into(words: list[str], folder: Path) -> list[str]:
    """The command with the files it writes or reads from earlier steps kept in `folder`."""
    made = ("report.json", "report.html", "summary.md", "junit.xml", "results.jsonl",
            "sample.csv")
    return [str(folder / w) if w in made else w for w in words]


def _human_labels(page: Page) -> dict[str, tuple[str, str]]:
    """The page's ```csv block: the rows the reviewers filled in, by id."""
    filled = next(b for b in page.blocks if b.tag == "csv")
    rows = csv.DictReader(filled.text.splitlines())
    return {row["id"]: (row["label"], row["score"]) for row in rows}


def _fill(path: Path, labels: dict[str, tuple[str, str]]) -> None:
    with path.open(encoding="utf-8-sig", newline="") as file:
        reader = csv.DictReader(file)
        fields, rows = reader.fieldnames, list(reader)
    assert fields is not None and set(labels) <= {r["id"] for r in rows}
    for row in rows:
        row["label"], row["score"] = labels.get(row["id"], ("", ""))
    with path.open("w", encoding="utf-8-sig", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
