"""Every message the user reads goes through the catalogue, the newer ones included.

Diagnostics are checked by reading the source: a message or hint with words in it
is `_()`-wrapped. The rest (report chrome, notices, errors of the run and the
merge, the primitive reference) by example: in Chinese they come out in Chinese.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaldsl.cases.scopes import Scope, scope_words
from evaldsl.checker import check_source
from evaldsl.checker.facts.choices import choice_hint
from evaldsl.errors import EvaldslError
from evaldsl.i18n import set_language
from evaldsl.primitives.registry import default_registry
from evaldsl.report.terminal import error_line
from evaldsl.report.writers import write_report

REPO = Path(__file__).resolve().parents[2]
DIAGNOSTIC_MAKERS = ("error", "warning")
WORDS = re.compile(r"[A-Za-z]{2,}")
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chinese() -> Iterator[None]:
    set_language("zh")
    yield
    set_language("en")


def _wrapped(e: ast.expr) -> bool:
    """`_("...")`, `ngettext(...)` or either followed by `.format(...)`."""
    if not isinstance(e, ast.Call):
        return False
    if isinstance(e.func, ast.Name):
        return e.func.id in ("_", "ngettext")
    return isinstance(e.func, ast.Attribute) and e.func.attr == "format" and _wrapped(e.func.value)


def _literal_words(e: ast.expr) -> bool:
    """Whether `e` spells English words itself rather than only joining other texts."""
    if isinstance(e, ast.Constant) and isinstance(e.value, str):
        return bool(WORDS.search(e.value))
    if isinstance(e, ast.JoinedStr):
        return any(_literal_words(v) for v in e.values if isinstance(v, ast.Constant))
    if isinstance(e, ast.BinOp):
        return _literal_words(e.left) or _literal_words(e.right)
    return False


def _unwrapped_diagnostics() -> Iterator[str]:
    for folder in ("dsl", "stdlib_rules"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id in DIAGNOSTIC_MAKERS):
                    continue
                texts = node.args[1:2] + node.args[3:4] + [k.value for k in node.keywords
                                                           if k.arg == "hint"]
                for text in texts:
                    if _literal_words(text) and not _wrapped(text):
                        yield f"{path.relative_to(REPO)}:{text.lineno}"


def test_every_diagnostic_message_and_hint_is_wrapped() -> None:
    assert list(_unwrapped_diagnostics()) == []


def _messages(source: str) -> list[str]:
    return [f"{d.message} {d.hint}" for d in check_source(source, "x.eval")[1]]


def _chinese(text: str) -> bool:
    """Whether `text` is Chinese outside its code spans and options: some Chinese and no
    English word (a spec's own words and the type words translated elsewhere do not count)."""
    prose = re.sub(r"`[^`]*`|--[\w-]+", "", text)
    return bool(HAN.search(prose)) and not re.search(r"[A-Za-z]{3,}", prose)


@pytest.mark.parametrize(
    "source",
    [
        'spec "s"\ncheck a = keyword(any: ["x"])\noutcome {\n'
        "  pass if a 且 a\n  fail otherwise\n}\n",
        'spec "s"\ncheck p = judge(criteria: "polite", scale: 10)\noutcome {\n'
        "  good if p.value > 10\n  bad otherwise\n}\n",
        'spec "s"\ncheck p = judge(criteria: "polite", scale: 10)\noutcome {\n'
        "  good if p.value >= 80%\n  bad otherwise\n}\n",
        'spec "s"\ncheck p = judge(criteria: "polite", scale: 10)\nexample "e" {\n'
        '  assistant "hi"\n  given p = "very"\n  expect p\n}\nmetric r = rate(p)\n',
        'spec "s"\ncheck p = judge(criteria: "polite", scale: 10)\nexample "e" {\n'
        '  assistant "hi"\n  given p = 12\n  expect p\n}\nmetric r = rate(p)\n',
    ],
    ids=["E011", "E406", "W106", "E506-type", "E506-range"],
)
def test_newer_diagnostics_are_chinese(chinese: None, source: str) -> None:
    found = _messages(source)
    assert found and all(_chinese(m) for m in found), found


def test_the_error_line_of_the_summary(chinese: None) -> None:
    assert error_line([{"count": 3, "reason": "timeout"}]).startswith("错误")


def test_what_a_scope_shows(chinese: None) -> None:
    assert _chinese(scope_words(Scope("last_reply")))
    assert _chinese(scope_words(Scope("turn", 3)))


def test_a_choice_hint(chinese: None) -> None:
    assert "或" in choice_hint("mode", ("strict", "subset"))


def test_the_primitive_reference_says_the_default_scope(chinese: None) -> None:
    from evaldsl.cli.primitives import describe_markdown, describe_text

    contains = default_registry().get("keyword")
    assert "with no scope" not in describe_text(contains)
    assert "With no scope" not in describe_markdown(contains)


def test_an_unknown_report_format(chinese: None, tmp_path: Path) -> None:
    with pytest.raises(EvaldslError) as raised:
        write_report(tmp_path / "r", {}, "pdf")
    assert _chinese(str(raised.value))


def test_a_journal_another_run_wrote(chinese: None) -> None:
    from evaldsl.run.runner import JournalExistsError

    assert _chinese(JournalExistsError("x").hint)


def test_an_unknown_gold_label(chinese: None) -> None:
    from pydantic import ValidationError

    from evaldsl.stdlib.classifying import ClassifyParams

    with pytest.raises(ValidationError) as raised:
        ClassifyParams(labels=["refund", "other"], expect="xyz")
    assert '"xyz" 不是分类体系中的标签' in str(raised.value)


def test_a_judge_that_cannot_be_reached(chinese: None) -> None:
    import openai

    from evaldsl.i18n import N_
    from evaldsl.model.openai.judge import translate

    transport: Any
    try:  # the HTTP package the `openai` client is built on, as in `ssl_context`
        transport = importlib.import_module("httpx2")
    except ImportError:
        transport = importlib.import_module("httpx")
    down = openai.APIConnectionError(request=transport.Request("POST", "http://127.0.0.1:9/v1"))
    assert str(translate(down, N_("judge"), 5.0)) == "无法连接评测模型服务器"


def test_the_run_warns_of_an_empty_case_file(tmp_path: Path, kit: Any, spec_file: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n", encoding="utf-8")
    done = kit.evaldsl("--lang", "zh", "run", spec_file, cases, "-o", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    assert f"警告：`{cases}` 中没有用例" in done.stderr
