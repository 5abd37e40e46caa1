"""What one client may take of the service, so that no anonymous client can slow the
tables' scoring down or shut others out (OWASP ASVS 11.1.4, 12.1.1).

Each route says who may use it and what it is (``auth.rule``). Those anyone may use
without signing in — the reads, the pages, the event streams, the files — are bounded
per client address (the proxy's ``X-Forwarded-For`` where the proxy is trusted):

- **a process of their own**: with a reader process (``web.reader``, ``pulka serve``'s
  default), a read or a page asked without a session is made there, and charged the
  time it took on the reader's pool; else, and for the others, their
  work runs on the service's readers' pool (``POOL``), a few threads apart from the
  writers', its queue bounded (a full queue is answered 503 with ``Retry-After``): a
  table's write never waits in a queue behind them;
- **a budget of work**: each request costs the time it held a reader thread (the
  service's ``run`` measures it: ``CHARGED``; the elapsed time, not the thread's CPU,
  so that a read is charged its waits on the store and on the interpreter's lock too:
  the share of the pool it took) and a little more for what the event loop does; an
  address is given ``rate`` seconds of it per second, saved up to ``burst``. An address
  over its budget is answered 429 with ``Retry-After`` until it has saved enough again:
  a read that draws the sheet at a point in time may cost a tenth of a second, a
  thousand cached reads cost little;
- **a budget shared by all**: every anonymous request is charged to a budget all
  addresses share too (``total_rate`` seconds a second, at least one address's), so
  that a crowd of addresses, each within its own, cannot take together what the tables'
  writes need (503 with ``Retry-After``);
- **requests at once**: at most ``at_once`` of its requests are served at a time (429);
  the service's own files (scripts, styles) are not counted, as a page asks for all of
  them at once and each costs next to nothing (they are charged to the budget still);
- **event streams**: at most ``streams_per_address`` open at once (429), and at most
  ``streams`` in all (503), a cap below the process's limit of open files
  (``stream_cap``), said at start-up, so that open streams never take the descriptors
  every other request needs.

A refused request waits for its answer (up to ``TARPIT`` seconds, its ``Retry-After`` at
most): a client that asks again at once, as fast as it can, then asks once a second on
each of its connections, and its refusals cost the service next to nothing.

A body is read only after the role check, and no further than its route's limit
(``api_common.read_body``). Scorers, arbiters and directors write with a token or a
session; their writes are not bounded here (what they may do is ``auth``'s).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from starlette.routing import BaseRoute, Match, Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from ledger.vocabulary import language
from web.api_common import json
from web.auth import ANYONE, FILE, PAGE, READ, STREAM, Rule, rule_of
from web.reader import Reader, forwarded_here
from web.service import CHARGED, ON_LIVE, ON_READERS, POOL

_ = language._  # every text a person reads, in the request's language

RESERVED_FILES = 128  # descriptors kept for the store's connections, the log and requests that are not streams
ADDRESSES = 10_000  # addresses remembered at most (the quietest forgotten first)
TARPIT = 1.0  # seconds a refused request waits for its answer, at most


@dataclass
class Bounds:
    """The bounds of one client address (``pulka serve`` options)."""

    rate: float = 0.1  # worker seconds an address may take per second
    burst: float = 0.5  # worker seconds it may save up: a few reads of the sheet at points at once
    cost: float = 0.002  # seconds each request costs besides its worker time (the event loop's work)
    at_once: int = 4  # requests of one address served at once
    # worker seconds all anonymous addresses together may take per second (at least one
    # address's ``rate``), saved up to ``total_burst``: many addresses, each within its
    # own budget, take no more together than the writers can spare
    total_rate: float = 1.0
    total_burst: float = 4.0
    streams_per_address: int = 8
    streams: int = 1000  # at most; below the file limit (``stream_cap``)


def stream_cap(wanted: int, file_limit: int) -> int:
    """Open event streams allowed: ``wanted``, at most the process's file limit less
    what every other request needs (``RESERVED_FILES``), and at least one."""
    return max(1, min(wanted, file_limit - RESERVED_FILES))


def file_limit() -> int:
    """The process's limit of open files (its soft limit)."""
    import resource

    return int(resource.getrlimit(resource.RLIMIT_NOFILE)[0])


@dataclass
class Client:
    """What one address has left and holds: its saved budget (as of ``at``), its
    requests being served and its open streams."""

    budget: float
    at: float
    serving: int = 0
    streams: int = 0


@dataclass
class Limits:
    """The bounds kept for every address, in this process."""

    bounds: Bounds
    clients: OrderedDict[str, Client] = field(default_factory=OrderedDict)
    streams: int = 0
    everyone: Client | None = None  # the budget of all anonymous addresses together

    def together(self, now: float) -> Client:
        """The budget all anonymous addresses share, refilled to ``now``."""
        b = self.bounds
        rate, burst = max(b.total_rate, b.rate), max(b.total_burst, b.burst)
        if self.everyone is None:
            self.everyone = Client(burst, now)
        self.everyone.budget = min(burst, self.everyone.budget + (now - self.everyone.at) * rate)
        self.everyone.at = now
        return self.everyone

    def client(self, address: str, now: float) -> Client:
        found = self.clients.get(address)
        if found is None:
            found = Client(self.bounds.burst, now)
            self.clients[address] = found
            if len(self.clients) > ADDRESSES:
                for key in [k for k, c in self.clients.items() if not c.serving and not c.streams][:ADDRESSES // 10]:
                    del self.clients[key]
        else:
            self.clients.move_to_end(address)
            found.budget = min(self.bounds.burst, found.budget + (now - found.at) * self.bounds.rate)
            found.at = now
        return found

    def admit(self, address: str, stream: bool, now: float, file: bool = False) -> tuple[int, str, float] | None:
        """None when the address may be served now (counted in), else the refusal:
        its status, message and seconds to wait; a ``file`` is not held to ``at_once``."""
        client = self.client(address, now)
        b = self.bounds
        if client.budget <= 0:
            return 429, _("too many requests from this address; wait a little"), -client.budget / b.rate
        everyone = self.together(now)
        if not stream and everyone.budget <= 0:
            return 503, _("the service is answering as many reads as it can now; try again in a moment"), \
                -everyone.budget / max(b.total_rate, b.rate)
        if not stream and not file and client.serving >= b.at_once:
            return 429, _("too many requests from this address at once; wait for their answers"), 1.0
        if stream and client.streams >= b.streams_per_address:
            return 429, _("too many live pages open from this address: close some"), 5.0
        if stream and self.streams >= b.streams:
            return 503, _("the service follows as many live pages as it can now; try again in a moment"), 5.0
        if stream:  # held open: counted apart from the requests being answered
            client.streams += 1
            self.streams += 1
        else:
            client.serving += 1
        return None

    def done(self, address: str, stream: bool, worked: float, now: float) -> None:
        client = self.client(address, now)
        client.budget -= worked + self.bounds.cost
        self.together(now).budget -= worked + self.bounds.cost
        if stream:
            client.streams = max(0, client.streams - 1)
            self.streams = max(0, self.streams - 1)
        else:
            client.serving = max(0, client.serving - 1)


BOUNDED = {READ, PAGE, STREAM, FILE}
FORWARDED = {READ, PAGE}  # the kinds of route a reader process makes (``web.reader``)
# The pool of the bounded routes' work: a read or a page on the readers'; a live page's
# first state on the live feed's, as its later ones (one document per version, made for
# every follower at once: a thousand spectators opening their pages are not a thousand
# reads in the readers' queue).
POOLS = {READ: ON_READERS, PAGE: ON_READERS, STREAM: ON_LIVE, FILE: ON_READERS}


class Bounded:
    """The middleware that keeps every address within ``Limits`` on the routes anyone
    may use."""

    def __init__(self, app: ASGIApp, limits: Limits, routes: list[BaseRoute], tarpit: float = TARPIT,
                 reader: Reader | None = None) -> None:
        self.app = app
        self.limits = limits
        self.routes = routes
        self.tarpit = tarpit
        self.reader = reader  # the process that makes what anyone may read (``web.reader``), if any

    def rule(self, scope: Scope) -> tuple[Rule | None, Any]:
        """The request's rule, and its route's endpoint."""
        for route in self.routes:
            match, _child = route.matches(scope)
            if match == Match.FULL:
                if isinstance(route, Mount):
                    return Rule(ANYONE, FILE), None
                endpoint = getattr(route, "endpoint", None)
                return rule_of(endpoint), endpoint
        return None, None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        found, endpoint = self.rule(scope)
        if found is None or found.who != ANYONE or found.kind not in BOUNDED:
            await self.app(scope, receive, send)
            return
        address = scope["client"][0] if scope.get("client") else "?"
        stream = found.kind == STREAM
        refusal = self.limits.admit(address, stream, time.monotonic(), file=found.kind == FILE)
        if refusal is not None:
            status, message, wait = refusal
            answer = json({"refused": {"rule": "access", "message": message, "allowed": None, "field": None}}, status)
            retry_after = max(1, round(wait + 0.5))
            answer.headers["retry-after"] = str(retry_after)
            # the whole Retry-After (a second at most), not the moment the budget is back
            # above nothing: a client that asks at once again gets one refusal a second
            await asyncio.sleep(min(retry_after, self.tarpit))
            await answer(scope, receive, send)
            return
        charged = [0.0]
        token, pool = CHARGED.set(charged), POOL.set(POOLS[found.kind])
        try:
            if not (found.kind in FORWARDED and await self.forwarded(scope, send, endpoint, charged)):
                await self.app(scope, receive, send)
        finally:
            POOL.reset(pool)
            CHARGED.reset(token)
            self.limits.done(address, stream, charged[0], time.monotonic())


    async def forwarded(self, scope: Scope, send: Send, endpoint: Any, charged: list[float]) -> bool:
        """The request answered by the reader process (True; charged the reader's work,
        as a read made here is charged its own), or left to this one (False): no reader,
        a request with a session, a route this process answers itself, a reader not up."""
        if self.reader is None or not forwarded_here(scope) or getattr(endpoint, "in_process", False):
            return False
        worked = await self.reader.forward(scope, send)
        if worked is None:
            return False
        charged[0] += worked
        return True


def bounds_said(limits: Limits, files: int) -> str:
    b = limits.bounds
    return (f"anonymous clients: each address {b.rate:g} s of work a second (saved up to {b.burst:g} s), "
            f"{b.at_once} requests at once, {b.streams_per_address} live pages; {b.streams} live pages in all "
            f"(the file limit is {files})")
