"""The review queue at `/review/`: the review app over the store `--review` names.

The review app is its own aiohttp application (`evaldsl.review.web`); the studio
mounts it as a sub-app, so its pages and API sit under `/review/` behind the
studio's own guard. Without a store the page says how to give one.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from evaldsl.i18n import _
from evaldsl.studio.state import GUARD_KEY


def mount_review(app: web.Application, store: Path | None) -> None:
    app.router.add_get("/review", _to_folder)
    if store is None:
        app.router.add_get("/review/", _missing)
        return
    from evaldsl.review.store import open_store
    from evaldsl.review.web import make_app

    app.add_subapp("/review/", make_app(open_store(store), guard=app[GUARD_KEY]))


async def _to_folder(request: web.Request) -> web.Response:
    """`/review` to `/review/`, where a sub-app's own `/` is."""
    raise web.HTTPFound("/review/")


async def _missing(request: web.Request) -> web.Response:
    from evaldsl.studio.pages import note_page

    return note_page(request, _("review queue"), _(
        "no review store is open: start the studio with `--review STORE`, a store "
        "`evaldsl review serve RESULTS --spec SPEC` made"))
