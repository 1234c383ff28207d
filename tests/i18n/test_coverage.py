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
from evaldsl.report.document import ReasonCount
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
    assert error_line([ReasonCount(reason="timeout", count=3)]).startswith("错误")


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
    from evaldsl.errors import JournalExistsError

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


MODEL_ERRORS = ("ConfigError", "LocalEmbedderUnavailable")
"""The errors of the model layer whose text the user reads (no judge, no key, no extra)."""
CLI_TEXTS = ("help", "description")
"""The keywords of argparse whose text `--help` prints."""


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _unwrapped_texts(folder: str, texts: Any) -> Iterator[str]:
    """`folder:line` of each text `texts(tree)` picks out of a module that spells English."""
    for path in sorted((REPO / folder).rglob("*.py")):
        for text in texts(ast.parse(path.read_text("utf-8"))):
            if _literal_words(text) and not _wrapped(text):
                yield f"{path.relative_to(REPO)}:{text.lineno}"


def _first_arguments(tree: ast.AST, names: tuple[str, ...]) -> Iterator[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _call_name(node) in names:
            yield from node.args[:1]


def _raised(tree: ast.AST) -> Iterator[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            yield from node.exc.args[:1]


def test_every_model_configuration_error_is_wrapped() -> None:
    found = _unwrapped_texts("dsl/model", lambda tree: _first_arguments(tree, MODEL_ERRORS))
    assert list(found) == []


def test_every_error_a_primitive_raises_or_returns_is_wrapped() -> None:
    """Params validators' errors reach the user inside E203/E204, the rest as reasons."""
    assert list(_unwrapped_texts("stdlib_rules", _raised)) == []
    errors = _unwrapped_texts("stdlib_rules", lambda tree: _first_arguments(tree, ("error",)))
    assert list(errors) == []


def test_every_help_text_of_the_cli_is_wrapped() -> None:
    def picked(tree: ast.AST) -> Iterator[ast.expr]:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                yield from (k.value for k in node.keywords if k.arg in CLI_TEXTS)
                if _call_name(node) == "add_argument_group":
                    yield from node.args[:1]

    assert list(_unwrapped_texts("dsl/cli", picked)) == []


def test_no_judge_configured(chinese: None) -> None:
    from evaldsl.model.openai.judge import no_client_message

    message = no_client_message()
    assert HAN.search(message) and "no judge is configured" not in message


def test_no_builtin_embedder(chinese: None) -> None:
    from evaldsl.model.local.embedder import unavailable_message

    message = unavailable_message("x")
    assert HAN.search(message) and "no embedding" not in message and "configure an" not in message


def test_a_length_with_no_bound(chinese: None) -> None:
    from pydantic import ValidationError

    from evaldsl.stdlib.text import LengthParams

    with pytest.raises(ValidationError) as raised:
        LengthParams()
    assert "`min_chars`" in str(raised.value) and "give" not in str(raised.value)


def test_an_argument_of_the_wrong_type(chinese: None) -> None:
    from evaldsl.stdlib.tools.argtypes import FunctionDocs

    docs = FunctionDocs([{"name": "f", "parameters": {
        "properties": {"n": {"type": "integer"}}, "required": ["m"]}}])
    problems = docs.problems("f", {}, {"n": "x", "k": 1})
    assert [p.split(": ", 1)[0] for p in problems] == ["m", "n", "k"]
    assert all(_chinese(p.split(": ", 1)[1].replace("integer", "").replace("string", ""))
               for p in problems), problems


def test_the_chrome_of_the_primitive_reference(chinese: None) -> None:
    from evaldsl.cli.primitives import describe_text

    text = describe_text(default_registry().get("length"))
    assert "parameters:" not in text and "required" not in text and "result:" not in text
