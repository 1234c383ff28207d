"""A fast start: a process pays only for the libraries its spec uses.

Each test runs a fresh interpreter, so what it imports is what a user's
`evaldsl` command imports. Time is not asserted here (benchmarks/startup.py
prints the figures); which modules load is what keeps it fast.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support import run_kit

HEAVY = ("openai", "numpy", "jsonschema", "asyncio", "aiohttp", "httpx", "lark", "yaml",
         "pint", "pygls", "lsprotocol", "ray", "tomllib", "difflib", "pickle",
         "evaldsl.cases.traces", "evaldsl.syntax.formatter", "evaldsl.syntax.lookalikes",
         "evaldsl.primitives.doctexts", "evaldsl.run.driving", "evaldsl.primitives.clock",
         "evaldsl.model.protocols")
"""Libraries a deterministic spec over JSONL cases does not need (lark: only syntax errors;
pygls and lsprotocol: only `evaldsl lsp`; ray: only `--engine ray`; tomllib: only a field
map, `--map`; difflib: only a suggestion for a misspelt name; pickle: only a run split across
processes, `evaldsl.run.shard_bytes`), the trace readers, which a
chat file never needs (`evaldsl.cases.trace_sniff` tells one from a trace file), and what
only a mistake in a spec or a driven run needs: the formatter (a group key written out), the
lookalike characters of text that does not parse, the parameters' docs, an agent's driving;
the times of day of a table's `clock` option, which only such a table reads; and the
judge and embedder protocols, which only a run with model checks uses."""
RUN: list[str] = []
"""What running any spec loads of them: none (msgspec, which encodes the results lines, is not
listed: the syntax tree's nodes are msgspec Structs, so every verb loads it)."""

TABLES = """
table loose (replace: {"'": "\\""}, tolerance: [0.01, 1%], strip) {}
check args = args_match(expected: {d: 4.18}, actual: {name: "f", arguments: {d: 4.184}},
                        table: loose)
metric args_rate = rate(args)
"""

PROBE = """\
import json, sys
from evaldsl.cli.main import main
steps = {}
def loaded():
    return sorted(m for m in HEAVY if m in sys.modules)
import evaldsl
steps["import"] = loaded()
main(["check", SPEC])
steps["check"] = loaded()
code = main(["run", SPEC, CASES, "--results", RESULTS, "-o", REPORT] + EXTRA)
assert code in (0, 1), code
steps["run"] = loaded()
print(json.dumps(steps))
"""


def _probe(tmp_path: Path, spec_text: str, extra: tuple[str, ...] = (),
           env: dict[str, str] | None = None) -> dict[str, list[str]]:
    spec = tmp_path / "spec.eval"
    spec.write_text(spec_text, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    run_kit.write_cases(cases, 20)
    names: dict[str, Any] = {"HEAVY": HEAVY, "SPEC": str(spec), "CASES": str(cases),
                             "RESULTS": str(tmp_path / "results.jsonl"),
                             "REPORT": str(tmp_path / "report.json"), "EXTRA": list(extra)}
    code = "".join(f"{name} = {value!r}\n" for name, value in names.items()) + PROBE
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    steps: dict[str, list[str]] = json.loads(done.stdout.splitlines()[-1])
    return steps


class TestStartup:
    def test_import_loads_only_the_package(self) -> None:
        """`import evaldsl` loads none of the package's submodules, let alone a library."""
        code = ("import sys, evaldsl\n"
                "print(sorted(m for m in sys.modules if m.startswith('evaldsl')))")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True)
        assert done.stdout.strip() == "['evaldsl']"

    def test_deterministic_spec_needs_no_heavy_library(self, tmp_path: Path) -> None:
        """Checking and running a spec without model checks or schemas loads none of them."""
        steps = _probe(tmp_path, run_kit.SPEC)
        assert steps == {"import": [], "check": [], "run": RUN}

    def test_a_schema_that_accepts_any_json_needs_no_validator(self, tmp_path: Path) -> None:
        """`json_schema(schema: {})` asks only that the reply parse as JSON: no jsonschema."""
        text = run_kit.SPEC + "check is_json = json_schema(schema: {}, fenced: false)\n"
        steps = _probe(tmp_path, text)
        assert steps == {"import": [], "check": [], "run": RUN}

    def test_model_check_loads_openai_when_it_runs(self, tmp_path: Path,
                                                   judge_server: Any) -> None:
        """A judged spec brings in the client only to run: checking it stays light."""
        steps = _probe(tmp_path, run_kit.MODEL_SPEC,
                       ("--judge", judge_server.base_url, "--no-cache"),
                       {"EVALDSL_JUDGE_API_KEY": "sk-test"})
        assert steps["check"] == []
        assert {"openai", "asyncio"} <= set(steps["run"])

    def test_tables_without_units_load_no_units_library(self, tmp_path: Path) -> None:
        """`replace` and `tolerance` are plain Python: pint stays out of the process."""
        steps = _probe(tmp_path, run_kit.SPEC + TABLES)
        assert steps == {"import": [], "check": [], "run": RUN}

    def test_a_units_table_loads_pint_when_checked(self, tmp_path: Path) -> None:
        """The checker asks pint whether the units exist: only then is it imported."""
        spec = run_kit.SPEC + TABLES.replace("strip", 'units: "km"')
        steps = _probe(tmp_path, spec)
        assert steps["import"] == [] and "pint" in steps["check"]

    def test_the_program_freezes_what_its_start_built(self, tmp_path: Path) -> None:
        """`evaldsl run` as the program holds the cycle collector while it starts, then freezes
        what the start built (`evaldsl.cli.collector`): no collection walks it again."""
        spec = tmp_path / "spec.eval"
        spec.write_text(run_kit.SPEC, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        run_kit.write_cases(cases, 5)
        argv = ["evaldsl", "run", str(spec), str(cases), "-o", str(tmp_path / "r.json"), "-q"]
        code = ("import gc, sys\nfrom evaldsl.cli.main import main\n"
                f"sys.argv = {argv!r}\ncode = main()\n"
                "print(code, gc.isenabled(), gc.get_freeze_count())")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stderr
        code_, enabled, frozen = done.stdout.split()
        assert (code_, enabled) == ("0", "True")
        assert int(frozen) > 10_000

    def test_checking_asks_importlib_metadata_for_no_distribution(self, tmp_path: Path) -> None:
        """Neither evaldsl's plugins nor pydantic's are searched for through
        `importlib.metadata.distributions` when the scan of `sys.path` finds none declared
        (`evaldsl.primitives.plugins`): that search reads every installed distribution."""
        spec = tmp_path / "spec.eval"
        spec.write_text(run_kit.SPEC, encoding="utf-8")
        code = ("import importlib.metadata as m\ncalls = []\nfound = m.distributions\n"
                "m.distributions = lambda *a, **k: calls.append(1) or found(*a, **k)\n"
                "from evaldsl.cli.main import main\n"
                f"code = main(['check', {str(spec)!r}])\nprint(code, len(calls))")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split()[-2:] == ["0", "0"]

    def test_checking_builds_only_the_params_models_a_spec_calls(self, tmp_path: Path) -> None:
        """A params model's validator is built on its first use (`defer_build`): `regex`
        shares its module with `keyword` and `length`, yet a spec that does not call it pays
        nothing for it, nor for the base models."""
        spec = tmp_path / "spec.eval"
        spec.write_text(run_kit.SPEC, encoding="utf-8")
        code = ("from evaldsl.cli.main import main\n"
                f"code = main(['check', {str(spec)!r}])\n"
                "from evaldsl.stdlib import text, _common\n"
                "from evaldsl.model import checks\n"
                "models = [text.KeywordParams, text.LengthParams, text.RegexParams,\n"
                "          _common.Params, checks.ModelParams]\n"
                "print(code, [m.__name__ for m in models if m.__pydantic_complete__])")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stderr
        last = done.stdout.splitlines()[-1]
        assert last == "0 ['KeywordParams', 'LengthParams']"

    def test_a_clock_table_loads_the_clock_reader(self, tmp_path: Path) -> None:
        """The times of day are read only for a table with the `clock` option."""
        clock = ('table times (clock) {}\n'
                 'check at_half_past = keyword(any: ["16:30"], table: times)\n')
        steps = _probe(tmp_path, run_kit.SPEC + clock)
        assert steps["import"] == [] and "evaldsl.primitives.clock" in steps["run"]
