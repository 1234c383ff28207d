"""The journals of sharded runs folded into one `ShardState`: the report of all their cases.

The shards of one spec run on disjoint case sets (on several machines, or as
several CI jobs) each leave a journal (results.jsonl). Each line is a case's
full result, so folding the lines of every journal into one state is the same
fold a resumed run does with its own journal, and the metrics are recomputed
from the per-case inputs: a merged report equals the report of one run over
all the cases (the worst cases' dialogs aside: journals do not hold them).
report.json alone could not give that, since a metric such as
`rate(a) + 0.5 * rate(b)` or a median cannot be finished from other finished
values. A journal of another spec is refused, and so is a case found in two
journals (the shards were not disjoint); each journal is read as a resumed
run reads its own (`evaldsl.report.journal_read`: the version and every
line's shape checked, a line written twice read once).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from evaldsl.api import Spec
from evaldsl.errors import CaseDataError, OtherSpecError
from evaldsl.i18n import _
from evaldsl.model.requests import ModelStats
from evaldsl.record import CaseRecord
from evaldsl.report.document import ReportDoc, RunInfo
from evaldsl.report.journal import cost_notes, recover
from evaldsl.report.journal_read import check_version, read_entries
from evaldsl.report.layout import SpecLayout
from evaldsl.report.outputs import ReportFiles, tool_version
from evaldsl.results import CaseResult
from evaldsl.run.shards import ShardState


class Sink(Protocol):
    def add(self, record: CaseRecord) -> None: ...


def merge_runs(spec: Spec, journals: Sequence[Path], outputs: ReportFiles | None = None,
               cases: Sequence[Path] = (), generated_by: str | None = None) -> ReportDoc:
    """`evaldsl merge`: the report of every journal's cases (report.json typed), the report
    files of `outputs` written; the HTML page's dialogs are read from `cases` only."""
    outputs = outputs if outputs is not None else ReportFiles()
    outputs.check()
    layout = spec.layout
    junit = outputs.junit_sink(layout)
    explorer = outputs.explorer_sink(layout, _inputs(journals, cases))
    try:
        state = merge_journals(spec, layout, journals,
                               [sink for sink in (junit, explorer) if sink is not None])
    except BaseException:
        if junit is not None:
            junit.discard()
        raise
    if junit is not None:
        junit.finish()
    report = state.report_doc(RunInfo(merged_journals=[str(p) for p in journals]),
                               generated_by=generated_by or tool_version())
    outputs.write(report, explorer)
    return report


def _inputs(journals: Sequence[Path], given: Sequence[Path]) -> tuple[str, ...]:
    """The case files the HTML report reads the dialogs back from: only those given, never
    a file a journal's header names (a journal may come from anywhere). A given file is
    read under the name a header gives the same file, so the journal's rows
    (`cases.jsonl:12`) find it however the command line spells it."""
    if not given:
        return ()
    wanted = {_same_file(path): str(path) for path in given}
    for journal in journals:
        header = recover(journal).header if journal.is_file() else None
        for name in header.inputs if header else ():
            key = _same_file(Path(name))
            if key in wanted and wanted[key] != name and Path(wanted[key]).exists():
                wanted[key] = name
    return tuple(dict.fromkeys(wanted.values()))


def _same_file(path: Path) -> Path | tuple[int, int]:
    """What tells one file from another: its device and inode, else its absolute path."""
    try:
        stat = path.stat()
    except OSError:
        return path.absolute()
    return stat.st_dev, stat.st_ino


def merge_journals(spec: Spec, layout: SpecLayout, paths: Sequence[Path],
                   sinks: Iterable[Sink] = ()) -> ShardState:
    """Every journal's cases in one state; each record also goes to `sinks` (JUnit)."""
    sinks = tuple(sinks)
    state = ShardState.empty(spec, layout)
    owner: dict[str, Path] = {}
    for path in paths:
        _same_spec(path, spec)
        mine: set[str] = set()
        for entry in read_entries(path, state.report.plan):
            _disjoint(entry.id, path, entry.line, owner)
            mine.add(entry.id)
            state.add(CaseResult.from_record(entry.record), entry.record)
            for sink in sinks:
                sink.add(entry.record)
        owner.update(dict.fromkeys(mine, path))
        for cost in cost_notes(path):
            found = stats_of(cost)
            state.stats = found if state.stats is None else state.stats.merge(found)
    return state


def stats_of(cost: dict[str, Any]) -> ModelStats:
    """A journal's cost note (report.json's `cost`) as `ModelStats`, to add up."""
    def get(name: str) -> int:
        value = cost.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    sources = cost.get("cached_by")
    stopped = cost.get("stopped_asking")
    return ModelStats(
        calls=get("model_calls"), cached=get("cached"), retries=get("retries"),
        errors=get("model_errors"), prompt_tokens=get("prompt_tokens"),
        completion_tokens=get("completion_tokens"),
        cache_read_failures=get("cache_read_failures"),
        cache_write_failures=get("cache_write_failures"), not_asked=get("not_asked"),
        stopped=stopped if isinstance(stopped, str) else None, truncated=get("truncated"),
        truncation_retries=get("truncation_retries"),
        cached_by={str(k): v for k, v in sources.items() if isinstance(v, int)}
        if isinstance(sources, dict) else {})


def _same_spec(path: Path, spec: Spec) -> None:
    header = recover(path).header
    check_version(path, header)
    if header is None or header.spec_hash != spec.hash:
        found = (_("hash {hash}").format(hash=header.spec_hash[:12]) if header
                 else _("no header"))
        raise OtherSpecError(_("`{path}` holds results of another spec ({found}, this spec "
                               "{hash})").format(path=path, found=found, hash=spec.hash[:12]))


def _disjoint(case_id: str, path: Path, line: int, owner: dict[str, Path]) -> None:
    """A case id an earlier journal holds means the shards overlap: refuse, as adding both
    would count the case twice."""
    earlier = owner.get(case_id)
    if earlier is not None:
        raise CaseDataError(str(path), line,
                            _("case `{id}` is also in `{earlier}`").format(id=case_id,
                                                                         earlier=earlier),
                            hint=_("merge the journals of disjoint shards (each case in one)"))
