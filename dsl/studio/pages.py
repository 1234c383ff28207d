"""The studio's pages: one HTML shell per page, its words in the UI's language.

Each page is a small template in `static/` with `$`-placeholders; what the scripts show
comes as a JSON island (`ui`), so the JavaScript holds no English of its own and the
Chinese comes from the same catalogue as every other message.
"""

from __future__ import annotations

import html
from pathlib import Path
from string import Template
from typing import Any

from aiohttp import web

from evaldsl.i18n import _, current_language
from evaldsl.report.explorer import page_json
from evaldsl.studio.state import GUARD_KEY, RUNS_KEY, SPEC_KEY

STATIC = Path(__file__).parent / "static"


def words() -> dict[str, str]:
    """Every text the scripts show, in the language of the moment."""
    return {
        "editor": _("Editor"), "run": _("Run"), "results": _("Results"),
        "review": _("Review"), "save": _("Save"), "saved": _("saved"),
        "unsaved": _("unsaved changes"), "format": _("Format"),
        "problems": _("Problems"), "no_problems": _("no problems"),
        "fix": _("Quick fix"), "hover_empty": _("place the cursor on a name to see what it is"),
        "run_examples": _("Run the examples"), "run_cases": _("Run over a cases file"),
        "cases_file": _("cases file"), "sample": _("sample size (empty: every case)"),
        "seed": _("seed"), "progress": _("{done} of {total} done"),
        "progress_open": _("{done} done"), "open_results": _("Open the results"),
        "passed": _("passed"), "failed": _("failed"), "running": _("running"),
        "cases_note": _("a cases run reads the saved spec: save first"),
        "request_failed": _("the studio did not answer: {error}"),
        "error": _("error"), "warning": _("warning"), "help": _("help"),
    }


def render(request: web.Request, name: str, title: str, markup: str = "",
           **fields: str) -> web.Response:
    """The page `name` in the shell: navigation, language switch, the scripts' words and
    the token of this start its writes carry; `fields` are text (escaped here), `markup`
    is HTML built from escaped parts."""
    shell = Template((STATIC / "shell.html").read_text("utf-8"))
    body = Template((STATIC / f"{name}.html").read_text("utf-8")).substitute(
        {k: html.escape(v) for k, v in fields.items()} | _nav_words(), markup=markup)
    text = shell.substitute(lang=current_language(), title=html.escape(title), body=body,
                            ui=page_json(words()), page=name,
                            token=html.escape(request.app[GUARD_KEY].token or ""),
                            **_nav_words())
    return web.Response(text=text, content_type="text/html", charset="utf-8")


def _nav_words() -> dict[str, str]:
    return {k: html.escape(v) for k, v in words().items()}


def note_page(request: web.Request, title: str, note: str) -> web.Response:
    return render(request, "note", title, note=note)


async def editor(request: web.Request) -> web.Response:
    spec = request.app[SPEC_KEY]
    return render(request, "editor", _("{spec} · evaldsl studio").format(spec=spec.name),
                  spec=str(spec))


async def run_page(request: web.Request) -> web.Response:
    spec = request.app[SPEC_KEY]
    return render(request, "run", _("Run {spec}").format(spec=spec.name), spec=str(spec))


async def results_list(request: web.Request) -> web.Response:
    done = [r for r in request.app[RUNS_KEY].all.values() if r.page is not None]
    items = "".join(
        f'<li><a href="/results/{r.id}">{html.escape(_run_title(r.kind, r.id))}</a> — '
        f"{html.escape(r.message)}</li>" for r in reversed(done))
    listing = f"<ul id='result-list'>{items}</ul>" if items else ""
    return render(request, "results", _("Results"), listing,
                  note="" if items else _("no run yet: start one on the run page"))


def _run_title(kind: str, ident: str) -> str:
    if kind == "examples":
        return _("run {id}: the examples").format(id=ident)
    return _("run {id}: a cases file").format(id=ident)


async def results(request: web.Request) -> web.Response:
    """The run's HTML report, as `evaldsl run --html` writes it."""
    run: Any = request.app[RUNS_KEY].all.get(request.match_info["id"])
    if run is None or run.page is None:
        raise web.HTTPNotFound(text=_("no results for this run"))
    return web.Response(text=run.page, content_type="text/html", charset="utf-8")
