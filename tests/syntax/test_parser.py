"""The parser: every form of the language, spans, comments, worded syntax errors."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaldsl.diagnostics import Diagnostic
from evaldsl.syntax import nodes as n
from evaldsl.syntax.parser import MAX_NESTING, ParseResult, parse, parse_expression
from tests.strategies import mutations, specs

PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _one(text: str) -> n.Statement:
    result = parse(text)
    assert result.module is not None, result.diagnostics
    assert len(result.module.statements) == 1
    return result.module.statements[0]


class TestForms:
    def test_spec_header(self) -> None:
        """`spec "title"` keeps its Unicode title."""
        assert _one('spec "预约维修服务"\n') == n.SpecHeader("预约维修服务", span=None)  # type: ignore[arg-type]

    def test_case_block(self) -> None:
        """Fields with types, `?` marks optional ones."""
        block = _one("case {\n  intent: text\n  reference: text?\n}\n")
        assert isinstance(block, n.CaseBlock)
        assert [(f.name, f.type, f.optional) for f in block.fields] == [
            ("intent", "text", False), ("reference", "text", True)]

    def test_table(self) -> None:
        """Options (flags and values) and entries with several sources."""
        table = _one('table r (nfkc, remove: ",.") {\n  "华东", "East" -> "east"\n}\n')
        assert isinstance(table, n.Table)
        assert [(o.name, o.value is None) for o in table.options] == [
            ("nfkc", True), ("remove", False)]
        assert [s.value for s in table.entries[0].sources] == ["华东", "East"]
        assert table.entries[0].target.value == "east"

    def test_check(self) -> None:
        """A primitive call with keyword arguments, trailing comma allowed."""
        check = _one('check 意图 = classify(scope: first_user, labels: ["a"],)\n')
        assert isinstance(check, n.Check)
        assert (check.name, check.primitive) == ("意图", "classify")
        assert [a.name for a in check.args] == ["scope", "labels"]

    def test_positional_arguments_are_kept_for_the_checker(self) -> None:
        """Unnamed arguments parse, so the checker can explain them (E014)."""
        check = _one('check p = judge("polite")\n')
        assert isinstance(check, n.Check) and len(check.positional) == 1

    def test_outcomes(self) -> None:
        """Named and unnamed blocks, `if` and `otherwise` branches."""
        outcome = _one("outcome level {\n  good if x >= 80\n  bad otherwise\n}\n")
        assert isinstance(outcome, n.Outcome) and outcome.name == "level"
        assert [(b.label, b.condition is None) for b in outcome.branches] == [
            ("good", False), ("bad", True)]

    def test_metric_with_where(self) -> None:
        """`where` sets the denominator."""
        metric = _one("metric m = rate(fast) where intent.passed\n")
        assert isinstance(metric, n.Metric) and metric.where is not None

    def test_metric_by_keys(self) -> None:
        """`by` follows the `where` and lists its group keys in order."""
        metric = _one("metric m = rate(fast) where intent.passed by case.lang, case.domain\n")
        assert isinstance(metric, n.Metric) and metric.where is not None
        assert [(k.span.col, k.span.end_col) for k in metric.by] == [(46, 55), (57, 68)]
        assert [k.name for k in metric.by if isinstance(k, n.Attribute)] == ["lang", "domain"]

    @pytest.mark.parametrize(("clause", "lower"), [
        ("", False), (" higher is better", False), (" lower is better", True),
        (" 越低越好", True), (" 越高越好", False)])
    def test_metric_direction(self, clause: str, lower: bool) -> None:
        """A metric says which way it improves after its `where` and `by`, in English or
        Chinese; unwritten is higher is better. The words stay names elsewhere."""
        metric = _one(f"metric m = rate(fast) where ok by case.lang{clause}\n")
        assert isinstance(metric, n.Metric) and metric.lower_is_better is lower
        assert metric.direction == (clause.strip() or None)
        fast, slow = _both(f"let lower = 1\nlet better = lower\nmetric m = rate(x){clause}\n")
        assert fast is not None and repr(fast) == repr(slow)

    def test_metric_without_by_has_no_keys(self) -> None:
        """A metric that is not grouped has an empty `by`."""
        metric = _one("metric m = rate(fast)\n")
        assert isinstance(metric, n.Metric) and metric.by == ()

    def test_windowed_alert_on_a_declared_metric(self) -> None:
        """A bare name on the left is a declared metric: the alert makes no metric."""
        alert = _one('alert a when poor_rate > 10% over 1h min 30 "m"\n')
        assert isinstance(alert, n.Alert) and alert.metric is None
        assert alert.window is not None and alert.window.by == ()
        assert (alert.window.seconds, alert.window.min_cases.value) == (3600, 30)  # type: ignore[union-attr]

    def test_windowed_alert_with_an_aggregate_in_place(self) -> None:
        """`rate(poor) > 10% over 1h by case.tenant` makes the alert its own metric, named
        after it, grouped by the window's keys."""
        alert = _one('alert 租户 when (rate(poor)) > 10% over 1d by case.tenant, case.lang '
                     'min 5 "m"\n')
        assert isinstance(alert, n.Alert) and alert.metric is not None
        metric = alert.metric
        assert (metric.name, metric.name_span) == ("租户", alert.name_span)
        assert isinstance(metric.value, n.Group) and metric.where is None
        assert [k.name for k in metric.by if isinstance(k, n.Attribute)] == ["tenant", "lang"]
        assert metric.by == alert.window.by  # type: ignore[union-attr]

    def test_a_per_case_alert_makes_no_metric(self) -> None:
        alert = _one('alert a when rate(poor) > 0.5 "m"\n')
        assert isinstance(alert, n.Alert) and alert.metric is None and alert.window is None

    def test_walking_an_alert_visits_its_aggregate_once(self) -> None:
        """The alert's metric is derived from its condition, so a walk does not repeat it."""
        alert = _one('alert a when rate(poor) > 10% over 1h by case.tenant "m"\n')
        names = [x.name for x in n.walk(alert) if isinstance(x, n.Name)]
        assert names == ["poor", "case"]

    def test_review(self) -> None:
        """Options and sample rules with `where` and `priority`."""
        review = _one("review (seed: 7) {\n  sample 2% where x priority 100 - y\n  sample 1%\n}\n")
        assert isinstance(review, n.Review)
        assert [o.name for o in review.options] == ["seed"]
        assert [(r.where is not None, r.priority is not None) for r in review.rules] == [
            (True, True), (False, False)]

    def test_example(self) -> None:
        """Case fields, messages with extras, pins and expectations."""
        example = _one('example "e" {\n  case {intent: "x"}\n  user "hi"\n'
                       '  assistant "ok" {latency_ms: 800}\n  given p = 8\n'
                       '  given c.label = "a"\n  expect success\n}\n')
        assert isinstance(example, n.Example)
        kinds = [type(i).__name__ for i in example.items]
        assert kinds == ["ExampleCase", "ExampleMessage", "ExampleMessage", "ExampleGiven",
                         "ExampleGiven", "ExampleExpect"]

    def test_keywords_stay_usable_as_names(self) -> None:
        """`sample`, `priority` and `given` are names outside their forms."""
        assert parse("let sample = 1\nlet priority = sample\n").diagnostics == []


class TestExpressions:
    def test_precedence(self) -> None:
        """`or` < `and` < `not` < comparison < `+` < `*` < unary minus."""
        e = parse_expression("a or b and not c >= 1 + 2 * -3")
        assert isinstance(e, n.Binary) and e.op == "or"
        right = e.right
        assert isinstance(right, n.Binary) and right.op == "and"
        negated = right.right
        assert isinstance(negated, n.Unary) and negated.op == "not"
        comparison = negated.operand
        assert isinstance(comparison, n.Binary) and comparison.op == ">="
        total = comparison.right
        assert isinstance(total, n.Binary) and total.op == "+"
        assert isinstance(total.right, n.Binary) and total.right.op == "*"

    def test_percent(self) -> None:
        """`30%` is 0.3 and remembers its spelling."""
        assert parse_expression("30%") == n.Percent(0.3, "30%", span=None)  # type: ignore[arg-type]

    def test_string_escapes(self) -> None:
        """Escapes in texts, both quote styles."""
        assert parse_expression(r'"a\"b\n\u4e2d"') == n.String('a"b\n中', span=None)  # type: ignore[arg-type]
        assert parse_expression("'it\\'s'") == n.String("it's", span=None)  # type: ignore[arg-type]

    def test_membership(self) -> None:
        """`in` and `not in`."""
        e = parse_expression('case.lang not in ["zh", "en"]')
        assert isinstance(e, n.Binary) and e.op == "not in"

    def test_calls_fields_and_indexes(self) -> None:
        """Postfix forms chain."""
        e = parse_expression('percentile(slots.filled["phone"], 90)')
        assert isinstance(e, n.Call) and e.func == "percentile"
        assert isinstance(e.args[0], n.Index)


class TestSpans:
    def test_columns_count_characters(self) -> None:
        """A Chinese identifier is one column per character."""
        check = _one('check 意图 = judge(criteria: "x")\n')
        assert isinstance(check, n.Check)
        assert (check.name_span.col, check.name_span.end_col) == (7, 9)
        assert check.primitive_span.col == 12

    def test_every_node_has_a_span(self) -> None:
        """Spans are everywhere, from statements down to literals."""
        module = parse('let a = {k: [1, "x", b.c]}\n').module
        assert module is not None
        assert all(getattr(node, "span", None) is not None for node in n.walk(module))


class TestComments:
    def test_comments_are_collected_with_spans(self) -> None:
        """Comments are kept in order, each with its position, `#` inside texts excluded."""
        module = parse('# a\nlet x = "#no"  # b\n').module
        assert module is not None
        assert [(c.text, c.span.line, c.span.col) for c in module.comments] == [
            ("# a", 1, 1), ("# b", 2, 16)]


SYNTAX_ERRORS = [
    ("outcome {\n  success if x\n  partial\n  failure otherwise\n}\n", "E011", (4, 3),
     "expected `if` or `otherwise` after the outcome label `partial`, found the name `failure`"),
    ('chek x = judge(criteria: "x")\n', "E011", (1, 1), "`chek` does not start a statement"),
    ('check x = judge criteria: "x")\n', "E011", (1, 17),
     "expected `(` after the primitive name `judge`, found the name `criteria`"),
    ('check x = judge(criteria "x")\n', "E011", (1, 26),
     'expected `:` after the argument name `criteria`, found the text "x"'),
    ("let x = [1 2]\n", "E011", (1, 12),
     "expected `,` or `]` after the number `1`, found the number `2`"),
    ('check x = judge(criteria: "x"))\n', "E011", (1, 31), "`)` closes nothing here"),
    ("let x = a = b\n", "E011", (1, 11), "a single `=` cannot compare values"),
    ("let x = (1 + 2\n", "E012", (1, 14), "the file ends too early: expected `)`"),
    ("let x = 1 +\n", "E012", (1, 11),
     "the file ends too early: expected a value (a name, number, text, list or map)"),
    ('let x = "abc\n', "E013", (1, 9), "this text is not closed before the end of the line"),
    ('check 意图 = classify(labels：["a"])\n', "E010", (1, 27), "unexpected character `：`"),
    ("let x = 3 ;\n", "E010", (1, 11), "unexpected character `;`"),
    ("spec title\n", "E011", (1, 6), "expected a text in quotes after `spec`, found the name "
     "`title`"),
    ("let x = 1\n7\n", "E011", (2, 1), "expected a new statement, found the number `7`"),
    ("let x = a < b < c\n", "E011", (1, 15), "a comparison cannot be chained with another `<`"),
]


class TestSyntaxErrors:
    @pytest.mark.parametrize(("text", "code", "where", "message"), SYNTAX_ERRORS)
    def test_worded_errors(self, text: str, code: str, where: tuple[int, int],
                           message: str) -> None:
        """Syntax errors say what was found and what was expected, in words."""
        result = parse(text, "t.eval")
        assert result.module is None
        [found] = result.diagnostics
        assert (found.code, (found.span.line, found.span.col), found.message) == (
            code, where, message)

    def test_the_statement_hint_names_every_statement(self) -> None:
        """The hint of a line that starts no statement lists every keyword that starts one in
        the grammar, so a new statement cannot be left out of it."""
        import re
        from pathlib import Path

        grammar = (Path(__file__).parents[2] / "grammar" / "evaldsl.lark").read_text()
        alternatives = re.search(r"\?statement:(.*?)\n\n", grammar, re.S)
        assert alternatives is not None
        rules = re.findall(r"\w+", alternatives.group(1))
        starts = {re.search(rf'^{rule}: "(\w+)"', grammar, re.M).group(1)  # type: ignore[union-attr]
                  for rule in rules}
        assert "alert" in starts
        hint = parse("chek x = 1\n").diagnostics[0].hint or ""
        assert {word for word in starts if f"`{word}`" not in hint} == set()

    def test_no_token_names(self) -> None:
        """Terminal names like `RPAR` never reach the author."""
        for text, *_ in SYNTAX_ERRORS:
            found = parse(text).diagnostics[0]
            assert not any(word.isupper() and len(word) > 2 and "_" in word or word in
                           ("RPAR", "LBRACE", "NAME", "STRING") for word in
                           (found.message + " " + found.hint).replace("`", " ").split())

    def test_full_width_hint(self) -> None:
        """A full-width colon gets a hint that says so."""
        assert parse('check a = judge(criteria："x")\n').diagnostics[0].hint == (
            "this is a full-width colon; use `:`")


CURLY = 'this is a curly quote; use a straight `"`'


class TestLookalikes:
    """What a Chinese input method types where the language wants ASCII, all in one pass."""

    def test_every_full_width_character_is_reported(self) -> None:
        """Four kinds on two lines: each at its column, each naming the ASCII character."""
        text = ('check 礼貌 = judge（criteria：“语气是否礼貌”，scale: 5)\n'
                'check 快 = latency(max_ms：3000)\n')
        found = parse(text, "t.eval").diagnostics
        assert [(d.code, d.span.line, d.span.col, d.message, d.hint) for d in found] == [
            ("E010", 1, 17, "unexpected character `（`",
             "this is a full-width parenthesis; use `(`"),
            ("E010", 1, 26, "unexpected character `：`", "this is a full-width colon; use `:`"),
            ("E010", 1, 27, "unexpected character `“`", CURLY),
            ("E010", 1, 34, "unexpected character `”`", CURLY),
            ("E010", 1, 35, "unexpected character `，`", "this is a full-width comma; use `,`"),
            ("E010", 2, 25, "unexpected character `：`", "this is a full-width colon; use `:`"),
        ]

    def test_inside_texts_and_comments_they_are_fine(self) -> None:
        """`，` in a text or a comment is content, not punctuation."""
        result = parse('let x = "好的，谢谢"  # 注释：可以\n')
        assert result.module is not None and result.diagnostics == []

    def test_chinese_words_for_operators(self) -> None:
        """`且`, `或`, `非` between conditions get the English keyword as the hint."""
        text = ("check a = latency(max_ms: 10)\ncheck b = latency(max_ms: 20)\n"
                "metric m = rate(a) where a 且 b\nmetric n = rate(a) where a 或 非 b\n")
        found = parse(text, "t.eval").diagnostics
        assert [(d.code, d.span.line, d.span.col, d.message, d.hint) for d in found] == [
            ("E011", 3, 28, "`且` is not an operator", "write `and`"),
            ("E011", 4, 28, "`或` is not an operator", "write `or`"),
            ("E011", 4, 30, "`非` is not an operator", "write `not`"),
        ]

    def test_the_words_inside_names_are_names(self) -> None:
        """`非法` and `或许` are names; nothing is reported for them."""
        result = parse("check 非法 = latency(max_ms: 10)\nmetric 或许 = rate(非法)\n")
        assert result.module is not None and result.diagnostics == []


class TestInputGuards:
    def test_invalid_utf8(self) -> None:
        """Bytes that are not UTF-8 are E001 at their position."""
        found = parse(b'let x = "\xff"\n', "t.eval").diagnostics
        assert [(d.code, d.span.col) for d in found] == [("E001", 10)]

    def test_binary(self) -> None:
        """A NUL character means a binary file."""
        assert parse("let x = 1\x00").diagnostics[0].code == "E001"

    def test_too_large(self) -> None:
        """More than a million characters is not a spec."""
        assert parse("let x = 1\n" * 200_000).diagnostics[0].code == "E002"

    def test_too_deep(self) -> None:
        """Brackets deeper than the limit are E003, not a crash."""
        text = "let x = " + "(" * 1000 + "1" + ")" * 1000 + "\n"
        assert parse(text).diagnostics[0].code == "E003"
        text = "let x = " + "[" * MAX_NESTING + "]" * MAX_NESTING + "\n"
        assert parse(text).diagnostics == []

    def test_long_unary_chain(self) -> None:
        """A thousand `not`s is an error, not a crash."""
        assert parse("let x = " + "not " * 1000 + "true\n").diagnostics[0].code == "E003"

    def test_empty(self) -> None:
        """An empty file is an empty module."""
        result = parse("")
        assert result.module is not None and result.module.statements == ()

    def test_bom_is_ignored(self) -> None:
        """A UTF-8 byte order mark is not content."""
        assert parse("\ufefflet x = 1\n".encode()).diagnostics == []


class TestSurrogates:
    """A lone surrogate is no character: no writer can encode it, so the parser refuses it."""

    def test_escaped_in_a_text(self) -> None:
        """`\\ud800` in a text literal is E004 at the literal."""
        found = parse('let x = 1\nlet y = "a\\ud800b"\n', "t.eval").diagnostics
        assert [(d.code, d.span.line, d.span.col) for d in found] == [("E004", 2, 9)]
        assert "\\ud800" in found[0].message

    def test_raw_in_the_text(self) -> None:
        """A raw lone surrogate in text handed to the parser is E004 where it stands."""
        found = parse("let x = 1\n# note \udc00\n", "t.eval").diagnostics
        assert [(d.code, d.span.line, d.span.col) for d in found] == [("E004", 2, 8)]

    def test_escaped_pair_is_one_character(self) -> None:
        """A high and a low surrogate escape together spell one character."""
        let = _one('let x = "\\ud83d\\ude00"\n')
        assert isinstance(let, n.Let) and let.value == n.String("\U0001f600", span=None)  # type: ignore[arg-type]

    @pytest.mark.parametrize("where", ['spec "\\udfff"\n', 'let m = {"\\ud800": 1}\n'])
    def test_every_quoted_place(self, where: str) -> None:
        """Titles and quoted map keys are texts too."""
        assert [d.code for d in parse(where).diagnostics] == ["E004"]


class TestLineEndings:
    """`\\r\\n` and a lone `\\r` (old Mac files) end a line as `\\n` does."""

    CR = 'spec "cr"\r# a comment\rcheck a = latency(max_ms: 10)\rmetric r = rate(a)\r'

    def test_cr_only_file_is_read_line_by_line(self) -> None:
        """A comment ends at a `\\r`: the statements after it are read."""
        module = parse(self.CR).module
        assert module is not None
        assert [type(s).__name__ for s in module.statements] == ["SpecHeader", "Check", "Metric"]

    @pytest.mark.parametrize("newline", ["\r", "\r\n", "\n"])
    def test_positions_count_every_line_break(self, newline: str) -> None:
        """Diagnostics give the same line and column whatever ends the lines."""
        text = newline.join(["# one", "let x = 1", "let y = (2", ""])
        found = parse(text, "t.eval").diagnostics
        assert [(d.code, d.span.line, d.span.col) for d in found] == [("E012", 3, 10)]

    def test_fast_path_spans_count_cr(self) -> None:
        """Valid specs (the fast path) carry spans that count `\\r` as a break."""
        module = parse("let x = 1\rlet y = 2\r").module
        assert module is not None
        assert [(s.span.line, s.span.col) for s in module.statements] == [(1, 1), (2, 1)]

    def test_a_text_cannot_span_a_cr(self) -> None:
        """A `\\r` ends a text literal's line as `\\n` does (E013)."""
        assert [d.code for d in parse('let x = "a\rb"\r').diagnostics] == ["E013"]


class TestLaws:
    @PROPERTY
    @given(st.text(max_size=300))
    def test_law_never_raises_on_text(self, text: str) -> None:
        """Law: parsing any text returns a module or diagnostics, never raises."""
        result = parse(text)
        assert (result.module is None) == bool(result.diagnostics)

    @PROPERTY
    @given(st.binary(max_size=300))
    def test_law_never_raises_on_bytes(self, data: bytes) -> None:
        """Law: parsing any bytes returns a module or diagnostics, never raises."""
        parse(data)

    @PROPERTY
    @given(specs())
    def test_law_generated_specs_parse(self, text: str) -> None:
        """Law: every generated spec parses without diagnostics."""
        assert parse(text).diagnostics == []

    @PROPERTY
    @given(specs().flatmap(mutations))
    def test_law_never_raises_on_mutations(self, data: bytes) -> None:
        """Law: broken specs give diagnostics, never exceptions."""
        parse(data)


def _both(text: str) -> tuple[n.Module | None, n.Module | None]:
    from evaldsl.syntax import parser
    from evaldsl.syntax.source import Source

    source = Source(text, "t.eval")
    fast = parser._fast_module(text, source)
    return (fast if isinstance(fast, n.Module) else None,
            parser._lark_module(text, source).module)


def _with_lark(data: bytes) -> tuple[ParseResult, list[Diagnostic] | None]:
    """`parse`'s result, and lark's diagnostics over the whole text where lark decides
    (None for bytes that are not text, or text stopped before lark by a lookalike)."""
    from evaldsl.syntax import parser
    from evaldsl.syntax.lookalikes import lookalikes
    from evaldsl.syntax.source import Source

    result = parse(data, "t.eval")
    try:
        text = parser.one_newline(data.decode("utf-8"))
    except UnicodeDecodeError:
        return result, None
    source = Source(text, "t.eval")
    if parser._input_problem(source) or lookalikes(source):
        return result, None
    return result, parser._lark_module(text, source).diagnostics


class TestFastPath:
    """The fast path runs lark's tables itself; it must build exactly what lark builds."""

    @PROPERTY
    @given(specs())
    def test_law_same_module_and_spans_as_lark(self, text: str) -> None:
        """Law: on generated specs the fast path is taken and equals lark's, spans included."""
        fast, slow = _both(text)
        assert fast is not None
        assert repr(fast) == repr(slow)

    def test_alerts_build_as_lark_builds_them(self) -> None:
        """Alert forms are not generated by `specs()`, so they are compared here."""
        text = ('alert a when poor "m"\n'
                'alert b when rate(poor) > 10% over 1h by case.tenant, case.lang min 30 "m"\n'
                'alert c when (poor_rate >= 0.5) over 15m "m"\n')
        fast, slow = _both(text)
        assert fast is not None and repr(fast) == repr(slow)
        assert [a.metric is not None for a in fast.of_type(n.Alert)] == [False, True, False]

    @PROPERTY
    @given(specs().flatmap(mutations))
    def test_law_same_result_on_broken_input(self, data: bytes) -> None:
        """Law: on broken input the fast path either agrees with lark or steps aside."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return
        fast, slow = _both(text)
        assert fast is None or repr(fast) == repr(slow)

    @PROPERTY
    @given(specs().flatmap(mutations))
    def test_law_same_syntax_error_as_lark(self, data: bytes) -> None:
        """Law: a syntax error is worded as lark words it over the whole text, though lark
        reads only from the statement where the fast path stopped."""
        result, slow = _with_lark(data)
        if slow is not None:
            assert result.diagnostics == slow

    @pytest.mark.parametrize("tail", [
        'check 新检查 = judge(criteria: "清楚", ',  # a call left open: the end comes early
        "check c = judge(criteria: \"a\"))\n",  # closes nothing
        "let z = a < b < c\n",  # a chained comparison
        "outcome o {\n  好 otherwise\n  坏\n}\n",  # a label without `if`
        "let y = 1 2\n",  # a value where an operator belongs
        "check d = judge criteria\n",  # no `(` after the primitive
        "check e = judge(criteria \"a\")\n",  # no `:` after the argument name
        "let w = 1 @ 2\n",  # a character no token starts with
        "frob x\n",  # a name where a statement starts
    ])
    def test_an_error_late_in_a_long_spec_reads_as_lark_reads_it(self, tail: str) -> None:
        """The editor's case: 300 good lines, then the statement being typed."""
        from pathlib import Path

        head = (Path(__file__).resolve().parents[2] / "specs" / "complaint_handling.eval"
                ).read_text("utf-8")
        result, slow = _with_lark((head + "\n" + tail).encode("utf-8"))
        assert slow is not None and slow
        assert result.diagnostics == slow

    def test_corpus(self) -> None:
        """Every spec of the corpus parses the same both ways."""
        from pathlib import Path

        folder = Path(__file__).resolve().parent / "corpus"
        for path in sorted(folder.glob("*/*.eval")):
            fast, slow = _both(path.read_text("utf-8"))
            assert fast is None or repr(fast) == repr(slow), path.name

    def test_deep_input_goes_through_lark(self) -> None:
        """Deep nesting is left to lark, which decides between a module and E003."""
        fast, slow = _both("let x = " + "-" * 400 + "1\n")
        assert fast is None and slow is not None
        assert parse("let x = " + "-" * 2000 + "1\n").diagnostics[0].code == "E003"

    def test_keywords_and_names(self) -> None:
        """Contextual keywords: `sample` is a keyword in review, a name elsewhere."""
        text = "let sample = 1\nreview {\n  sample sample\n}\nlet given = sample\n"
        fast, slow = _both(text)
        assert fast is not None and repr(fast) == repr(slow)
