"""The review page: an aiohttp app over a review store, for people labelling cases.

`make_app(store, language=None, blocks=None)` builds the app over the outcome
blocks `blocks` (every block of the store when None, its default block first);
`serve_forever` serves it (`evaldsl review serve`, on 127.0.0.1), and another
aiohttp app may mount it as a sub-app (`parent.add_subapp("/review",
make_app(store))`): every address the page uses is made from the app's own
router, so it works under any prefix.

The page is one HTML file with a small hand-written script (`static/`); the
JSON API beside it is what the script reads and writes:

- `GET  api/queue?reviewer=NAME`: the queue, each case with this reviewer's
  label and how many others labelled it, progress, and reviewer agreement
- `GET  api/case?id=ID`: one case: dialog, machine judgement, every label
- `POST api/labels`: save a reviewer's judgement of a case `{case_id, reviewer,
  score, levels: {BLOCK: LEVEL or null}, note, skipped}`, one label per block
  named (a block given no level and no score loses this reviewer's label); the
  older `{level, block}` saves one block's (the first served when `block` is
  left out). A block the page does not serve, or a wrong label, is answered 400
  with the reason

Every request passes the shared guard (`evaldsl.webguard`): this server's own host
name, and writes as JSON from the page itself, with the token of this start written
into the page (mounted in another app, the app's own guard is given).

The page's words are in Chinese or English (`?lang=zh|en`, else `language`,
else the language of the moment), translated through the catalogue.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from html import escape
from importlib.resources import files
from typing import Any

from aiohttp import web

from evaldsl.i18n import LANGUAGES, N_, _, current_language, normalize, set_language
from evaldsl.review.reviewer_agreement import Opinion, ReviewerAgreement, reviewer_agreement
from evaldsl.review.store import Label, ReviewStore, unknown_block
from evaldsl.webguard import TOKEN_HEADER, Guard

STORE_KEY: web.AppKey[ReviewStore] = web.AppKey("review_store", ReviewStore)
LANGUAGE_KEY: web.AppKey[str] = web.AppKey("review_language", str)
GUARD_KEY: web.AppKey[Guard] = web.AppKey("review_guard", Guard)
BLOCKS_KEY: web.AppKey[list[str]] = web.AppKey("review_blocks", list)

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
    "level_of": N_("level of `{block}`"),
    "labelling": N_("labelling {blocks}"),
    "block_keys": N_("b next outcome block"),
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
             guard: Guard | None = None, blocks: Sequence[str] | None = None,
             ) -> web.Application:
    """The review app over `store`, labelling the outcome blocks `blocks` (see
    `served_blocks`); mountable with `add_subapp(prefix, app)`, then with the parent's
    `guard`, so its pages carry the parent's token."""
    guard = guard if guard is not None else Guard(browser=True)
    app = web.Application(middlewares=[guard.middleware()])
    app[GUARD_KEY] = guard
    app[BLOCKS_KEY] = served_blocks(store, blocks)
    app[STORE_KEY] = store
    app[LANGUAGE_KEY] = normalize(language or "") or current_language()
    app.router.add_get("/", _page, name="page")
    app.router.add_get("/review.js", _script, name="script")
    app.router.add_get("/api/queue", _queue, name="queue")
    app.router.add_get("/api/case", _case, name="case")
    app.router.add_post("/api/labels", _save, name="labels")
    return app


async def serve_forever(store: ReviewStore, host: str, port: int, language: str | None,
                        blocks: Sequence[str] | None,
                        listening: Callable[[int], None]) -> None:
    """Serve the review app on `host:port` behind a guard of its own until cancelled;
    `listening` is told the bound port once the socket listens (`port` 0 picks one)."""
    guard = Guard([host], browser=True)  # its own name, when the host is given as one
    runner = web.AppRunner(make_app(store, language, guard, blocks), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    listening(runner.addresses[0][1] if runner.addresses else port)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def served_blocks(store: ReviewStore, wanted: Sequence[str] | None) -> list[str]:
    """The outcome blocks a page labels: `wanted` in its order, each one the store has
    (`ValueError` naming the store's blocks otherwise), or, when None, every block of the
    store with its default block first."""
    known = store.blocks()
    default = str(store.meta().get("block") or "")
    if wanted is None:
        everything = list(known) or ([default] if default else [])
        return sorted(everything, key=lambda block: block != default)
    for block in wanted:
        if known and block not in known:
            raise ValueError(unknown_block(block, known))
    return list(dict.fromkeys(wanted))


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
    store, served = request.app[STORE_KEY], request.app[BLOCKS_KEY]
    blocks = [{"key": block, "labels": store.levels(block)} for block in served]
    config = {"words": page_words, "language": language,
              "other": next(x for x in LANGUAGES if x != language),
              "levels": blocks[0]["labels"] if blocks else store.levels(),
              "blocks": blocks,
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
    store, served = request.app[STORE_KEY], request.app[BLOCKS_KEY]
    reviewer = request.query.get("reviewer", "").strip()
    labels = [label for label in store.labels() if label.block in served]
    mine: dict[str, list[Label]] = {}
    reviewers: dict[str, set[str]] = {}
    for label in labels:
        reviewers.setdefault(label.case_id, set()).add(label.reviewer)
        if label.reviewer == reviewer:
            mine.setdefault(label.case_id, []).append(label)
    cases = [{"id": case.id, "priority": case.priority, "rule": case.rule,
              "machine": case.machine.get("labels", {}),
              "mine": judgement(mine[case.id]) if case.id in mine else None,
              "labels": len(reviewers.get(case.id, ()))} for case in store.queue()]
    return web.json_response({"cases": cases, "done": len(mine), "total": len(cases),
                              "agreement": _agreement(labels, served).to_dict(),
                              "block": served[0] if served else store.meta().get("block"),
                              "blocks": served})


def judgement(labels: Sequence[Label]) -> dict[str, Any]:
    """One reviewer's labels of a case, one per block, as the page's form shows them: the
    score and note of the latest saved, each block's level, skipped when every one is."""
    latest = max(labels, key=lambda label: (label.saved_at, label.number))
    return {"score": latest.score, "note": latest.note,
            "skipped": all(label.skipped for label in labels),
            "levels": {label.block: label.level for label in labels if label.level}}


async def _case(request: web.Request) -> web.Response:
    store = request.app[STORE_KEY]
    case = store.case(request.query.get("id", ""))
    if case is None:
        raise web.HTTPNotFound(text=_("no case `{id}` in the review queue").format(
            id=request.query.get("id", "")))
    served = request.app[BLOCKS_KEY]
    labels = [label for label in store.labels(case.id) if label.block in served]
    return web.json_response({"case": case.to_dict(),
                              "labels": [label.to_dict() for label in labels],
                              "agreement": _agreement(labels, served).to_dict()})


async def _save(request: web.Request) -> web.Response:
    store = request.app[STORE_KEY]
    served: list[str] = request.app[BLOCKS_KEY]
    try:
        body = await request.json()
        labels, cleared = labels_of(body, store, served)
        saved = store.save_labels(labels, cleared)
    except (ValueError, TypeError, KeyError) as exc:
        return web.json_response({"error": str(exc)}, status=400)
    return web.json_response({"label": saved[0].to_dict(),
                              "labels": [label.to_dict() for label in saved]})


def labels_of(body: Any, store: ReviewStore, served: Sequence[str],
              ) -> tuple[list[Label], list[tuple[str, str, str]]]:
    """The labels a judgement from the page's JSON saves, one per block it names, and the
    `(case, reviewer, block)` labels it empties; the store checks what each means."""
    if not isinstance(body, dict):
        raise ValueError(_("a label must be a JSON object"))
    score = body.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
        raise ValueError(_("the score must be a number"))
    levels = body.get("levels")
    if levels is None:
        levels = {str(body.get("block") or (served[0] if served else "")): body.get("level")}
    if not isinstance(levels, dict):
        raise ValueError(_("`levels` must be a JSON object of outcome blocks and levels"))
    case_id, reviewer = str(body["case_id"]), str(body.get("reviewer") or "").strip()
    skipped, note = bool(body.get("skipped")), str(body.get("note") or "")
    known = store.blocks()
    labels, cleared = [], []
    for block, level in levels.items():
        block = str(block)
        if known and block and block not in known:
            raise ValueError(unknown_block(block, known))
        if served and block not in served:
            raise ValueError(_not_served(block, served))
        level = None if skipped or level in (None, "") else str(level)
        if skipped or level is not None or score is not None:
            labels.append(Label(case_id, reviewer, None if score is None else float(score),
                                level, note, skipped, block=block))
        else:
            cleared.append((case_id, reviewer, block))
    if not labels:
        raise ValueError(_("a label needs a score or a level, or is a skip"))
    return labels, cleared


def _not_served(block: str, served: Sequence[str]) -> str:
    listed = ", ".join(f"`{x}`" for x in served)
    if len(served) == 1:
        return _("this page labels the outcome block {served} only, not `{block}` "
                 "(serve it with --outcome {block})").format(served=listed, block=block)
    return _("this page labels the outcome blocks {served} only, not `{block}` "
             "(serve it with --outcome {block})").format(served=listed, block=block)


def _agreement(labels: list[Label], served: Sequence[str]) -> ReviewerAgreement:
    """Reviewer agreement over the first served block's labels (a score saved under several
    blocks at once is one judgement, counted once)."""
    first = served[0] if served else None
    return reviewer_agreement(Opinion(x.case_id, x.reviewer, x.score, x.level)
                              for x in labels if not x.skipped and x.block == first)


def _static(name: str) -> str:
    return files("evaldsl.review").joinpath("static", name).read_text(encoding="utf-8")


def _script_json(value: Any) -> str:
    """JSON safe inside a `<script>` element: no `</script>` or `<!--` can close it."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")
