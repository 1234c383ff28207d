"""The engine API: loading, typed errors, evaluation and reports."""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

import evaldsl
from evaldsl.diagnostics import render
from evaldsl.errors import CaseDataError
from tests.support import interpreter_kit as kit
from tests.support.long_specs import let_chain, many_checks

REPO = Path(__file__).resolve().parents[1]
TEXT = 'check a = probe(key: "a")\noutcome {\n  ok if a\n  bad otherwise\n}\n' \
       "metric ok_rate = rate(ok)\n"


class TestLoad:
    def test_from_text_and_from_a_path(self, tmp_path: Path) -> None:
        """`loads` takes the text, `load` a path (a `Path` or a `str`): the same spec."""
        registry = kit.make_kit().registry
        path = tmp_path / "s.eval"
        path.write_text(TEXT, "utf-8")
        from_text = evaldsl.loads(TEXT, registry=registry)
        from_path = evaldsl.load(path, registry=registry)
        from_str_path = evaldsl.load(str(path), registry=registry)
        assert from_text.hash == from_path.hash == from_str_path.hash
        assert from_path.source.name == str(path)
        assert from_text.source.name == "<spec>"
        assert from_text.outcomes == {"outcome": ("ok", "bad")}
        assert from_text.checks == ("a",) and from_text.metrics == ("ok_rate",)

    def test_long_one_line_text_is_text(self) -> None:
        """`loads` never takes its text for a path: one line over 255 bytes is just a spec."""
        text = 'check a = probe(key: "a") ' + " ".join(
            f"metric m{i} = rate(a)" for i in range(30))
        assert "\n" not in text and len(text) > 255
        spec = evaldsl.loads(text, registry=kit.make_kit().registry, name="one.eval")
        assert len(spec.metrics) == 30 and spec.source.name == "one.eval"

    def test_a_path_is_never_read_as_text(self, tmp_path: Path) -> None:
        """`load` of spec text is a spec error naming the file it could not read, not an OSError."""
        text = 'check a = probe(key: "a") ' + "metric m = rate(a) " * 20
        with pytest.raises(evaldsl.SpecError, match="cannot read spec"):
            evaldsl.load(text, registry=kit.make_kit().registry)
        with pytest.raises(evaldsl.SpecError, match="cannot read spec"):
            evaldsl.load('check a = probe(key: "a")', registry=kit.make_kit().registry)

    def test_a_spec_with_errors_raises_spec_error_with_diagnostics(self) -> None:
        with pytest.raises(evaldsl.SpecError) as info:
            evaldsl.loads('check a = probe(key: "a")\noutcome {\n  ok if b\n  no otherwise\n}',
                          registry=kit.make_kit().registry)
        assert info.value.diagnostics[0].code == "E101"
        assert "3 |   ok if b" in str(info.value)
        assert isinstance(info.value, evaldsl.EvaldslError)

    def test_spec_bytes_are_read_as_utf8(self) -> None:
        registry = kit.make_kit().registry
        assert evaldsl.loads(TEXT.encode(), registry=registry).hash == \
            evaldsl.loads(TEXT, registry=registry).hash
        with pytest.raises(evaldsl.SpecError) as info:
            evaldsl.loads(b"check a = \xff", registry=registry)
        assert info.value.diagnostics[0].code == "E001"

    def test_a_lone_surrogate_is_a_spec_error(self) -> None:
        """Raw text with a lone surrogate is E004, not a crash in a writer later."""
        with pytest.raises(evaldsl.SpecError) as info:
            evaldsl.loads('spec "a\udc00"\n' + TEXT, registry=kit.make_kit().registry)
        assert [d.code for d in info.value.diagnostics] == ["E004"]

    def test_a_missing_file_is_a_spec_error(self, tmp_path: Path) -> None:
        with pytest.raises(evaldsl.SpecError, match="cannot read spec"):
            evaldsl.load(str(tmp_path / "missing.eval"))

    def test_the_checkers_warnings_are_on_the_loaded_spec(self) -> None:
        """A spec that loads may still draw warnings (a let nothing reads): `spec.warnings`
        holds them as `Diagnostic`s, rendered as `evaldsl check` prints them."""
        spec = evaldsl.loads(TEXT + "let spare = 1\n", registry=kit.make_kit().registry,
                             name="w.eval")
        assert [(d.code, d.message) for d in spec.warnings] == [
            ("W102", "the let `spare` is never used")]
        assert all(isinstance(d, evaldsl.Diagnostic) for d in spec.warnings)
        assert render(spec.warnings[0], spec.source).startswith(
            "w.eval:7:5: warning[W102]: the let `spare` is never used")
        assert evaldsl.loads(TEXT, registry=kit.make_kit().registry).warnings == ()

    def test_cases_may_be_dicts_or_case_objects(self) -> None:
        spec = evaldsl.loads(TEXT, registry=kit.make_kit().registry)
        as_dict = spec.evaluate(kit.case("x", a=1.0))
        as_case = spec.evaluate(evaldsl.Case.from_dict(kit.case("x", a=1.0)))
        assert as_dict == as_case and as_dict.label == "ok"
        with pytest.raises(TypeError):
            spec.evaluate(42)  # type: ignore[arg-type]

    def test_a_malformed_case_is_a_case_data_error_naming_the_field(self) -> None:
        """A dict is checked as a case file's row is: the same words, the field named."""
        spec = evaldsl.loads(TEXT, registry=kit.make_kit().registry)
        with pytest.raises(CaseDataError) as info:
            spec.evaluate({"id": "x", "messages": "hello"})
        assert info.value.field == "messages"
        assert "expected a list of messages" in str(info.value)
        with pytest.raises(CaseDataError) as info:
            spec.evaluate({"id": "x", "messages": [{"role": "bot", "content": "hi"}]})
        assert info.value.field == "messages[0].role"

    def test_a_case_violating_the_case_block_is_a_case_data_error(self) -> None:
        spec = evaldsl.loads("case {\n  intent: text\n}\n" + TEXT,
                            registry=kit.make_kit().registry)
        with pytest.raises(CaseDataError) as info:
            spec.evaluate(kit.case("x", a=1.0))
        assert info.value.field == "intent"


class TestReport:
    def test_counts_metrics_and_summary(self) -> None:
        spec = evaldsl.loads(TEXT, registry=kit.make_kit().registry)
        report = spec.run([kit.case("x", a=1.0), kit.case("y", a=0.0), kit.case("z")])
        data = report.to_dict()
        assert data["cases"] == 3
        assert data["outcomes"] == {"outcome": {"ok": 1, "bad": 1, "error": 1}}
        assert data["metrics"]["ok_rate"]["denominator"] == 2
        assert data["metrics"]["ok_rate"]["errors"] == 1
        assert "ok_rate 50.0% (1/2; 1 error left out)" in report.summary()

    def test_an_aggregate_written_in_an_alert_is_reported_as_a_metric(self) -> None:
        """`run` shows the figure the windowed alert reads, under the alert's name, with the
        same denominator as the declared metric of the same formula."""
        text = TEXT + 'alert few_ok when rate(ok) < 90% over 1h "ok rate below 90%"\n'
        spec = evaldsl.loads(text, registry=kit.make_kit().registry)
        assert spec.metrics == ("ok_rate", "few_ok")
        data = spec.run([kit.case("x", a=1.0), kit.case("y", a=0.0), kit.case("z")]).to_dict()
        assert data["metrics"]["few_ok"] == data["metrics"]["ok_rate"]

    def test_an_unknown_metric_names_the_known_ones(self) -> None:
        report = evaldsl.loads(TEXT, registry=kit.make_kit().registry).new_report()
        with pytest.raises(evaldsl.EvaldslError) as info:
            report.metric("ok_rat")
        assert str(info.value) == "unknown metric `ok_rat` (metrics: `ok_rate`)"
        assert info.value.hint == "did you mean `ok_rate`?"  # type: ignore[attr-defined]
        with pytest.raises(KeyError):
            report.metric("nope")

    def test_reports_of_different_specs_do_not_merge(self) -> None:
        registry = kit.make_kit().registry
        one = evaldsl.loads(TEXT, registry=registry).new_report()
        other = evaldsl.loads(TEXT + "\n# changed\n", registry=registry).new_report()
        with pytest.raises(evaldsl.EvaldslError, match="different specs"):
            one.merge(other)


class TestMemory:
    """`Spec.run` is flat in the cases, as `evaldsl run` is: its report holds counters, not
    a record per case, unless the caller asks it to keep them."""

    @staticmethod
    def held(n: int, **options: bool) -> int:
        """Bytes a report of `n` cases from `spec.run` still holds."""
        spec = evaldsl.loads(TEXT, registry=kit.make_kit().registry)
        gc.collect()
        tracemalloc.start()
        try:
            report = spec.run((kit.case(f"c{i}", a=float(i % 2)) for i in range(n)),
                              **options)
            gc.collect()
            size = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        assert report.cases == n
        return size

    def test_a_run_report_holds_nothing_per_case(self) -> None:
        small, large = self.held(200), self.held(2200)
        assert large - small < 100_000, f"{(large - small) / 2000:.0f} bytes held per case"

    def test_keep_cases_keeps_each_case_record(self) -> None:
        spec = evaldsl.loads(TEXT, registry=kit.make_kit().registry)
        kept = spec.run([kit.case("x", a=1.0), kit.case("y")], keep_cases=True)
        assert [r.id for r in kept.case_records or ()] == ["x", "y"]
        assert spec.run([kit.case("x", a=1.0)]).case_records is None
        assert self.held(2200, keep_cases=True) - self.held(200, keep_cases=True) > 100_000

    def test_a_report_that_kept_no_cases_says_how_to_keep_them(self, tmp_path: Path) -> None:
        spec = evaldsl.loads(TEXT, registry=kit.make_kit().registry)
        with pytest.raises(evaldsl.EvaldslError, match="keep_cases=True"):
            spec.run([kit.case("x", a=1.0)]).write_junit(tmp_path / "junit.xml")


class TestReportFiles:
    """A report from Python writes what `evaldsl run` writes, and reads report.json back."""

    @pytest.fixture
    def report(self) -> evaldsl.Report:
        spec = evaldsl.loads(TEXT, registry=kit.make_kit().registry)
        return spec.run([kit.case("x", a=1.0), kit.case("y", a=0.0), kit.case("z"),
                         kit.case("w", a=1.0)], keep_cases=True)

    def test_write_json_follows_the_published_schema(self, report: evaldsl.Report,
                                                     tmp_path: Path) -> None:
        path = report.write_json(tmp_path / "out" / "report.json")
        data = json.loads(path.read_text("utf-8"))
        schema = json.loads((REPO / "docs" / "report.schema.json").read_text("utf-8"))
        jsonschema.validate(data, schema)
        assert data["cases"]["evaluated"] == 4
        assert data["outcomes"][0]["counts"] == {"ok": 2, "bad": 1, "error": 1}
        assert [c["name"] for c in data["checks"]] == ["a"]
        assert data["worst_cases"][0]["dialog"][0]["content"] == "hello"

    def test_html_and_markdown_are_the_writers_of_run(self, report: evaldsl.Report,
                                                      tmp_path: Path) -> None:
        from evaldsl.report.explorer import Explorer
        from evaldsl.report.html import render_html
        from evaldsl.report.markdown import render_markdown

        published = report.to_report()
        html = report.write_html(tmp_path / "r.html").read_text("utf-8")
        cases = Explorer(report.details.layout)
        for result in self._results():
            cases.add(result.to_record())
        assert html == render_html(published, cases), "every case explored, as `run` does"
        markdown = report.write_markdown(tmp_path / "r.md").read_text("utf-8")
        assert markdown == render_markdown(published)
        assert report.write(tmp_path / "r2.md", format="markdown").read_text("utf-8") == markdown

    def test_write_junit_is_the_junit_of_run(self, report: evaldsl.Report,
                                             tmp_path: Path) -> None:
        """One test per case, as `run --junit` writes it: ok passes, bad fails, error errs."""
        from evaldsl.report.junit import write_junit

        records = [report_case.to_record() for report_case in self._results()]
        write_junit(tmp_path / "cli.xml", report.title, records, frozenset({"ok"}))
        written = report.write_junit(tmp_path / "api.xml").read_text("utf-8")
        assert written == (tmp_path / "cli.xml").read_text("utf-8")
        assert 'tests="4" failures="1" errors="1"' in written
        wider = report.write_junit(tmp_path / "wide.xml", passing=["ok", "bad"])
        assert 'failures="0" errors="1"' in wider.read_text("utf-8")

    def test_a_report_without_its_cases_writes_no_junit(self, report: evaldsl.Report,
                                                        tmp_path: Path) -> None:
        back = evaldsl.Report.from_json(report.write_json(tmp_path / "report.json"))
        with pytest.raises(evaldsl.EvaldslError, match="evaldsl run --junit"):
            back.write_junit(tmp_path / "r.xml")

    @staticmethod
    def _results() -> list[evaldsl.CaseResult]:
        spec = evaldsl.loads(TEXT, registry=kit.make_kit().registry)
        return [spec.evaluate(c) for c in (kit.case("x", a=1.0), kit.case("y", a=0.0),
                                           kit.case("z"), kit.case("w", a=1.0))]

    def test_an_unknown_format_names_the_known_ones(self, report: evaldsl.Report,
                                                    tmp_path: Path) -> None:
        with pytest.raises(evaldsl.EvaldslError, match="unknown report format `pdf`"):
            report.write(tmp_path / "r.pdf", format="pdf")

    def test_from_json_reads_back_every_reported_figure(self, report: evaldsl.Report,
                                                        tmp_path: Path) -> None:
        back = evaldsl.Report.from_json(report.write_json(tmp_path / "report.json"))
        assert back.to_report_json() == report.to_report_json()
        assert (back.title, back.spec_hash, back.cases) == \
            (report.title, report.spec_hash, report.cases)
        assert back.counts == report.counts
        assert back.metrics == report.metrics and back.metric("ok_rate") == \
            report.metric("ok_rate")
        assert {n: vars(t) for n, t in back.checks.items()} == \
            {n: vars(t) for n, t in report.checks.items()}
        assert back.summary() == report.summary()

    def test_a_formula_metric_reads_back_with_its_parts(self, tmp_path: Path) -> None:
        """Parts, template and bootstrap interval survive report.json, as `summary` shows."""
        spec = evaldsl.loads(TEXT + "metric mixed = rate(ok) + 0.5 * rate(bad)\n",
                             registry=kit.make_kit().registry)
        report = spec.run([kit.case("x", a=1.0), kit.case("y", a=0.0), kit.case("w", a=1.0)])
        back = evaldsl.Report.from_json(report.write_json(tmp_path / "report.json"))
        assert back.metric("mixed") == report.metric("mixed")
        assert report.metric("mixed").interval is not None
        assert "rate(ok) 0.667 (2/3) + 0.5 × rate(bad) 0.333 (1/3)" in back.summary()

    def test_a_report_read_back_takes_no_more_cases(self, report: evaldsl.Report,
                                                    tmp_path: Path) -> None:
        back = evaldsl.Report.from_json(report.write_json(tmp_path / "report.json"))
        with pytest.raises(evaldsl.EvaldslError, match="evaldsl merge"):
            back.merge(report)


class TestNoHiddenLayers:
    def test_a_checker_that_cannot_be_imported_fails_loudly(
            self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A broken install never loads a spec unchecked."""
        monkeypatch.setitem(sys.modules, "evaldsl.checker", None)
        with pytest.raises(ImportError):
            evaldsl.loads(TEXT, registry=kit.make_kit().registry)


def _steps(work: Callable[[], object]) -> int:
    """Lines of Python `work` runs: a measure of work that no load on the machine moves.

    Lines, not calls: a scan inside one generator (`next(c for c in checks if ...)`) is one
    call however long it runs, but a line per item it looks at.
    """
    count = 0

    def tally(frame: object, event: str, arg: object) -> object:
        nonlocal count
        count += 1
        return tally

    sys.settrace(tally)
    try:
        work()
    finally:
        sys.settrace(None)
    return count


class TestLongSpecs:
    """Loading, checking and running grow linearly with a spec (docs/language.md, Limits)."""

    def _load_and_run(self, text: str) -> Callable[[], object]:
        registry = kit.make_kit().registry
        return lambda: evaldsl.loads(text, registry=registry).evaluate(
            {**kit.case("c", a=0.9), "x": 1})

    def test_a_chain_of_lets_costs_linear_work(self) -> None:
        """Twice the lets, twice the steps (2.0 measured; a quadratic step makes it more)."""
        self._load_and_run(let_chain(50))()
        small, large = (_steps(self._load_and_run(let_chain(n))) for n in (1000, 2000))
        assert large < 2.1 * small

    def test_many_checks_cost_linear_work(self) -> None:
        """Twice the checks, twice the steps (a scan for a check by name made it 2.27)."""
        self._load_and_run(many_checks(50))()
        small, large = (_steps(self._load_and_run(many_checks(n))) for n in (1000, 2000))
        assert large < 2.1 * small


class TestLayout:
    def test_the_layout_reads_the_syntax_tree_the_spec_was_loaded_from(
            self, monkeypatch: pytest.MonkeyPatch) -> None:
        """`Spec.layout` does not parse the spec a second time, and says what parsing says."""
        from evaldsl.report import layout

        spec = evaldsl.load(Path(__file__).parent.parent / "specs" / "hospital_registration.eval")
        parsed = layout.layout_of(spec.source, spec.source.name)

        def no_parsing(*args: object, **kwargs: object) -> None:
            raise AssertionError("the spec was parsed again")

        monkeypatch.setattr(layout, "parse", no_parsing)
        assert spec.layout == parsed
        assert parsed.metrics and parsed.blocks
