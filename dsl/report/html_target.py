"""The HTML report's section on the agent under test, after a driven run.

It shows what the terminal's `agent` and `simulated user` lines say (`report.terminal`):
conversations, the agent's errors and reply latencies, and, when a model played the users,
the simulator's own failures by kind, which are error cases of the run and not the agent's.
"""

from __future__ import annotations

from typing import Any

from evaldsl.i18n import _
from evaldsl.report.document import Simulator, Target
from evaldsl.report.html_pieces import esc, section
from evaldsl.report.simulator_failures import KIND_WORDS
from evaldsl.report.terminal import failure_kinds, ms


def target_section(target: Target | None) -> str:
    """The `agent` section, or nothing for a run that judged recorded dialogs."""
    if target is None:
        return ""
    latency = target.latency_ms
    rows = [(_("agent"), f"{target.name} ({target.kind})"),
            (_("conversations"), target.conversations),
            (_("agent errors"), target.errors), (_("replies"), target.replies),
            *((_("latency {p}").format(p=p), ms(v))
              for p, v in (("p50", latency.p50), ("p90", latency.p90), ("p99", latency.p99)))]
    body = _rows(rows, "target-table")
    if isinstance(target.simulator, Simulator):
        body += "\n" + _simulator(target.simulator)
    return section("target", _("Agent under test"), body)


def _simulator(simulator: Simulator) -> str:
    rows = [(_("simulated conversations"), simulator.conversations),
            (_("simulator failures"), f"{simulator.failures} / "
                                      f"{simulator.conversations} ({simulator.rate:.1%})"),
            *((_(KIND_WORDS[kind]), count) for kind, count in failure_kinds(simulator))]
    note = esc(_("A simulator failure is an error case of the run, not counted among the "
                 "agent's errors."))
    return (f"<h3>{esc(_('Simulated user'))}</h3>\n<p>{note}</p>\n"
            + _rows(rows, "simulator-table"))


def _rows(rows: list[tuple[str, Any]], ident: str) -> str:
    cells = "\n".join(f'<tr><td>{esc(name)}</td><td class="num">{esc(value)}</td></tr>'
                      for name, value in rows)
    return f'<table id="{ident}"><tbody>\n{cells}\n</tbody></table>'
