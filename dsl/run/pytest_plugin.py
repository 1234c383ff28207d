"""pytest plugin: a spec's `example` blocks as pytest items.

Installed with evaldsl (entry point `pytest11: evaldsl`), so it is active in
every pytest run on the machine; it therefore collects nothing unless asked,
and imports evaldsl's evaluator only when it does. A `.eval` file is collected
when

- it is named on the command line: `pytest specs/repair_booking.eval`;
- it lies under a folder named on the command line and `--evaldsl` is given:
  `pytest specs --evaldsl`;
- it lies under a folder listed in the ini option `evaldsl_specs`
  (`[tool.pytest.ini_options] evaldsl_specs = ["specs"]`) and pytest walks
  there.

Each example is one item named after it; a failing `expect` shows the line,
what it evaluated to and the case's trace. A spec with errors is one failing
item showing the diagnostics.

This module is only the adapter to pytest (the one module of evaldsl that
imports it): running and explaining examples is `evaldsl.run.spec_tests`, which
`evaldsl test` uses without pytest installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaldsl.errors import ExampleFailed

INI_OPTION = "evaldsl_specs"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("evaldsl")
    group.addoption("--evaldsl", action="store_true", default=False,
                    help="collect the examples of .eval files under the paths given")
    parser.addini(INI_OPTION, type="paths", default=[],
                  help="folders whose .eval files' examples pytest collects")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".eval" or not _wanted(file_path, parent.config):
        return None
    return SpecFile.from_parent(parent, path=file_path)


def _wanted(path: Path, config: pytest.Config) -> bool:
    path = path.resolve()
    named = [Path(str(a).split("::")[0]).resolve() for a in config.invocation_params.args
             if not str(a).startswith("-")]
    if path in named:
        return True
    if config.getoption("--evaldsl") and any(_under(path, p) for p in named):
        return True
    roots: list[Path] = config.getini(INI_OPTION)
    return any(_under(path, Path(r).resolve()) for r in roots)


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


class SpecFile(pytest.File):
    """A `.eval` file: one item per example."""

    def collect(self) -> Iterator[pytest.Item]:
        from evaldsl.api import load
        from evaldsl.errors import SpecError
        from evaldsl.run.spec_tests import examples_of

        try:
            spec = load(self.path)
        except SpecError as exc:
            yield SpecErrorItem.from_parent(self, name="spec", message=str(exc))
            return
        for example in examples_of(spec):
            yield ExampleItem.from_parent(self, name=example.name, spec=spec, example=example)


class _SpecItem(pytest.Item):
    """An item of a spec file, with the `funcargs` a Python test function has.

    Some plugins wrap every test call and read `item.funcargs` first (pytest-lsp 1.0
    returns without yielding when it is missing, so every spec item fails); an item
    without fixtures has none to show them.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.funcargs: dict[str, object] = {}


class ExampleItem(_SpecItem):
    def __init__(self, *, spec: Any, example: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.example = example

    def runtest(self) -> None:
        from evaldsl.run.spec_tests import failure_report, run_example

        outcome = run_example(self.spec, self.example)
        if not outcome.passed:
            raise ExampleFailed(failure_report(outcome))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, ExampleFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.example.span.line - 1, f"example {self.example.name!r}"


class SpecErrorItem(_SpecItem):
    def __init__(self, *, message: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message

    def runtest(self) -> None:
        raise ExampleFailed(self.message)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, "spec errors"
