"""The ASGI application of ``pulka serve``: Starlette, its middleware, its errors.

- Every answer passes through the middleware of ``web.middleware``: its security
  headers (a strict content security policy, HSTS and a ``__Host-`` cookie over TLS),
  its language, its access line, its internal faults answered.
- The routes anyone may use are bounded per client address (``limits``); with a reader
  process (``web.reader``), what anyone may read is made there.
- A refusal of the ledger is HTTP 422 with ``{"refused": {rule, message, reason,
  allowed, field}}``; who may not is 401/403/429 (``auth``); a body too long 413; an
  internal fault is 500 with an incident number, its traceback in the log, the same
  security headers as every answer, and never a secret: no answer names the store's
  address, path or user, and the log names the store without its password and no
  request's headers or body.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import secrets
from pathlib import Path
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ledger.judge.stored import ImpossibleEventError
from ledger.store.backend import (
    disk_full,
    is_postgres_url,
    lock_held,
    not_allowed,
    parse_postgres_url,
    store_label,
    unreachable,
)
from ledger.store.stored import BrokenChainError, UnreadableEventError
from ledger.store.event_store import StoreError
from ledger.desks.told import Doubtful, TypedTwice
from ledger.views.archive import ViewsMissing
from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused, cite
from ledger.vocabulary.rules import RuleSetError
from ledger.vocabulary.times import TimeFormatError
from projections.kinds import UnknownKind
from projections.numbers import json_plain
from projections.points import PointError
from web import api, api_accounts, api_common, api_log, club_tls, pages
from web.api_common import TooLarge
from web.auth import ANYONE, READ, STREAM, Denied, rule
from web.limits import TARPIT, Bounded, Bounds, Limits, file_limit, stream_cap
from web.live import Followed, Hub, event_message
from web.process import before_exit
from web.middleware import (
    HSTS_MAX_AGE,
    AccessLog,
    Cookies,
    Escaped,
    Faults,
    Language,
    ReadOnly,
    SecurityHeaders,
    access,
    log,
)
from web.reader import Reader, in_process
from web.service import KEPT_GAMES, READ_QUEUE, READ_THREADS, Busy, Service

_ = language._  # every text a person reads, in the request's language



@dataclass
class Settings:
    """What ``pulka serve`` is run with."""

    db: str
    secret: str  # signs the session cookies; the same for every process of one club
    https: bool = False  # TLS in front (certificates, or a proxy): cookies are Secure, HSTS sent
    public_url: str | None = None  # the address people reach, for links and QR codes
    network_url: str | None = None  # this machine's on the club's network, for links asked at 127.0.0.1
    threads: int = 8  # the writers' pool (``Service``)
    readers: int = READ_THREADS  # the readers' pool: what anyone may read
    read_queue: int = READ_QUEUE  # reads waiting or served at once, at most
    bounds: Bounds = field(default_factory=Bounds)  # what one anonymous client address may take
    kept_games: int = KEPT_GAMES  # games kept between requests, the least recently used let go past it
    read_only: str | None = None  # why the store is served read-only (it can be read, not written), or None
    club_ca: str | None = None  # the club CA's certificate (PEM) served at /club-certificate (web.club_tls)
    hsts_max_age: int = HSTS_MAX_AGE  # how long a browser keeps to TLS once it met it here
    read_process: bool = False  # what anyone may read made by a reader process (``web.reader``)
    reader: bool = False  # this process is another's reader: it answers the reads that one forwards


# -- errors ---------------------------------------------------------------------------------------


def hidden(db: str) -> list[str]:
    """How the store's address may be written in a message: none of it may reach an
    answer (an anonymous client learns no path, user, host, port or schema)."""
    texts = {db, store_label(db)}
    if is_postgres_url(db):
        texts.add(parse_postgres_url(db).display())
    else:
        texts.add(os.path.abspath(db))
    return sorted((t for t in texts if t), key=len, reverse=True)


def scrubbed(request: Request, text: str | None) -> str | None:
    """``text`` without the store's address (``hidden``)."""
    if text is None:
        return None
    for secret in request.app.state.hidden:
        text = text.replace(secret, _("(the service's store)"))
    return text


def refused_doc(exc: Refused) -> dict[str, Any]:
    """A refusal as the API's JSON. Where the desk's refusal names a command-line option,
    it names the API's own field instead: a doubted line's ``confirmed``, a deal typed
    twice's ``again``."""
    doubt = exc.doubt if isinstance(exc, Doubtful) else None
    if doubt is not None:  # a typed line's counts read two ways: the page offers to confirm it, not --yes
        exc = Refused(exc.rule, exc.reason, _("the declarer's count marked, as typed {typed_line} or as the other "
                                              "reading {other_line}; or the result confirmed as typed").format(
            typed_line=repr(doubt.typed_line), other_line=repr(doubt.other_line)), field=exc.field)
    elif isinstance(exc, TypedTwice):
        exc = Refused(exc.rule, exc.reason, _("again: the same deal really was played again"), field=exc.field)
    doc: dict[str, Any] = {"rule": exc.rule, "cite": cite(exc.rule), "message": exc.message, "reason": exc.reason,
                           "allowed": exc.allowed, "field": exc.field}
    if doubt is not None:
        doc["doubt"] = {"deal": doubt.deal, "line": doubt.line, "readings": [
            {"as": label, "line": marked, "tricks": dict(tricks),
             "writes": [{"cell": w.text, "amount": str(w.amount)} for w in writes]}
            for label, marked, tricks, writes in (
                (_("as typed ({read_as})").format(read_as=doubt.read_as), doubt.typed_line, doubt.typed,
                 doubt.typed_writes),
                (doubt.other, doubt.other_line, doubt.reading, doubt.other_writes))]}
    return {"refused": doc}


def refusal_answer(request: Request, doc: dict[str, Any], status: int) -> Response:
    """A refusal's answer, the store's address taken out of its texts."""
    inner = doc["refused"]
    for key in ("message", "reason", "allowed"):
        if isinstance(inner.get(key), str):
            inner[key] = scrubbed(request, inner[key])
    return api_common.json(doc, status)


async def on_refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return refusal_answer(request, refused_doc(exc), 422)


async def on_denied(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Denied)
    response = api_common.json({"refused": {"rule": "access", "message": str(exc), "allowed": None,
                                            "field": exc.field}}, exc.status)
    if exc.retry_after:
        response.headers["retry-after"] = str(max(1, round(exc.retry_after)))
    return response


async def on_busy(request: Request, exc: Exception) -> Response:
    """The readers' pool is full: 503 with Retry-After, answered after a wait as the
    limits' refusals are (``limits.TARPIT``), so that a client asking again at once
    costs next to nothing."""
    assert isinstance(exc, Busy)
    retry_after = max(1, round(exc.retry_after))
    await asyncio.sleep(min(retry_after, request.app.state.tarpit))
    response = api_common.json({"refused": {"rule": "access", "message": str(exc), "allowed": None, "field": None}},
                               503)
    response.headers["retry-after"] = str(retry_after)
    return response


async def on_too_large(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, TooLarge)
    return api_common.json({"refused": {"rule": "api", "message": str(exc), "allowed": _("at most {n} bytes").format(
        n=exc.limit), "field": None}}, 413)


async def on_problem(request: Request, exc: Exception) -> Response:
    """A stored game that cannot be read (a broken chain, an event that cannot be
    replayed), a time or rule set that cannot be read: refused, with why."""
    return refusal_answer(request, {"refused": {"rule": "event-log", "message": str(exc), "allowed": None,
                                                "field": None}}, 422)


async def on_views_missing(request: Request, exc: Exception) -> Response:
    """A store without the archive's views (the club's pages read them): refused, with
    what makes them."""
    assert isinstance(exc, ViewsMissing)
    return refusal_answer(request, {"refused": {"rule": "api", "message": str(exc), "allowed": None, "field": None}},
                          422)


# A stream's keep-alive ping (for proxies that close a quiet connection): every PING
# seconds and a share of PING_SPREAD drawn for each stream, so that the pings of streams
# opened together (a room's spectators, a page reloaded by all) are not sent together,
# a burst of hundreds of sends in the event loop that a scorer's write waits behind.
PING = 15.0
PING_SPREAD = 5.0


PINGS = random.Random()  # not a secret: only when a stream's pings fall


def ping_interval(draw: random.Random = PINGS) -> float:
    """The seconds between one stream's pings: PING and a random share of PING_SPREAD."""
    return PING + draw.uniform(0.0, PING_SPREAD)


RETRY_SOON = 5  # seconds a client waits before it sends again what the store could not take now
RETRY_LATER = 60  # ... when someone must first mend the machine (a full disk, a store that cannot be written)


def store_fault(exc: BaseException) -> tuple[int, str, int]:
    """What a store's failure is answered with, in one place: its status, what happened
    and what to do (never the store's address), and the seconds to wait (Retry-After).
    Nothing of the request was stored: a phone keeps its entry and sends it again."""
    if unreachable(exc):
        return 503, _("the store's database cannot be reached now (it may be restarting): nothing was stored; "
                      "send it again in a few seconds (a phone keeps its entries and sends them by itself)"), RETRY_SOON
    if lock_held(exc):
        return 503, _("the store is locked by another writer (a command, an upgrade) for longer than a write "
                      "waits: nothing was stored; send it again in a few seconds"), RETRY_SOON
    if disk_full(exc) is not None:
        return 507, _("the disk of the store is full: nothing was stored; whoever runs the service must free "
                      "some space, then send it again"), RETRY_LATER
    if not_allowed(exc):
        return 503, _("this service may not write its store (a read-only file or a role without the grant): "
                      "nothing was stored; it serves what is stored, and whoever runs it must give it the right "
                      "to write"), RETRY_LATER
    return 503, _("the store failed on this request (the service's log has the incident): nothing was stored; "
                  "send it again in a few seconds (a write sent again is never stored twice)"), RETRY_SOON


async def on_store(request: Request, exc: Exception) -> Response:
    incident = secrets.token_hex(4)
    log.error("incident %s: the store failed on %s %s: %s", incident, request.method, request.url.path,
              describe_error(request, exc))
    status, said, wait = store_fault(exc)
    answer = api_common.json({"error": _("{said} (incident {incident})").format(said=said, incident=incident)},
                             status)
    answer.headers["Retry-After"] = str(wait)
    return answer


def describe_error(request: Request, exc: Exception) -> str:
    """An error's message with the store's password masked."""
    from ledger.store.backend import mask

    return mask(str(exc), request.app.state.service.db)


# -- live ---------------------------------------------------------------------------------------


def sent_state(message: dict[str, Any]) -> bytes:
    """A live page's message as the event stream sends it (``event: state``), made once
    per version for all its followers (``live.Hub``), not once per follower."""
    data = msgspec.json.encode(message, enc_hook=json_plain).decode()
    return event_message("state", data)


async def live_state(service: Service, stream: str, version: int, since: int | None) -> bytes | None:
    message = await api.live_message(service, stream, version, since)
    return None if message is None else sent_state(message)


async def follow(request: Request, streams: set[str], first: list[dict[str, Any]], deltas: bool = False) -> Response:
    hub: Hub = request.app.state.hub
    subscriber = hub.subscribe(streams, deltas, first[0]["version"] if first else None)
    return Followed(hub, subscriber, [sent_state(message) for message in first], ping_interval())


@rule(ANYONE, STREAM)
async def game_events(request: Request) -> Response:
    """``GET /api/games/{game}/events``: the game's state now, then at every change (with
    ``?deltas=1``, what changed since the version told before: ``game_delta``)."""
    service: Service = request.app.state.service
    name = request.path_params["game"]
    deltas = request.query_params.get("deltas") in ("1", "true")
    version, now = await service.run(api_common.game_now_json, service, name)
    return await follow(request, {name}, [{"stream": name, "version": version, "kind": "game",
                                           "state": msgspec.Raw(now)}], deltas)


@rule(ANYONE, STREAM)
async def tournament_events(request: Request) -> Response:
    """``GET /api/tournaments/{tournament}/events``: a message at every change of the
    tournament or of one of its tables."""
    service: Service = request.app.state.service
    name = request.path_params["tournament"]
    now = await service.run(api.tournament_now, service, name)
    return await follow(request, {name}, [{"stream": name, "version": now["version"], "kind": "tournament"}])


@in_process
@rule(ANYONE, READ)
async def health(request: Request) -> Response:
    hub: Hub = request.app.state.hub
    return api_common.json({"ok": True, "position": hub.position, "followers": hub.followers()})


def routes() -> list[BaseRoute]:
    return [
        Route("/api/health", health, methods=["GET"]),
        *api_accounts.routes(),
        Route("/api/games/{game:path}/events", game_events, methods=["GET"]),
        Route("/api/tournaments/{tournament}/events", tournament_events, methods=["GET"]),
        *api.routes(),
        *api_log.routes(),  # the club log, served to anyone (web/api_log.py)
        *pages.routes(),  # the pages (web/pages.py): the front page, the phones', the desks', the club's
    ]


def create_app(settings: Settings, extra: list[BaseRoute] | None = None) -> Starlette:
    """The service on ``settings.db``; ``extra``: more routes (the pages)."""
    service = Service(settings.db, settings.threads, settings.kept_games, read_only=settings.read_only is not None,
                      readers=settings.readers, read_queue=settings.read_queue)
    files = file_limit()
    limits = Limits(settings.bounds)
    limits.bounds.streams = stream_cap(settings.bounds.streams, files)
    for logger in (log, access):
        if not any(isinstance(f, Escaped) for f in logger.filters):
            logger.addFilter(Escaped())

    reader = Reader(dataclasses.asdict(settings)) if settings.read_process else None

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if settings.reader:  # another's reader: it only reads
            try:
                yield
            finally:
                service.close()
            return
        if settings.read_only is None:
            await service.run(lambda: service.worker().accounts.ensure())
        else:
            log.warning("serving the store %s read-only: %s", store_label(settings.db), settings.read_only)
        await app.state.hub.start()
        before_exit(app.state.hub.end_all)  # the live pages' streams end as soon as the server is asked to stop
        if reader is not None:
            await reader.start()
        log.info("serving the store %s", store_label(settings.db))
        try:
            yield
        finally:
            if reader is not None:
                await reader.stop()
            await app.state.hub.stop()
            service.close()

    every = [*routes(), *(extra or [])]
    cookies = Middleware(Cookies, secret=settings.secret, https=settings.https)
    # A reader's answers pass through its service's middleware, which logs them and sets their headers.
    app = Starlette(
        routes=every,
        middleware=[Middleware(Language), Middleware(Faults), cookies] if settings.reader else [
            Middleware(AccessLog),
            Middleware(SecurityHeaders, https=settings.https, hsts_max_age=settings.hsts_max_age),
            Middleware(Language),
            Middleware(Faults),
            Middleware(ReadOnly, read_only=settings.read_only is not None),
            cookies,
            Middleware(Bounded, limits=limits, routes=every, reader=reader),
        ],
        exception_handlers={
            Refused: on_refused,
            Denied: on_denied,
            Busy: on_busy,
            TooLarge: on_too_large,
            BrokenChainError: on_problem,
            ImpossibleEventError: on_problem,
            UnreadableEventError: on_problem,
            RuleSetError: on_problem,
            PointError: on_problem,
            TimeFormatError: on_problem,
            UnknownKind: on_problem,
            ViewsMissing: on_views_missing,
            StoreError: on_store,
        },
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.hub = Hub(service, lambda stream, version, since: live_state(service, stream, version, since))
    app.state.limits = limits
    app.state.reader = reader
    app.state.tarpit = TARPIT
    app.state.hidden = hidden(settings.db)
    app.state.public_url = settings.public_url
    app.state.network_url = settings.network_url
    app.state.club_ca = club_tls.ca_der(Path(settings.club_ca)) if settings.club_ca else None
    return app
