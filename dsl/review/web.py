"""The review page: an aiohttp app over a review store, for people labelling cases.

`make_app(store, language=None)` builds the app; `evaldsl review serve` runs
it on 127.0.0.1, and another aiohttp app may mount it as a sub-app
(`parent.add_subapp("/review", make_app(store))`): every address the page
uses is made from the app's own router, so it works under any prefix.

The page is one HTML file with a small hand-written script (`static/`); the
JSON API beside it is what the script reads and writes:

- `GET  api/queue?reviewer=NAME`: the queue, each case with this reviewer's
  label and how many others labelled it, progress, and reviewer agreement
- `GET  api/case?id=ID`: one case: dialog, machine judgement, every label
- `POST api/labels`: save a label `{case_id, reviewer, score, level, note,
  skipped}`; a wrong one is answered 400 with the reason

Every request passes the shared guard (`evaldsl.webguard`): this server's own host
name, and writes as JSON from the page itself, with the token of this start written
into the page (mounted in another app, the app's own guard is given).

The page's words are in Chinese or English (`?lang=zh|en`, else `language`,
else the language of the moment), translated through the catalogue.
"""

from __future__ import annotations

import json
from html import escape
from importlib.resources import files
from typing import Any

from aiohttp import web

from evaldsl.i18n import LANGUAGES, N_, _, current_language, normalize, set_language
from evaldsl.review.agreement import Opinion, ReviewerAgreement, reviewer_agreement
from evaldsl.review.store import Label, ReviewStore
from evaldsl.webguard import TOKEN_HEADER, Guard

STORE_KEY: web.AppKey[ReviewStore] = web.AppKey("review_store", ReviewStore)
LANGUAGE_KEY: web.AppKey[str] = web.AppKey("review_language", str)
GUARD_KEY: web.AppKey[Guard] = web.AppKey("review_guard", Guard)

WORDS = {
    "title": N_("Review"),
    "reviewer": N_("reviewer"),
    "reviewer_needed": N_("enter your name as reviewer first"),
    "queue": N_("queue"),
    "progress": N_("{done} of {total} labelled by you"),
    "dialog": N_("dialog"),
    "machine": N_("machine judgement"),
    "check": N_("check"),
    "status": N_("status"),
    "value": N_("value"),
    "reason": N_("reason"),
    "score": N_("score (0-100)"),
    "level": N_("level"),
    "note": N_("note (why)"),
    "save": N_("save"),
    "skip": N_("skip"),
    "saved": N_("saved"),
    "skipped": N_("skipped"),
    "others": N_("labels of all reviewers"),
    "none_yet": N_("no label yet"),
    "spread": N_("reviewers differ by {points} points on this case"),
    "levels_agree": N_("their levels agree"),
    "levels_differ": N_("their levels differ"),
    "agreement": N_("reviewers agree: {mad} points apart on average over {pairs} pairs, "
                    "levels {agreed} of {levels} pairs"),
    "no_agreement": N_("no case has two reviewers yet"),
    "keys": N_("keys: j/k next/previous · 1-5 score 0/25/50/75/100 · l level · n note · "
               "Enter save · x skip · Esc leave a field"),
    "priority": N_("priority"),
    "latency": N_("{ms} ms"),
    "calls": N_("calls"),
    "empty": N_("the queue is empty: the run drew no case for review"),
}
"""The page's words, by key; the script reads them translated into the page's language."""


def make_app(store: ReviewStore, language: str | None = None,
             guard: Guard | None = None) -> web.Application:
    """The review app over `store`; mountable with `add_subapp(prefix, app)`, then with
    the parent's `guard`, so its pages carry the parent's token."""
    guard = guard if guard is not None else Guard(browser=True)
    app = web.Application(middlewares=[guard.middleware()])
    app[GUARD_KEY] = guard
    app[STORE_KEY] = store
    app[LANGUAGE_KEY] = normalize(language or "") or current_language()
    app.router.add_get("/", _page, name="page")
    app.router.add_get("/review.js", _script, name="script")
    app.router.add_get("/api/queue", _queue, name="queue")
    app.router.add_get("/api/case", _case, name="case")
    app.router.add_post("/api/labels", _save, name="labels")
    return app


def words(language: str) -> dict[str, str]:
    """The page's words in `language`, the process's language left as it was."""
    before = current_language()
    set_language(language)
    try:
        return {key: _(message) for key, message in WORDS.items()}
    finally:
        set_language(before)


async def _page(request: web.Request) -> web.Response:
    language = normalize(request.query.get("lang", "")) or request.app[LANGUAGE_KEY]
    router = request.app.router
    page_words = words(language)
    config = {"words": page_words, "language": language,
              "other": next(x for x in LANGUAGES if x != language),
              "levels": request.app[STORE_KEY].levels(),
              "token": request.app[GUARD_KEY].token, "token_header": TOKEN_HEADER,
              "urls": {name: str(router[name].url_for())
                       for name in ("page", "queue", "case", "labels")}}
    text = _static("review.html").replace("{{lang}}", language).replace(
        "{{title}}", escape(page_words["title"])).replace(
        "{{script}}", str(router["script"].url_for())).replace(
        "{{config}}", _script_json(config))
    return web.Response(text=text, content_type="text/html")


async def _script(request: web.Request) -> web.Response:
    return web.Response(text=_static("review.js"), content_type="application/javascript")


async def _queue(request: web.Request) -> web.Response:
    store = request.app[STORE_KEY]
    reviewer = request.query.get("reviewer", "").strip()
    labels = store.labels()
    mine = {label.case_id: label for label in labels if label.reviewer == reviewer}
    counts: dict[str, int] = {}
    for label in labels:
        counts[label.case_id] = counts.get(label.case_id, 0) + 1
    cases = [{"id": case.id, "priority": case.priority, "rule": case.rule,
              "machine": case.machine.get("labels", {}),
              "mine": mine[case.id].to_dict() if case.id in mine else None,
              "labels": counts.get(case.id, 0)} for case in store.queue()]
    return web.json_response({"cases": cases, "done": len(mine), "total": len(cases),
                              "agreement": _agreement(labels).to_dict(),
                              "block": store.meta().get("block")})


async def _case(request: web.Request) -> web.Response:
    store = request.app[STORE_KEY]
    case = store.case(request.query.get("id", ""))
    if case is None:
        raise web.HTTPNotFound(text=_("no case `{id}` in the review queue").format(
            id=request.query.get("id", "")))
    labels = store.labels(case.id)
    return web.json_response({"case": case.to_dict(),
                              "labels": [label.to_dict() for label in labels],
                              "agreement": _agreement(labels).to_dict()})


async def _save(request: web.Request) -> web.Response:
    try:
        body = await request.json()
        label = _label_of(body)
        saved = request.app[STORE_KEY].save_label(label)
    except (ValueError, TypeError, KeyError) as exc:
        return web.json_response({"error": str(exc)}, status=400)
    return web.json_response({"label": saved.to_dict()})


def _label_of(body: Any) -> Label:
    """A label from the page's JSON; the store checks what it means."""
    if not isinstance(body, dict):
        raise ValueError(_("a label must be a JSON object"))
    score = body.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
        raise ValueError(_("the score must be a number"))
    return Label(str(body["case_id"]), str(body.get("reviewer") or "").strip(),
                 None if score is None else float(score), body.get("level") or None,
                 str(body.get("note") or ""), bool(body.get("skipped")))


def _agreement(labels: list[Label]) -> ReviewerAgreement:
    return reviewer_agreement(Opinion(x.case_id, x.reviewer, x.score, x.level)
                              for x in labels if not x.skipped)


def _static(name: str) -> str:
    return files("evaldsl.review").joinpath("static", name).read_text(encoding="utf-8")


def _script_json(value: Any) -> str:
    """JSON safe inside a `<script>` element: no `</script>` or `<!--` can close it."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")
