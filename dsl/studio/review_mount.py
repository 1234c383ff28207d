"""The review queue at `/review`, when its app (`evaldsl.review.web`) is installed.

The review app is its own aiohttp application; the studio mounts it as a sub-app and
otherwise says where it would be. Kept to one function so wiring it is one place.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from evaldsl.i18n import _


def mount_review(app: web.Application, spec: Path) -> None:
    app.router.add_get("/review", _to_folder)
    try:
        from evaldsl.review.web import make_app
    except ModuleNotFoundError as exc:
        if exc.name not in ("evaldsl.review", "evaldsl.review.web"):
            raise
        app.router.add_get("/review/", _missing)
        return
    app.add_subapp("/review/", make_app(spec))


async def _to_folder(request: web.Request) -> web.Response:
    """`/review` to `/review/`, where a sub-app's own `/` is."""
    raise web.HTTPFound("/review/")


async def _missing(request: web.Request) -> web.Response:
    from evaldsl.studio.pages import note_page

    return note_page(_("review queue"), _("the review queue is not installed in this "
                                          "evaldsl; label the sample with `evaldsl review`"))
