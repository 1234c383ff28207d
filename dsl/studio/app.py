"""The studio's aiohttp application: its pages, its endpoints and what guards them.

A local app is still reachable from any page the user's browser opens, so the studio
stands behind the shared guard (`evaldsl.webguard`): every request must name this server
as its host (no DNS rebinding) and every write must come from the studio's own pages: a
JSON body, the studio's origin when the browser says one, and the token of this start,
which only the studio's pages hold.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from evaldsl.errors import EvaldslError
from evaldsl.i18n import _, current_language, set_language
from evaldsl.service import LanguageService
from evaldsl.studio import editor_api, pages
from evaldsl.studio.editor_api import read_json
from evaldsl.studio.review_mount import mount_review
from evaldsl.studio.runs import Runs
from evaldsl.studio.state import GUARD_KEY, RUNS_KEY, SERVICE_KEY, SPEC_KEY, URI_KEY
from evaldsl.webguard import Guard

STATIC = Path(__file__).parent / "static"


def make_app(spec: Path, folder: Path | None = None,
             review: Path | None = None) -> web.Application:
    """The studio over `spec`; child runs keep their files under `folder`
    (`.evaldsl-studio` beside the spec unless told); the review store `review`,
    when given, is labelled at `/review/`."""
    guard = Guard(browser=True)
    app = web.Application(middlewares=[guard.middleware()], client_max_size=8 * 1024 * 1024)
    app[GUARD_KEY] = guard
    app[SPEC_KEY] = spec
    app[SERVICE_KEY] = LanguageService()
    app[URI_KEY] = spec.resolve().as_uri()
    app[RUNS_KEY] = Runs(folder if folder is not None else spec.parent / ".evaldsl-studio")
    app.add_routes([web.get("/", pages.editor), web.get("/run", pages.run_page),
                    web.get("/results", pages.results_list),
                    web.get("/results/{id}", pages.results),
                    web.get("/api/spec", spec_text), web.post("/api/save", save),
                    web.post("/api/run", start_run), web.get("/api/run/{id}", run_state),
                    web.post("/api/lang", choose_language),
                    web.static("/static", STATIC), *editor_api.routes()])
    mount_review(app, review)
    app.on_cleanup.append(_stop_runs)
    return app


async def _stop_runs(app: web.Application) -> None:
    await app[RUNS_KEY].close()


async def spec_text(request: web.Request) -> web.Response:
    path = request.app[SPEC_KEY]
    text = path.read_text("utf-8") if path.is_file() else ""
    return web.json_response({"name": str(path), "text": text})


async def save(request: web.Request) -> web.Response:
    """Write the editor's text to the spec file (what a cases run reads)."""
    text = (await read_json(request)).get("text")
    if not isinstance(text, str):
        raise web.HTTPBadRequest(text=_("`text` must be a string"))
    from evaldsl.atomic import replace_file

    path = request.app[SPEC_KEY]
    try:
        replace_file(path, text)
    except EvaldslError as exc:
        raise web.HTTPConflict(text=str(exc)) from exc
    return web.json_response({"saved": str(path)})


async def start_run(request: web.Request) -> web.Response:
    body = await read_json(request)
    runs, spec = request.app[RUNS_KEY], request.app[SPEC_KEY]
    if body.get("kind") == "examples":
        text = body.get("text")
        if not isinstance(text, str):
            raise web.HTTPBadRequest(text=_("`text` must be a string"))
        return web.json_response(runs.start_examples(text, str(spec)).as_json())
    cases, sample, seed = body.get("cases"), body.get("sample"), body.get("seed")
    if not isinstance(cases, str) or not cases.strip():
        raise web.HTTPBadRequest(text=_("name a cases file"))
    path = Path(cases.strip()).expanduser()
    path = path if path.is_absolute() else spec.parent / path
    if not path.is_file():
        raise web.HTTPBadRequest(text=_("no cases file `{path}`").format(path=path))
    if not (_whole(sample, 1) and _whole(seed, 0)):
        raise web.HTTPBadRequest(text=_("the sample size and seed must be whole numbers"))
    return web.json_response(runs.start_cases(spec, path, sample, seed).as_json())


def _whole(value: object, least: int) -> bool:
    """Unset, or an integer (not a boolean) of at least `least`."""
    return value is None or (isinstance(value, int) and not isinstance(value, bool)
                             and value >= least)


async def run_state(request: web.Request) -> web.Response:
    run = request.app[RUNS_KEY].all.get(request.match_info["id"])
    if run is None:
        raise web.HTTPNotFound(text=_("no such run"))
    return web.json_response(run.as_json())


async def choose_language(request: web.Request) -> web.Response:
    """The UI's language, and the service's: its cached answers were in the other one."""
    language = (await read_json(request)).get("lang")
    if not isinstance(language, str) or language not in ("en", "zh"):
        raise web.HTTPBadRequest(text=_("the languages are en and zh"))
    if language != current_language():
        set_language(language)
        request.app[SERVICE_KEY].close(request.app[URI_KEY])
    return web.json_response({"lang": language})
