"""Who may do what.

- A spectator needs only the link: the reads of a game and a tournament are open.
- A table's scorer holds a token scoped to one game (``accounts.Accounts.issue``, given
  by an arbiter or a director as a link and a QR code, revocable), sent as
  ``Authorization: Bearer ID.SECRET``. It records that game's table commands, as the
  holder named when it was issued (a player, or ``scorer:NAME``), reads its audit trail,
  and nothing else: no other game, no arbiter's command.
- Arbiters and directors sign in (``POST /api/session``): the password is checked
  against its argon2id hash; the session is a signed cookie (Starlette's
  ``SessionMiddleware``, itsdangerous), HttpOnly and SameSite=Strict, Secure behind TLS.
  They record as ``arbiter:NAME`` (the Code's arbiter; a tournament is recorded by its
  arbiter). A director may do all an arbiter may, and run tournaments.
- Every write made with the session cookie carries its CSRF token (``X-CSRF-Token``,
  the one ``GET /api/session`` gives, kept in the session); a bearer token is no
  ambient credential and needs none.
- Sign-in attempts are limited per client address (``ATTEMPTS`` a minute, in memory)
  and per account (in the database, so across processes: ``accounts.sign_in``).

Every refusal here is HTTP 401 (nobody signed in), 403 (not allowed) or 429 (too many
attempts), as JSON with the rule ``access``.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import deque
from dataclasses import dataclass

import msgspec
from starlette.requests import Request

from ledger.vocabulary import language
from web.accounts import Account, Accounts

_ = language._  # every text a person reads, in the request's language

ARBITER = "arbiter"
DIRECTOR = "director"
TABLE = "table"  # the game's token, or an arbiter
RANK = {"scorer": 0, ARBITER: 1, DIRECTOR: 2}
ATTEMPTS = 10  # sign-in attempts a client address may make in ``WINDOW`` seconds
WINDOW = 60.0
CSRF_HEADER = "x-csrf-token"


class Denied(Exception):
    """A request its sender may not make: ``status`` 401, 403 or 429."""

    def __init__(self, status: int, message: str, retry_after: float | None = None) -> None:
        self.status = status
        self.retry_after = retry_after
        super().__init__(message)


@dataclass(frozen=True)
class Principal:
    """Who sent a request: ``role`` scorer (a token), arbiter or director; ``by`` is who
    the events it records are recorded by; ``game`` the token's game."""

    name: str
    role: str
    by: str
    game: str | None = None
    cookie: bool = False


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
    name = request.session.get("account")
    if not isinstance(name, str):
        return None
    account = accounts.account(name)
    if account is None:  # removed since the session began
        request.session.clear()
        return None
    return Principal(account.name, account.role, f"arbiter:{account.name}", cookie=True)


def allowed(principal: Principal | None, who: str, game: str | None) -> bool:
    """Whether ``principal`` may do what needs ``who`` (table, arbiter, director) on ``game``."""
    if principal is None:
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
        what = {TABLE: _("the table's scorer or an arbiter"), ARBITER: _("an arbiter"),
                DIRECTOR: _("a director")}[who]
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
    if not isinstance(expected, str) or not hmac.compare_digest(expected.encode(), sent.encode()):
        raise Denied(403, _("this write lacks its CSRF token (the X-CSRF-Token header, from GET /api/session): "
                            "nothing was stored"))


class SignIn(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    password: str


class Limiter:
    """At most ``ATTEMPTS`` sign-ins per client address in ``WINDOW`` seconds."""

    def __init__(self) -> None:
        self.seen: dict[str, deque[float]] = {}

    def wait(self, client: str, now: float | None = None) -> float:
        """0 when ``client`` may try now (and the attempt is counted), else the seconds to wait."""
        now = time.monotonic() if now is None else now
        recent = self.seen.setdefault(client, deque())
        while recent and recent[0] <= now - WINDOW:
            recent.popleft()
        if len(recent) >= ATTEMPTS:
            return recent[0] + WINDOW - now
        recent.append(now)
        if len(self.seen) > 10_000:  # forget the quiet ones
            for key in [k for k, v in self.seen.items() if not v]:
                del self.seen[key]
        return 0.0


def signed_in(request: Request, account: Account) -> None:
    """A new session for ``account`` (a new CSRF token with it)."""
    request.session.clear()
    request.session["account"] = account.name
    request.session["csrf"] = secrets.token_urlsafe(24)
