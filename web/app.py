"""The ASGI application of ``pulka serve``: Starlette, its middleware, its errors.

- Every response carries a content security policy as strict as the report's (no
  inline script at all: a page's script is a file of this service), and headers that
  keep it out of frames, keep its addresses (a table's link) out of referrers, and
  stop a browser from guessing types; over TLS (certificates of its own, or a proxy's
  ``X-Forwarded-Proto`` from a trusted address) Strict-Transport-Security, and the
  session cookie ``__Host-pulka_session``, Secure.
- Each request is answered in its language: ``?lang=``, else the browser's
  ``Accept-Language`` (``language.from_accept``), through ``language.using``.
- The routes anyone may use are bounded per client address (``limits``).
- A refusal of the ledger is HTTP 422 with ``{"refused": {rule, message, reason,
  allowed, field}}``; who may not is 401/403/429 (``auth``); a body too long 413; an
  internal fault is 500 with an incident number, its traceback in the log, the same
  security headers as every answer, and never a secret: no answer names the store's
  address, path or user, and the log names the store without its password and no
  request's headers or body.
- One access line per request (method, path, status, time), the query string left out;
  every line of the service's log has its control characters escaped, so that no
  request can write a line of its own into it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import secrets
import time
from pathlib import Path
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import msgspec
from sse_starlette import EventSourceResponse
from sse_starlette.event import ServerSentEvent
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
from ledger.vocabulary.language import from_accept, known, using
from ledger.vocabulary.refusal import Refused, cite
from ledger.vocabulary.rules import RuleSetError
from ledger.vocabulary.times import TimeFormatError
from projections.kinds import UnknownKind
from projections.points import PointError
from web import api, api_accounts, api_common, api_log, club_tls, pages
from web.api_common import TooLarge
from web.auth import ANYONE, READ, STREAM, Denied, rule
from web.limits import TARPIT, Bounded, Bounds, Limits, file_limit, stream_cap
from web.live import Hub
from web.service import KEPT_GAMES, READ_QUEUE, READ_THREADS, Busy, Service

_ = language._  # every text a person reads, in the request's language
log = logging.getLogger("pulka.serve")
access = logging.getLogger("pulka.serve.access")

# As strict as the report's (projections/drawing/report.html) and stricter: scripts and styles
# only from this service's own files, never inline; data: images (a QR code); requests
# only to this service.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "manifest-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
}
HSTS_MAX_AGE = 31536000  # a year; a club's own certificate authority's a day (web.club_tls.HSTS_MAX_AGE)
COOKIE = "pulka_session"
SECURE_COOKIE = "__Host-pulka_session"  # Secure, Path=/, no Domain: only this host over TLS may set or read it


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


def over_tls(scope: Scope, https: bool) -> bool:
    """Whether the request came over TLS: the service's own certificates, or a trusted
    proxy's ``X-Forwarded-Proto: https`` (uvicorn's proxy headers set the scheme), or a
    public address ``https://`` (``Settings.https``)."""
    return https or scope.get("scheme") in ("https", "wss")


class SecurityHeaders:
    """The headers of every response (a response that sets its own policy keeps it)."""

    def __init__(self, app: ASGIApp, https: bool, hsts_max_age: int = HSTS_MAX_AGE) -> None:
        self.app = app
        self.https = https
        self.hsts = (b"strict-transport-security", f"max-age={hsts_max_age}".encode())
        self.headers = [(k.encode(), v.encode()) for k, v in HEADERS.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        tls = over_tls(scope, self.https)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in self.headers if k not in names]
                if tls:
                    headers.append(self.hsts)
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", CSP.encode()))
                if b"cache-control" not in names:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


class Cookies:
    """The session cookie (signed, HttpOnly, SameSite=Strict): ``__Host-pulka_session``
    and Secure over TLS, ``pulka_session`` on a club's plain network."""

    def __init__(self, app: ASGIApp, secret: str, https: bool) -> None:
        options: dict[str, Any] = {"secret_key": secret, "max_age": 12 * 3600, "same_site": "strict"}
        self.plain = SessionMiddleware(app, session_cookie=COOKIE, https_only=False, **options)
        self.secure = SessionMiddleware(app, session_cookie=SECURE_COOKIE, https_only=True, **options)
        self.https = https

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        chosen = self.secure if over_tls(scope, self.https) else self.plain
        await chosen(scope, receive, send)


class Language:
    """Each request in its language: ``?lang=``, else ``Accept-Language``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        wanted = None
        for part in scope.get("query_string", b"").decode("latin-1").split("&"):
            key, _sep, value = part.partition("=")
            if key == "lang" and known(value):
                wanted = value
        if wanted is None:
            header = dict(scope.get("headers", [])).get(b"accept-language", b"").decode("latin-1")
            wanted = from_accept(header) if header else "en"
        with using(wanted):
            await self.app(scope, receive, send)


def printable(text: str) -> str:
    """``text`` with its backslashes and every character that is not printable (a line
    feed, a carriage return, an escape, a bidirectional override) escaped, so that a log
    line written with it stays one line, as written."""
    if text.isprintable() and "\\" not in text:
        return text
    return "".join(c if c.isprintable() and c != "\\" else c.encode("unicode_escape").decode("ascii")
                   for c in text)


class Escaped(logging.Filter):
    """A record of the service's log whose message is made printable (``printable``):
    its text and its arguments, whatever a request put in them."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = printable(record.getMessage())
        record.args = None
        return True


class AccessLog:
    """One line per request: method, path (no query string), status, milliseconds."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = [0]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            access.info("%s %s %d %.1f ms", scope["method"], scope["path"], status[0],
                        (time.perf_counter() - start) * 1000)


class Faults:
    """An internal fault answered 500, inside the middleware that logs the status and
    sets the security headers (Starlette's own answer to an unhandled error is outside
    them all, logged as status 0, without the headers, the connection dropped)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = [False]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                started[0] = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:  # noqa: BLE001 - every fault gets its answer and its incident
            incident = secrets.token_hex(4)
            log.error("incident %s: internal error on %s %s", incident, scope.get("method"), scope.get("path"),
                      exc_info=(type(exc), exc, exc.__traceback__))
            if started[0]:
                return  # an answer is under way (a live page's stream): it ends here
            answer = api_common.json({"error": _("internal error (incident {incident}); nothing was lost: what was "
                                                 "stored is stored").format(incident=incident)}, 500)
            await answer(scope, receive, send)


SAFE = frozenset({"GET", "HEAD", "OPTIONS"})  # the methods that write nothing


class ReadOnly:
    """A store served read-only (``Settings.read_only``): every request that would write
    (any method but GET, HEAD, OPTIONS: a deal, a sign-in, a token) is refused at the
    door, 403, with what happened and what to do (why the store cannot be written is
    said on the service's terminal: the answer names no store's address, path or
    role); a phone keeps its entries and says why it does not send them (it sends again
    by itself what a 5xx refused)."""

    def __init__(self, app: ASGIApp, read_only: bool) -> None:
        self.app = app
        self.read_only = read_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.read_only or scope["type"] != "http" or scope["method"] in SAFE:
            await self.app(scope, receive, send)
            return
        message = _("this service serves its store read-only: it may not write it (a read-only file, folder or "
                    "disk, or a database role without the grant); nothing was stored; whoever runs the service must "
                    "give it the right to write and start it again (a phone keeps its entries until then)")
        answer = api_common.json({"refused": {"rule": "read-only", "message": message, "allowed": None,
                                              "field": None}}, 403)
        await answer(scope, receive, send)


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
    data = msgspec.json.encode(message, enc_hook=api_common.encode_extra).decode()
    return ServerSentEvent(data=data, event="state").encode()


async def live_state(service: Service, stream: str, version: int, since: int | None) -> bytes | None:
    message = await api.live_message(service, stream, version, since)
    return None if message is None else sent_state(message)


async def follow(request: Request, streams: set[str], first: list[dict[str, Any]], deltas: bool = False) -> Response:
    hub: Hub = request.app.state.hub
    subscriber = hub.subscribe(streams, deltas, first[0]["version"] if first else None)

    async def messages() -> AsyncIterator[bytes]:
        try:
            for message in first:
                yield sent_state(message)
            async for sent in subscriber.messages():
                yield sent
        finally:
            hub.unsubscribe(subscriber)

    return EventSourceResponse(messages(), ping=ping_interval(), headers={"cache-control": "no-store"})


@rule(ANYONE, STREAM)
async def game_events(request: Request) -> Response:
    """``GET /api/games/{game}/events``: the game's state now, then at every change (with
    ``?deltas=1``, what changed since the version told before: ``game_delta``)."""
    service: Service = request.app.state.service
    name = request.path_params["game"]
    deltas = request.query_params.get("deltas") in ("1", "true")
    now = await service.run(api_common.game_now, service, name)
    return await follow(request, {name}, [{"stream": name, "version": now["version"], "kind": "game", "state": now}],
                        deltas)


@rule(ANYONE, STREAM)
async def tournament_events(request: Request) -> Response:
    """``GET /api/tournaments/{tournament}/events``: a message at every change of the
    tournament or of one of its tables."""
    service: Service = request.app.state.service
    name = request.path_params["tournament"]
    now = await service.run(api.tournament_now, service, name)
    return await follow(request, {name}, [{"stream": name, "version": now["version"], "kind": "tournament"}])


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

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if settings.read_only is None:
            await service.run(lambda: service.worker().accounts.ensure())
        else:
            log.warning("serving the store %s read-only: %s", store_label(settings.db), settings.read_only)
        await app.state.hub.start()
        log.info("serving the store %s", store_label(settings.db))
        try:
            yield
        finally:
            await app.state.hub.stop()
            service.close()

    every = [*routes(), *(extra or [])]
    app = Starlette(
        routes=every,
        middleware=[
            Middleware(AccessLog),
            Middleware(SecurityHeaders, https=settings.https, hsts_max_age=settings.hsts_max_age),
            Middleware(Language),
            Middleware(Faults),
            Middleware(ReadOnly, read_only=settings.read_only is not None),
            Middleware(Cookies, secret=settings.secret, https=settings.https),
            Middleware(Bounded, limits=limits, routes=every),
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
    app.state.tarpit = TARPIT
    app.state.hidden = hidden(settings.db)
    app.state.public_url = settings.public_url
    app.state.network_url = settings.network_url
    app.state.club_ca = club_tls.ca_der(Path(settings.club_ca)) if settings.club_ca else None
    return app
