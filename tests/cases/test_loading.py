"""Case files: JSONL, YAML and JSON rows, validation against `case {}`, bad-row policy."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaldsl.cases.bad_rows import BadRow
from evaldsl.cases.case import Case
from evaldsl.cases.loading import RawRow, case_of, load_cases, read_cases
from evaldsl.cases.rows import CaseSchema
from evaldsl.cases.unwritable import screened_loads, unwritable
from evaldsl.errors import CaseDataError
from evaldsl.syntax.nodes import CaseBlock
from evaldsl.syntax.parser import parse

SCHEMA_TEXT = "case {\n  intent: text\n  solvable: bool\n  budget: number?\n  tags: list?\n}"


def schema() -> CaseSchema:
    module = parse(SCHEMA_TEXT, "spec.eval").module
    assert module is not None
    block = module.statements[0]
    assert isinstance(block, CaseBlock)
    return CaseSchema.of(block.fields)


def row(id: str = "c1", **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"id": id, "messages": [
        {"role": "system", "content": "你是客服"},
        {"role": "user", "content": [{"type": "text", "text": "我想退货"}]},
        {"role": "assistant", "content": None, "latency_ms": 950, "tool_calls": [
            {"id": "t1", "type": "function",
             "function": {"name": "create_return", "arguments": "{\"order\": \"A1\"}"}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "ok"},
        {"role": "assistant", "content": "已为您提交退货申请", "latency_ms": 1200},
    ], "intent": "退货", "solvable": True}
    base.update(fields)
    return base


def write_jsonl(path: Path, *lines: Any) -> Path:
    with path.open("wb") as handle:
        for line in lines:
            if isinstance(line, bytes):
                handle.write(line + b"\n")
            elif isinstance(line, str):
                handle.write(line.encode() + b"\n")
            else:
                handle.write(json.dumps(line, ensure_ascii=False).encode() + b"\n")
    return path


class TestJsonl:
    def test_reads_openai_messages(self, tmp_path: Path) -> None:
        """Content parts, tool calls with JSON-text arguments, latency and extra fields."""
        path = write_jsonl(tmp_path / "cases.jsonl", row())
        (case,) = load_cases(path, schema())
        assert case.id == "c1" and case.origin == f"{path}:1"
        assert case.messages[1].content == "我想退货"
        assert case.messages[2].tool_calls[0].arguments == {"order": "A1"}
        assert case.messages[2].latency_ms == 950.0
        assert case.fields == {"intent": "退货", "solvable": True}

    def test_integer_id_becomes_text(self, tmp_path: Path) -> None:
        (case,) = load_cases(write_jsonl(tmp_path / "c.jsonl", row(id=7)))  # type: ignore[arg-type]
        assert case.id == "7"

    def test_blank_lines_and_bom_are_fine(self, tmp_path: Path) -> None:
        path = tmp_path / "c.jsonl"
        path.write_bytes(b"\xef\xbb\xbf" + json.dumps(row()).encode() + b"\n\n  \n"
                         + json.dumps(row("c2")).encode())
        assert [c.id for c in load_cases(path)] == ["c1", "c2"]

    def test_broken_tool_arguments_are_kept_as_an_error_value(self, tmp_path: Path) -> None:
        """A model's broken JSON is data to judge, not a bad row."""
        data = row()
        data["messages"][2]["tool_calls"][0]["function"]["arguments"] = '{"order": '
        (case,) = load_cases(write_jsonl(tmp_path / "c.jsonl", data))
        from evaldsl.values import is_error

        assert is_error(case.messages[2].tool_calls[0].arguments)

    @pytest.mark.parametrize("as_text", [True, False])
    def test_deeply_nested_tool_arguments_are_an_error_value(
        self, tmp_path: Path, as_text: bool
    ) -> None:
        """Arguments nested past the limit are an error on that call, not a RecursionError."""
        from evaldsl.values import is_error

        deep = '{"a": ' * 1000 + "1" + "}" * 1000
        data = row()
        function = data["messages"][2]["tool_calls"][0]["function"]
        function["arguments"] = deep if as_text else {"x": [[[1]]]}
        path = tmp_path / "c.jsonl"
        if as_text:
            write_jsonl(path, data)
        else:  # an object nested past the limit, as a YAML or JSON file can give
            deep_object = '{"x": ' + "[" * 150 + "]" * 150 + "}"
            text = json.dumps(data).replace('{"x": [[[1]]]}', deep_object)
            path.write_text(text + "\n", encoding="utf-8")
        (case,) = load_cases(path)
        arguments = case.messages[2].tool_calls[0].arguments
        assert is_error(arguments) and "nested" in str(arguments)

    def test_arguments_at_the_nesting_limit_are_kept(self, tmp_path: Path) -> None:
        data = row()
        deep = '{"a": ' * 99 + "1" + "}" * 99
        data["messages"][2]["tool_calls"][0]["function"]["arguments"] = deep
        (case,) = load_cases(write_jsonl(tmp_path / "c.jsonl", data))
        assert isinstance(case.messages[2].tool_calls[0].arguments, dict)


BAD_ROWS = [
    ("not json", None, "not valid JSON: a value is expected at column 1"),
    (b"\xff\xfe\x00junk", None, "not UTF-8 text (byte 1)"),
    ("[1, 2]", None, "a case must be an object, got a list `[1, 2]`"),
    ({"messages": []}, "id", "missing"),
    ({"id": "x", "messages": "你好"}, "messages",
     "expected a list of messages, got a text `'你好'`"),
    ({"id": "x", "messages": [{"role": "bot", "content": "hi"}]}, "messages[0].role",
     "expected one of system, user, assistant, tool, got a text `'bot'`"),
    ({"id": "x", "messages": [{"role": "assistant", "content": "hi", "latency_ms": "快"}]},
     "messages[0].latency_ms", "expected a number of milliseconds, got a text `'快'`"),
    ({"id": "x", "messages": [{"role": "assistant", "content": "", "tool_calls": [
        {"function": {"arguments": "{}"}}]}]}, "messages[0].tool_calls[0].function.name",
     "missing"),
    ({"id": "x", "messages": [{"role": "user", "content": 3}]}, "messages[0].content",
     "expected a text or a list of content parts, got a number `3`"),
]


class TestBadRows:
    @pytest.mark.parametrize(("line", "field", "reason"), BAD_ROWS)
    def test_bad_row_names_file_line_field_reason(self, tmp_path: Path, line: Any,
                                                  field: str | None, reason: str) -> None:
        path = write_jsonl(tmp_path / "c.jsonl", row(), line)
        items = list(read_cases(path, on_bad_row="skip"))
        assert isinstance(items[0], Case)
        assert items[1] == BadRow(str(path), 2, reason, field)

    def test_case_block_required_field(self, tmp_path: Path) -> None:
        data = row()
        del data["intent"]
        path = write_jsonl(tmp_path / "c.jsonl", data)
        (bad,) = read_cases(path, schema(), "skip")
        assert str(bad) == (f"{path}:1: field `intent`: missing "
                            "(the spec's `case` block requires it)")

    @pytest.mark.parametrize(("field", "value", "reason"), [
        ("intent", 3, "expected a text, got a number `3`"),
        ("solvable", "yes", "expected true or false, got a text `'yes'`"),
        ("budget", True, "expected a number, got a bool `True`"),
        ("tags", {"a": 1}, "expected a list, got a map `{'a': 1}`"),
    ])
    def test_case_block_types(self, tmp_path: Path, field: str, value: Any,
                              reason: str) -> None:
        path = write_jsonl(tmp_path / "c.jsonl", row(**{field: value}))
        (bad,) = read_cases(path, schema(), "skip")
        assert isinstance(bad, BadRow) and (bad.field, bad.reason) == (field, reason)

    def test_optional_fields_may_be_absent_or_null(self, tmp_path: Path) -> None:
        path = write_jsonl(tmp_path / "c.jsonl", row(budget=None), row("c2", budget=300))
        assert [c.id for c in load_cases(path, schema())] == ["c1", "c2"]

    def test_fail_policy_raises_case_data_error(self, tmp_path: Path) -> None:
        path = write_jsonl(tmp_path / "c.jsonl", row(), "{oops")
        with pytest.raises(CaseDataError) as info:
            list(read_cases(path))
        assert (info.value.file, info.value.line) == (str(path), 2)
        assert str(info.value).startswith(f"{path}:2: not valid JSON")

    def test_skip_policy_counts_and_continues(self, tmp_path: Path) -> None:
        path = write_jsonl(tmp_path / "c.jsonl", "x", row(), b"\x00\x01", row("c2"), "[]")
        items = list(read_cases(path, on_bad_row="skip"))
        assert [type(i).__name__ for i in items] == ["BadRow", "Case", "BadRow", "Case",
                                                     "BadRow"]

    def test_streaming_yields_before_reading_ahead(self, tmp_path: Path) -> None:
        """The first case arrives before a later bad row is read (nothing is slurped)."""
        path = write_jsonl(tmp_path / "c.jsonl", row(), "broken")
        stream = read_cases(path)
        assert isinstance(next(stream), Case)
        with pytest.raises(CaseDataError):
            next(stream)

    def test_missing_file(self, tmp_path: Path) -> None:
        (bad,) = read_cases(tmp_path / "无.jsonl", on_bad_row="skip")
        assert isinstance(bad, BadRow) and bad.reason.startswith("cannot read the file")

    def test_a_missing_file_raises_with_fail_only_when_read(self, tmp_path: Path) -> None:
        stream = read_cases([tmp_path / "none.jsonl"])  # nothing is opened yet
        with pytest.raises(CaseDataError) as info:
            next(stream)
        assert (info.value.line, str(info.value)) == (
            0, f"{tmp_path / 'none.jsonl'}:0: cannot read the file: No such file or directory")

    def test_reading_ends_at_the_first_bad_row_with_fail(self, tmp_path: Path) -> None:
        first = write_jsonl(tmp_path / "a.jsonl", row(), "{oops", row("c2"))
        stream = read_cases([first, write_jsonl(tmp_path / "b.jsonl", row("c3"))])
        assert isinstance(next(stream), Case)
        with pytest.raises(CaseDataError):
            next(stream)
        assert list(stream) == []

    def test_the_files_after_a_missing_one_are_read(self, tmp_path: Path) -> None:
        path = write_jsonl(tmp_path / "c.jsonl", row())
        items = list(read_cases([tmp_path / "none.jsonl", path, tmp_path], on_bad_row="skip"))
        assert [(type(i).__name__, getattr(i, "line", None)) for i in items] == [
            ("BadRow", 0), ("Case", None), ("BadRow", 0)]

    def test_a_case_keeps_the_other_fields_of_its_row(self, tmp_path: Path) -> None:
        given = row(intent="退货", solvable=True)
        path = write_jsonl(tmp_path / "c.jsonl", given, {**given, "id": 7})
        for case in load_cases(path, schema()):
            assert dict(case.fields) == {"intent": "退货", "solvable": True}

    def test_a_row_given_in_memory_is_left_whole(self) -> None:
        given = {"id": 3, "messages": [{"role": "user", "content": "hi"}], "intent": "x"}
        for data in (given, json.loads(json.dumps(given))):
            kept = json.loads(json.dumps(data))
            assert case_of(data).fields == {"intent": "x"}
            item = RawRow("f.yaml", 1, data).item()
            assert isinstance(item, Case) and item.fields == {"intent": "x"}
            assert data == kept

    def test_deep_nesting_is_a_bad_row(self, tmp_path: Path) -> None:
        path = write_jsonl(tmp_path / "c.jsonl", "[" * 100_000)
        (bad,) = read_cases(path, on_bad_row="skip")
        assert isinstance(bad, BadRow) and bad.reason.startswith("not valid JSON")


class TestYaml:
    def test_list_of_cases_with_lines(self, tmp_path: Path) -> None:
        path = tmp_path / "cases.yaml"
        path.write_text(
            "- id: y1\n  messages:\n    - {role: user, content: 你好}\n"
            "    - {role: assistant, content: 您好, latency_ms: 300}\n  intent: 问候\n"
            "  solvable: true\n"
            "- id: y2\n  messages: []\n  intent: 问候\n  solvable: maybe\n", encoding="utf-8")
        items = list(read_cases(path, schema(), "skip"))
        assert isinstance(items[0], Case) and items[0].messages[1].latency_ms == 300.0
        assert items[1] == BadRow(str(path), 7, "expected true or false, got a text `'maybe'`",
                                  "solvable")

    def test_one_case_per_document(self, tmp_path: Path) -> None:
        path = tmp_path / "cases.yml"
        path.write_text("id: a\nmessages: []\n---\nid: b\nmessages: []\n", encoding="utf-8")
        assert [c.id for c in load_cases(path)] == ["a", "b"]

    def test_alias_bomb_is_a_bad_row_naming_the_line(self, tmp_path: Path) -> None:
        """Aliases that expand past the limit are refused before anything is built."""
        lines = ["- id: ok\n  messages: []\n", "- id: bomb\n  messages: []\n  a0: &a0 [x, x]\n"]
        lines += [f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 4)}]\n" for i in range(1, 30)]
        path = tmp_path / "cases.yaml"
        path.write_text("".join(lines), encoding="utf-8")
        items = list(read_cases(path, on_bad_row="skip"))
        assert isinstance(items[0], Case) and items[0].id == "ok"
        assert isinstance(items[1], BadRow) and items[1].line == 3
        assert "alias" in items[1].reason

    def test_modest_aliases_are_kept(self, tmp_path: Path) -> None:
        path = tmp_path / "cases.yaml"
        path.write_text("- id: a\n  messages: []\n  x: &x [1, 2]\n  y: *x\n", encoding="utf-8")
        (case,) = load_cases(path)
        assert case.fields["y"] == [1, 2]

    def test_syntax_error_ends_the_file(self, tmp_path: Path) -> None:
        path = tmp_path / "cases.yaml"
        path.write_text("- id: a\n  messages: []\n- id: [b\n", encoding="utf-8")
        items = list(read_cases(path, on_bad_row="skip"))
        assert isinstance(items[-1], BadRow)
        assert items[-1].reason.startswith("not valid YAML")

    def test_rows_before_a_syntax_error_in_a_list_are_kept(self, tmp_path: Path) -> None:
        """The items of a list before the broken one are read; anchors among them still work."""
        path = tmp_path / "cases.yaml"
        path.write_text(
            "# cases\n- id: a\n  messages: &m []\n- id: b\n  messages: *m\n"
            "- id: c\n  messages: []\n  bad: : x\n- id: d\n  messages: []\n",
            encoding="utf-8",
        )
        items = list(read_cases(path, on_bad_row="skip"))
        assert [c.id for c in items[:2] if isinstance(c, Case)] == ["a", "b"]
        assert len(items) == 3 and isinstance(items[2], BadRow)
        assert items[2].line == 8 and items[2].reason.startswith("not valid YAML")

    def test_error_reported_late_falls_back_to_where_it_starts(self, tmp_path: Path) -> None:
        """An unclosed bracket is reported at the end; the rows before its own item survive."""
        path = tmp_path / "cases.yaml"
        path.write_text(
            "- id: a\n  messages: []\n- id: b\n  messages: [\n- id: c\n  messages: []\n",
            encoding="utf-8",
        )
        items = list(read_cases(path, on_bad_row="skip"))
        assert isinstance(items[0], Case) and items[0].id == "a"
        assert len(items) == 2 and isinstance(items[1], BadRow)

    def test_documents_before_a_broken_one_are_kept(self, tmp_path: Path) -> None:
        path = tmp_path / "cases.yaml"
        path.write_text(
            "id: a\nmessages: []\n---\n- id: b\n  messages: []\n- id: c\n  x: : y\n",
            encoding="utf-8",
        )
        items = list(read_cases(path, on_bad_row="skip"))
        assert [c.id for c in items if isinstance(c, Case)] == ["a", "b"]
        assert isinstance(items[-1], BadRow) and items[-1].line == 7

    def test_syntax_error_with_fail_names_file_and_line(self, tmp_path: Path) -> None:
        path = tmp_path / "cases.yaml"
        path.write_text("- id: a\n  messages: []\n- id: b\n  x: : y\n", encoding="utf-8")
        with pytest.raises(CaseDataError) as caught:
            list(read_cases(path, on_bad_row="fail"))
        assert caught.value.file == str(path) and caught.value.line == 4


class TestJson:
    def test_array_file(self, tmp_path: Path) -> None:
        path = tmp_path / "cases.json"
        path.write_text(json.dumps([row(), row("c2")]), encoding="utf-8")
        assert [c.id for c in load_cases(path)] == ["c1", "c2"]


class TestLaws:
    @settings(max_examples=150, deadline=None)
    @given(st.lists(st.one_of(st.binary(max_size=80), st.text(max_size=80).map(str.encode),
                              st.just(json.dumps(row()).encode())), max_size=8))
    def test_law_reading_never_raises_with_skip(self, lines: list[bytes]) -> None:
        """Law: any bytes at all give cases and bad rows, never an exception."""
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "junk.jsonl"
            path.write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines))
            items = list(read_cases(path, schema(), "skip"))
        assert all(isinstance(i, (Case, BadRow)) for i in items)
        assert all(1 <= i.line <= max(1, len(lines)) for i in items if isinstance(i, BadRow))

    @settings(max_examples=100, deadline=None)
    @given(st.dictionaries(st.text(min_size=1, max_size=8).filter(
        lambda k: k not in ("id", "messages")), st.one_of(st.integers(), st.text(max_size=5)),
        max_size=4))
    def test_law_extra_fields_round_trip(self, extra: dict[str, Any]) -> None:
        """Law: every field besides `id` and `messages` reaches the case unchanged."""
        with tempfile.TemporaryDirectory() as folder:
            path = write_jsonl(Path(folder) / "c.jsonl", {"id": "x", "messages": [], **extra})
            (case,) = load_cases(path)
        assert dict(case.fields) == extra


class TestUnwritableValues:
    """Values a row may spell but no journal or report can hold are bad rows, not crashes."""

    def _only_bad(self, path: Path) -> BadRow:
        (item,) = read_cases(path, on_bad_row="skip")
        assert isinstance(item, BadRow)
        return item

    @pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
    def test_non_finite_latency_is_a_bad_row(self, tmp_path: Path, value: str) -> None:
        text = json.dumps(row()).replace('"latency_ms": 950', f'"latency_ms": {value}')
        bad = self._only_bad(write_jsonl(tmp_path / "c.jsonl", text))
        assert (bad.line, bad.field) == (1, "messages[2].latency_ms")
        assert "finite" in bad.reason

    def test_non_finite_number_anywhere_is_a_bad_row(self, tmp_path: Path) -> None:
        text = json.dumps(row()).replace('"solvable": true', '"solvable": true, "score": NaN')
        good, bad = read_cases(write_jsonl(tmp_path / "c.jsonl", row(), text), on_bad_row="skip")
        assert isinstance(good, Case) and isinstance(bad, BadRow)
        assert (bad.line, bad.field) == (2, "score")

    @pytest.mark.parametrize("where", ["id", "content"])
    def test_lone_surrogate_is_a_bad_row(self, tmp_path: Path, where: str) -> None:
        text = json.dumps(row())
        text = (text.replace('"id": "c1"', '"id": "c\\ud800"') if where == "id"
                else text.replace('"content": "ok"', '"content": "o\\udc00k"'))
        bad = self._only_bad(write_jsonl(tmp_path / "c.jsonl", text))
        assert bad.field == ("id" if where == "id" else "messages[3].content")
        assert "surrogate" in bad.reason

    def test_lone_surrogate_in_a_key_is_a_bad_row(self, tmp_path: Path) -> None:
        text = json.dumps(row()).replace('"intent"', '"in\\ud83dtent"', 1)
        bad = self._only_bad(write_jsonl(tmp_path / "c.jsonl", text))
        assert "surrogate" in bad.reason

    @pytest.mark.parametrize("spelt", ["1e999", "-2E+400", "1" + "0" * 400 + ".5"])
    def test_a_number_that_overflows_to_infinity_is_a_bad_row(self, tmp_path: Path,
                                                              spelt: str) -> None:
        text = json.dumps(row()).replace('"latency_ms": 950', f'"latency_ms": {spelt}')
        bad = self._only_bad(write_jsonl(tmp_path / "c.jsonl", text))
        assert (bad.field, "finite" in bad.reason) == ("messages[2].latency_ms", True)

    @settings(max_examples=300, deadline=None)
    @given(st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(
            st.characters(codec=None, exclude_categories=())),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
            st.text(st.characters(codec=None, exclude_categories=()), max_size=3), inner,
            max_size=4), max_leaves=12))
    def test_the_screen_never_clears_an_unwritable_value(self, value: Any) -> None:
        """JSONL rows skip the walk when `screened_loads` clears them; that must be sound:
        a value the walk would name is never cleared."""
        text = json.dumps(value)
        decoded, cleared = screened_loads(text)
        if unwritable(decoded) is not None:
            assert not cleared, text

    def test_a_paired_surrogate_is_fine(self, tmp_path: Path) -> None:
        text = json.dumps(row()).replace('"ok"', '"\\ud83d\\ude00"')
        (case,) = load_cases(write_jsonl(tmp_path / "c.jsonl", text))
        assert case.id == "c1"

    def test_yaml_non_finite_is_a_bad_row(self, tmp_path: Path) -> None:
        path = tmp_path / "c.yaml"
        path.write_text("- id: a\n  messages: [{role: user, content: hi}]\n  score: .nan\n")
        bad = self._only_bad(path)
        assert (bad.line, bad.field) == (1, "score")


class TestJsonListLines:
    def test_bad_items_of_a_json_list_name_their_own_line(self, tmp_path: Path) -> None:
        path = tmp_path / "c.json"
        path.write_text('[\n  {"id": "a", "messages": [{"role": "user", "content": "hi"}]},\n'
                        '  {"messages": []},\n\n  {"id": "c"}\n]\n')
        items = list(read_cases(path, on_bad_row="skip"))
        assert isinstance(items[0], Case)
        assert [(i.line, i.field) for i in items[1:] if isinstance(i, BadRow)] == [
            (3, "id"), (5, "messages")]

    def test_one_object_json_file_is_at_its_first_line(self, tmp_path: Path) -> None:
        path = tmp_path / "c.json"
        path.write_text('\n\n{"id": "a"}\n')
        (bad,) = read_cases(path, on_bad_row="skip")
        assert isinstance(bad, BadRow) and bad.line == 3
