"""The middleware every answer of ``pulka serve`` passes through (``web.app`` puts them
in order): its security headers, its session cookie, its language, its access log, its
internal faults answered, a read-only store's writes refused at the door.

- Every response carries a content security policy as strict as the report's (no
  inline script at all: a page's script is a file of this service), and headers that
  keep it out of frames, keep its addresses (a table's link) out of referrers, and
  stop a browser from guessing types; over TLS (certificates of its own, or a proxy's
  ``X-Forwarded-Proto`` from a trusted address) Strict-Transport-Security, and the
  session cookie ``__Host-pulka_session``, Secure.
- Each request is answered in its language: ``?lang=``, else the browser's
  ``Accept-Language`` (``language.from_accept``), through ``language.using``.
- One access line per request (method, path, status, time), the query string left out;
  every line of the service's log has its control characters escaped, so that no
  request can write a line of its own into it.
- An internal fault is 500 with an incident number, its traceback in the log, the same
  security headers as every answer.
"""

from __future__ import annotations

import logging
import secrets
import time
from typing import Any

from starlette.middleware.sessions import SessionMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ledger.vocabulary import language
from ledger.vocabulary.language import from_accept, known, using
from web import api_common

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
