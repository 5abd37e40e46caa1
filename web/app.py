"""The ASGI application of ``pulka serve``: Starlette, its middleware, its errors.

- Every response carries a content security policy as strict as the report's (no
  inline script at all: a page's script is a file of this service), and headers that
  keep it out of frames, keep its addresses (a table's link) out of referrers, and
  stop a browser from guessing types.
- Each request is answered in its language: ``?lang=``, else the browser's
  ``Accept-Language`` (``language.from_accept``), through ``language.using``.
- A refusal of the ledger is HTTP 422 with ``{"refused": {rule, message, reason,
  allowed, field}}``; who may not is 401/403/429 (``auth``); an internal fault is 500
  with an incident number, its traceback in the log, and never a secret: the log names
  the store without its password and no request's headers or body.
- One access line per request (method, path, status, time), the query string left out.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import msgspec
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.judge.stored import ImpossibleEventError
from ledger.store.backend import store_label
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
from web import api, api_common, api_log, pages
from web.auth import Denied, Limiter, SignIn, csrf_checked, csrf_token, needs, principal_of, signed_in
from web.live import Hub
from web.service import Service

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


@dataclass
class Settings:
    """What ``pulka serve`` is run with."""

    db: str
    secret: str  # signs the session cookies; the same for every process of one club
    https: bool = False  # TLS in front (certificates, or a proxy): cookies are Secure, HSTS sent
    public_url: str | None = None  # the address people reach, for links and QR codes
    threads: int = 8


class SecurityHeaders:
    """The headers of every response (a response that sets its own policy keeps it)."""

    def __init__(self, app: ASGIApp, https: bool) -> None:
        self.app = app
        self.headers = [(k.encode(), v.encode()) for k, v in HEADERS.items()]
        if https:
            self.headers.append((b"strict-transport-security", b"max-age=31536000"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in self.headers if k not in names]
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", CSP.encode()))
                if b"cache-control" not in names:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


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


# -- errors ---------------------------------------------------------------------------------------


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


async def on_refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return api_common.json(refused_doc(exc), 422)


async def on_denied(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Denied)
    headers = {"retry-after": str(max(1, round(exc.retry_after)))} if exc.retry_after else {}
    response = api_common.json({"refused": {"rule": "access", "message": str(exc), "allowed": None, "field": None}},
                        exc.status)
    response.headers.update(headers)
    return response


async def on_problem(request: Request, exc: Exception) -> Response:
    """A stored game that cannot be read (a broken chain, an event that cannot be
    replayed), a time or rule set that cannot be read: refused, with why."""
    return api_common.json({"refused": {"rule": "event-log", "message": str(exc), "allowed": None, "field": None}}, 422)


async def on_views_missing(request: Request, exc: Exception) -> Response:
    """A store without the archive's views (the club's pages read them): refused, with
    what makes them."""
    assert isinstance(exc, ViewsMissing)
    return api_common.json({"refused": {"rule": "api", "message": str(exc), "allowed": None, "field": None}}, 422)


async def on_store(request: Request, exc: Exception) -> Response:
    incident = secrets.token_hex(4)
    log.error("incident %s: the store failed on %s %s: %s", incident, request.method, request.url.path,
              describe_error(request, exc))
    return api_common.json({"error": _("the store cannot be reached now; try again (incident {incident})").format(
        incident=incident)}, 503)


async def on_fault(request: Request, exc: Exception) -> Response:
    incident = secrets.token_hex(4)
    log.error("incident %s: internal error on %s %s", incident, request.method, request.url.path,
              exc_info=(type(exc), exc, exc.__traceback__))
    return api_common.json({"error": _("internal error (incident {incident}); nothing was lost: what was stored is "
                                "stored").format(incident=incident)}, 500)


def describe_error(request: Request, exc: Exception) -> str:
    """An error's message with the store's password masked."""
    from ledger.store.backend import mask

    return mask(str(exc), request.app.state.service.db)


# -- the session ------------------------------------------------------------------------------


async def session(request: Request) -> Response:
    """Who is signed in, and the CSRF token every write with the cookie carries."""
    service: Service = request.app.state.service
    principal = await service.run(lambda: principal_of(request, service.worker().accounts))
    who = None if principal is None else {"name": principal.name, "role": principal.role, "by": principal.by,
                                          "game": principal.game}
    return api_common.json({"signed_in": who, "csrf": csrf_token(request)})


async def sign_in(request: Request) -> Response:
    service: Service = request.app.state.service
    csrf_checked(request)
    client = request.client.host if request.client else "?"
    wait = request.app.state.limiter.wait(client)
    if wait:
        raise Denied(429, _("too many sign-in attempts from here; wait a minute"), wait)
    b = api_common.body(await request.body(), SignIn)
    found = await service.run(lambda: service.worker().accounts.sign_in(b.name, b.password))
    if isinstance(found, float):
        raise Denied(429, _("too many failed sign-ins to this account; wait {seconds} s").format(
            seconds=max(1, round(found))), found)
    if found is None:
        raise Denied(401, _("wrong name or password"))
    signed_in(request, found)
    return api_common.json({"signed_in": {"name": found.name, "role": found.role, "by": f"arbiter:{found.name}"},
                     "csrf": request.session["csrf"]})


async def sign_out(request: Request) -> Response:
    csrf_checked(request)
    request.session.clear()
    return api_common.json({"signed_in": None, "csrf": csrf_token(request)})


class AccountIn(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    password: str
    role: str = "arbiter"


async def new_account(request: Request) -> Response:
    service: Service = request.app.state.service
    await needs(request, "director", write=True)
    b = api_common.body(await request.body(), AccountIn)
    if len(b.password) < 10:
        raise Refused("api", _("a password has 10 characters at least"), field="password")

    def create() -> dict[str, str]:
        try:
            account = service.worker().accounts.create(b.name.strip(), b.password, b.role)
        except ValueError as exc:
            raise Refused("api", str(exc), field="name") from None
        return {"name": account.name, "role": account.role}

    return api_common.json({"account": await service.run(create)}, 201)


# -- live ---------------------------------------------------------------------------------------


async def follow(request: Request, streams: set[str], first: list[dict[str, Any]]) -> Response:
    hub: Hub = request.app.state.hub
    subscriber = hub.subscribe(streams)

    async def messages() -> AsyncIterator[dict[str, str]]:
        try:
            for message in first:
                yield {"event": "state", "data": msgspec.json.encode(message, enc_hook=api_common.encode_extra).decode()}
            async for message in subscriber.messages():
                yield {"event": "state", "data": msgspec.json.encode(message, enc_hook=api_common.encode_extra).decode()}
        finally:
            hub.unsubscribe(subscriber)

    return EventSourceResponse(messages(), ping=15, headers={"cache-control": "no-store"})


async def game_events(request: Request) -> Response:
    """``GET /api/games/{game}/events``: the game's state now, then at every change."""
    service: Service = request.app.state.service
    name = request.path_params["game"]
    now = await service.run(api_common.game_now, service, name)
    return await follow(request, {name}, [{"stream": name, "version": now["version"], "kind": "game", "state": now}])


async def tournament_events(request: Request) -> Response:
    """``GET /api/tournaments/{tournament}/events``: a message at every change of the
    tournament or of one of its tables."""
    service: Service = request.app.state.service
    name = request.path_params["tournament"]
    now = await service.run(api.tournament_now, service, name)
    return await follow(request, {name}, [{"stream": name, "version": now["version"], "kind": "tournament"}])


async def health(request: Request) -> Response:
    hub: Hub = request.app.state.hub
    return api_common.json({"ok": True, "position": hub.position, "followers": hub.followers()})


def routes() -> list[BaseRoute]:
    return [
        Route("/api/health", health, methods=["GET"]),
        Route("/api/session", session, methods=["GET"]),
        Route("/api/session", sign_in, methods=["POST"]),
        Route("/api/session", sign_out, methods=["DELETE"]),
        Route("/api/accounts", new_account, methods=["POST"]),
        Route("/api/games/{game:path}/events", game_events, methods=["GET"]),
        Route("/api/tournaments/{tournament}/events", tournament_events, methods=["GET"]),
        *api.routes(),
        *api_log.routes(),  # the club log, served to anyone (web/api_log.py)
        *pages.routes(),  # the pages (web/pages.py): the front page, the phones', the desks', the club's
    ]


def create_app(settings: Settings, extra: list[BaseRoute] | None = None) -> Starlette:
    """The service on ``settings.db``; ``extra``: more routes (the pages)."""
    service = Service(settings.db, settings.threads)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await service.run(lambda: service.worker().accounts.ensure())
        await app.state.hub.start()
        log.info("serving the store %s", store_label(settings.db))
        try:
            yield
        finally:
            await app.state.hub.stop()
            service.close()

    app = Starlette(
        routes=[*routes(), *(extra or [])],
        middleware=[
            Middleware(AccessLog),
            Middleware(SecurityHeaders, https=settings.https),
            Middleware(Language),
            Middleware(SessionMiddleware, secret_key=settings.secret, session_cookie="pulka_session",
                       max_age=12 * 3600, same_site="strict", https_only=settings.https),
        ],
        exception_handlers={
            Refused: on_refused,
            Denied: on_denied,
            BrokenChainError: on_problem,
            ImpossibleEventError: on_problem,
            UnreadableEventError: on_problem,
            RuleSetError: on_problem,
            PointError: on_problem,
            TimeFormatError: on_problem,
            UnknownKind: on_problem,
            ViewsMissing: on_views_missing,
            StoreError: on_store,
            Exception: on_fault,
        },
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.hub = Hub(service, lambda stream, version: api.live_message(service, stream, version))
    app.state.limiter = Limiter()
    app.state.public_url = settings.public_url
    return app
