"""Who may do what in ``pulka serve``.

- A table's scorer holds a token scoped to one game (``accounts.Accounts.issue``, given
  as a link and a QR code): ``Authorization: Bearer ID.SECRET``. It records that game's
  table commands as the player or scorer it was issued to, and nothing else.
- An arbiter and a director sign in with a name and a password (and a second factor's
  code, for an account that has one). The session is kept by the server
  (``pulka_sessions``): the cookie holds a random secret of it, signed, and the session's
  CSRF token; signing out, a password changed or reset, a role changed, an account
  disabled or removed end it in every process at once. An arbiter records at every
  table, rules and penalises, makes games and tokens; a director does all that and
  runs tournaments and accounts. Both record as ``arbiter:NAME``. Where the club asks
  for a second factor, an arbiter or director without one signs in to enrol it and may
  do nothing else.
- Every write made with the cookie must carry the session's CSRF token in the
  ``X-CSRF-Token`` header (the cookie is SameSite=Strict too); a token is a bearer
  credential a browser never sends by itself, so its writes need none.
- Sign-in attempts are limited per client address and per name tried, in the
  database, so across workers and processes (``accounts.Accounts.sign_in``).

Every route says who may use it and what it is (``rule``): the attack suite of the
tests reads the route table and tries every route as every identity by its rule, so a
route without one fails it.

Every refusal here is HTTP 401 (nobody signed in), 403 (not allowed) or 429 (too many
attempts), as JSON with the rule ``access``.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request

from ledger.vocabulary import language
from web.accounts import Account, Accounts

_ = language._  # every text a person reads, in the request's language

ANYONE = "anyone"
SIGNED_IN = "signed in"  # any account, its own things (its password, its second factor)
ARBITER = "arbiter"
DIRECTOR = "director"
TABLE = "table"  # the game's token, or an arbiter
RANK = {"scorer": 0, ARBITER: 1, DIRECTOR: 2}
CSRF_HEADER = "x-csrf-token"

# What a route is, for its limits and for the attack suite.
READ = "read"  # a document of the store, by GET
WRITE = "write"  # a change, by POST or DELETE, with a body of at most ``api_common.BODY_MAX`` bytes
STREAM = "stream"  # server-sent events: held open
SESSION = "session"  # signing in and out
PAGE = "page"  # a page of the service (HTML)
FILE = "file"  # a file of the service (a script, a style)


@dataclass(frozen=True)
class Rule:
    """Who may use a route (``ANYONE``, ``SIGNED_IN``, ``TABLE``, ``ARBITER``,
    ``DIRECTOR``) and what it is (``READ``, ``WRITE``, ``STREAM``, ``SESSION``, ``PAGE``,
    ``FILE``)."""

    who: str
    kind: str


E = TypeVar("E", bound=Callable[..., Any])


def rule(who: str, kind: str) -> Callable[[E], E]:
    """Mark an endpoint with its rule (``rule_of`` reads it)."""
    def marked(endpoint: E) -> E:
        setattr(endpoint, "rule", Rule(who, kind))
        return endpoint
    return marked


def rule_of(endpoint: Any) -> Rule | None:
    found = getattr(endpoint, "rule", None)
    return found if isinstance(found, Rule) else None


class Denied(Exception):
    """A request its sender may not make: ``status`` 401, 403 or 429."""

    def __init__(self, status: int, message: str, retry_after: float | None = None, field: str | None = None) -> None:
        self.status = status
        self.retry_after = retry_after
        self.field = field
        super().__init__(message)


@dataclass(frozen=True)
class Principal:
    """Who sent a request: ``role`` scorer (a token), arbiter or director; ``by`` is who
    the events it records are recorded by; ``game`` the token's game; ``account`` the
    account signed in; ``stage`` ``enrol`` for a session that may only enrol a second
    factor."""

    name: str
    role: str
    by: str
    game: str | None = None
    cookie: bool = False
    account: Account | None = None
    stage: str = "full"


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    kind, _sep, value = header.partition(" ")
    return value.strip() if kind.lower() == "bearer" and value.strip() else None


def principal_of(request: Request, accounts: Accounts) -> Principal | None:
    """Who sent the request (on a worker thread: it reads the tables)."""
    token_text = bearer(request)
    if token_text is not None:
        token = accounts.token(token_text)
        if token is None:
            raise Denied(401, _("this table's link is not valid any more (revoked, or mistyped): ask the arbiter "
                                "for a new one"))
        return Principal(token.by, "scorer", token.by, token.game)
    secret = request.session.get("sid")
    if not isinstance(secret, str):
        return None
    found = accounts.session(secret)
    if found is None:  # signed out, ended, expired, or its account disabled or removed since
        forget(request)
        return None
    account, stage = found
    return Principal(account.name, account.role, f"arbiter:{account.name}", cookie=True, account=account, stage=stage)


def forget(request: Request) -> None:
    """The cookie's session is no more: it keeps only a CSRF token of its own."""
    request.session.pop("sid", None)


def allowed(principal: Principal | None, who: str, game: str | None) -> bool:
    """Whether ``principal`` may do what needs ``who`` (table, arbiter, director,
    signed in) on ``game``."""
    if principal is None:
        return False
    if who == SIGNED_IN:
        return principal.account is not None
    if principal.stage != "full":
        return False
    if principal.role == "scorer":
        return who == TABLE and game is not None and principal.game == game
    return RANK[principal.role] >= RANK[ARBITER if who == TABLE else who]


async def needs(request: Request, who: str, *, game: str | None = None, write: bool = False) -> Principal:
    """The sender, when allowed ``who`` on ``game``; a write sent with the session cookie
    must carry the session's CSRF token."""
    service = request.app.state.service
    principal: Principal | None = await service.run(lambda: principal_of(request, service.worker().accounts))
    if principal is None:
        raise Denied(401, _("sign in first (an arbiter's or a director's account), or use the table's link"))
    if not allowed(principal, who, game):
        if principal.stage != "full":
            raise Denied(403, _("the club asks for a second factor: enrol one on your account's page first "
                                "(/account)"))
        what = {TABLE: _("the table's scorer or an arbiter"), ARBITER: _("an arbiter"),
                DIRECTOR: _("a director"), SIGNED_IN: _("an account signed in")}[who]
        raise Denied(403, _("this is for {what}; you are signed in as {by}").format(what=what, by=principal.by))
    if write and principal.cookie:
        csrf_checked(request)
    return principal


def csrf_token(request: Request) -> str:
    """The session's CSRF token, made when it has none."""
    token = request.session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(24)
        request.session["csrf"] = token
    return token


def csrf_checked(request: Request) -> None:
    expected = request.session.get("csrf")
    sent = request.headers.get(CSRF_HEADER, "")
    if not isinstance(expected, str) or not hmac.compare_digest(expected.encode(), sent.encode("utf-8", "replace")):
        raise Denied(403, _("this write lacks its CSRF token (the X-CSRF-Token header, from GET /api/session): "
                            "nothing was stored"))


class SignIn(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    password: str
    code: str | None = None  # the second factor's: an authenticator app's code, or a recovery code


def signed_in(request: Request, secret: str) -> None:
    """The cookie of a new session (its secret, and a new CSRF token with it)."""
    request.session.clear()
    request.session["sid"] = secret
    request.session["csrf"] = secrets.token_urlsafe(24)
