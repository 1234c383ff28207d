"""Hostile spec text: whatever the bytes, `check` and `fmt` answer with diagnostics or a
formatted spec, never an exception, and a spec that checks clean loads, evaluates and
formats to a fixed point.

The token soup leans on what broke the parser before: lone surrogates, CR line ends,
deep nesting, long chains of lets, huge numbers, Chinese identifiers and punctuation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import evaldsl
from evaldsl.checker import check_source
from evaldsl.cli.main import main
from evaldsl.diagnostics import render_all
from evaldsl.errors import CaseDataError
from evaldsl.syntax.formatter import format_source
from tests.strategies import mutations, specs
from tests.support.fuzz import fuzz

TOKENS = [
    "spec", "case", "check", "let", "outcome", "metric", "review", "sample", "example",
    "if", "otherwise", "where", "and", "or", "not", "in", "priority", "given",
    "k", "k2", "意图", "完成度", "case.intent", "a.b.c", "keyword", "judge", "regex", "rate",
    "mean", "count", "latency", "scope:", "any:", "pattern:", "max_ms:", "last_reply",
    "turn(1)", "=", "==", "!=", ">=", "<", "+", "-", "*", "/", "%", "(", ")", "{", "}",
    "[", "]", ",", ":", ".", "：", "，", "（", "）", "0", "1", "0.8", "1e309", "-0",
    "99999999999999999999999", '"hi"', '"你好"', '"\\ud800"', '"\\u0000"', '"\\"', "'x'",
    '"unterminated', "# 注释", "\n", "\r", "\r\n", "  ", "\t", "\ufeff", "\u200b", "\ud800",
]

token_soup = st.lists(st.sampled_from(TOKENS), max_size=60).map(" ".join)
deep = st.integers(1, 400).map(lambda n: "metric m = " + "(" * n + "1" + ")" * n + "\n")
LINKS = ["a{p} + 1", "a{p} and k", "not a{p}"]
chained = st.tuples(st.integers(1, 300), st.sampled_from(LINKS)).map(
    lambda shape: "check k = keyword(any: [\"hi\"])\nlet a0 = k\n"
    + "".join(f"let a{i} = " + shape[1].format(p=i - 1) + "\n" for i in range(1, shape[0]))
    + f"outcome {{\n  ok if a{shape[0] - 1}\n  bad otherwise\n}}\nmetric m = rate(ok)\n")
with_cr = specs().map(lambda text: text.replace("\n", "\r"))
hostile_text = st.one_of(token_soup, deep, chained, with_cr, st.text(max_size=200))

CASE = {"id": "c1", "messages": [{"role": "user", "content": "hi 你好"},
                                 {"role": "assistant", "content": "hello, how can I help?"}]}


def diagnostics_of(text: str | bytes) -> list[evaldsl.Diagnostic]:
    result, found = check_source(text, "fuzz.eval")
    rendered = render_all(found, {"fuzz.eval": result.source}) if found else ""
    assert isinstance(rendered, str)
    rendered.encode("utf-8")
    return found


@fuzz(examples=400)
@given(hostile_text)
def test_check_never_raises_on_hostile_text(text: str) -> None:
    diagnostics_of(text)


@fuzz(examples=200)
@given(specs().flatmap(mutations))
def test_check_never_raises_on_mutated_bytes(data: bytes) -> None:
    diagnostics_of(data)


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-specs")


@fuzz(examples=100)
@given(st.one_of(specs(), with_cr, chained))
def test_a_clean_spec_loads_evaluates_and_formats_to_a_fixed_point(
        spec_dir: Path, text: str) -> None:
    if any(d.is_error for d in diagnostics_of(text)):
        return
    path = spec_dir / "clean.eval"
    path.write_text(text, encoding="utf-8", newline="")
    spec = evaldsl.load(path)
    if not spec.has_model_checks:  # with a judge: tests/laws/test_check_load_laws.py
        try:
            result = spec.evaluate(CASE)
        except CaseDataError:
            pass  # the spec's `case` block asks for fields the sample case lacks: said
        else:
            json.dumps(result.to_dict(), allow_nan=False, ensure_ascii=False).encode("utf-8")
            report = spec.run([CASE, {**CASE, "id": "c2"}]).to_dict()
            json.dumps(report, allow_nan=False, ensure_ascii=False).encode("utf-8")
    once = format_source(text, "fuzz.eval")
    once.encode("utf-8")
    assert format_source(once, "fuzz.eval") == once
    assert not any(d.is_error for d in diagnostics_of(once))


@fuzz(examples=80)
@given(st.one_of(hostile_text.map(lambda t: t.encode("utf-8", "surrogatepass")),
                 specs().flatmap(mutations)))
def test_the_commands_end_with_a_code_not_a_traceback(
        spec_dir: Path, capsys: pytest.CaptureFixture[str], data: bytes) -> None:
    path = spec_dir / "fuzz.eval"
    path.write_bytes(data)
    for argv, codes in ((["check", str(path)], {0, 2}), (["fmt", "--check", str(path)], {0, 1, 2})):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code in codes, (argv, code, err)
        assert "Traceback" not in out + err
