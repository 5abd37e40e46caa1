"""What the routes of the JSON API share (docs/api.md): a document as a JSON response,
a request's body decoded into its ``msgspec`` struct (an unknown or mistyped field
refused naming it), a point in time from the query string, and a game as it stands:
its document made once per version, its events as of a point.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from ledger.vocabulary.wording import digits
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from ledger.application import Kept
from ledger.reads.game_documents import game_delta, game_doc
from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused
from projections.game import GameState
from projections.numbers import json_plain
from projections.points import Point, cut
from web.service import Reused, Service

_ = language._  # every text a person reads, in the request's language

S = TypeVar("S", bound=msgspec.Struct)


def json(doc: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(doc, enc_hook=json_plain), status, media_type="application/json")


def reused_doc(exc: Reused) -> dict[str, Any]:
    """A write id used before for another request: nothing stored; both requests' digests."""
    return {"message": str(exc), "id": exc.receipt.key, "reused": True, "stored_digest": exc.receipt.digest,
            "sent_digest": exc.digest}


BODY_MAX = 64 * 1024  # bytes of a write's body: the longest, a tournament's, is a few kilobytes
NESTING_MAX = 32  # lists and objects inside a body (an event holds a few levels: ``admission.DEPTH_MAX``)


class TooLarge(Exception):
    """A body longer than its route allows: HTTP 413, read no further."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(_("the body is longer than {limit} bytes: nothing was read or stored").format(limit=limit))


async def read_body(request: Request, limit: int = BODY_MAX) -> bytes:
    """The request's body, read while it is no longer than ``limit`` bytes: a longer
    one (by its Content-Length, or as it arrives) is refused before the rest is read.
    Called after the route's role check, so that nobody may make the service read a
    body he may not send."""
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise TooLarge(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(limit)
        chunks.append(chunk)
    return b"".join(chunks)


async def read(request: Request, kind: type[S], limit: int = BODY_MAX) -> S:
    """The request's body (``read_body``) decoded as ``kind`` (``body``)."""
    return body(await read_body(request, limit), kind)


def body(request_body: bytes, kind: type[S]) -> S:
    """The request's JSON as ``kind``; a refusal naming the field that is wrong."""
    try:
        decoded = msgspec.json.decode(request_body or b"{}", type=kind)
    except msgspec.ValidationError as exc:
        raise Refused("api", str(exc), "see docs/api.md", field=field_of(str(exc))) from None
    except msgspec.DecodeError as exc:
        raise Refused("api", _("the body is not JSON: {reason}").format(reason=exc), "a JSON object") from None
    except RecursionError:  # msgspec's own bound on nesting, far below Python's stack
        raise Refused("api", _("the body nests lists or objects too deep"),
                      _("at most {levels} levels").format(levels=NESTING_MAX)) from None
    deepest = nesting(msgspec.to_builtins(decoded))
    if deepest[0] > NESTING_MAX:
        raise Refused("api", _("the body nests lists or objects {depth} deep").format(depth=deepest[0]),
                      _("at most {levels} levels").format(levels=NESTING_MAX), field=deepest[1])
    return decoded


def nesting(doc: Any) -> tuple[int, str | None]:
    """How deep lists and objects nest in ``doc`` (walked without recursion), and the
    top-level field where they nest deepest."""
    deepest: tuple[int, str | None] = (0, None)
    stack: list[tuple[Any, int, str | None]] = [(doc, 0, None)]
    while stack:
        value, depth, field = stack.pop()
        if isinstance(value, dict):
            items: list[tuple[Any, str | None]] = [(v, field or k) for k, v in value.items()]
        elif isinstance(value, list):
            items = [(v, field) for v in value]
        else:
            continue
        if depth + 1 > deepest[0]:
            deepest = (depth + 1, field)
        if depth + 1 > NESTING_MAX:
            break
        stack += [(v, depth + 1, f) for v, f in items]
    return deepest


def field_of(message: str) -> str | None:
    """The field a msgspec validation message is about: ``Object contains unknown field
    `by``` or ``… - at `$.version```."""
    unknown = re.search(r"unknown field `([^`]+)`", message)
    if unknown:
        return unknown.group(1)
    at = re.search(r"at `\$\.([A-Za-z_]+)", message)
    return at.group(1) if at else None


# -- what a page shows of a game --------------------------------------------------------------


def pulka_of(kept: Kept) -> GameState:
    """The kept game of a tournament's table: a pulka, as the tournament started it."""
    state = kept.state
    if not isinstance(state, GameState):
        raise Refused("event-log", _("{game} is not a pulka").format(game=kept.game), _("a pulka's name"))
    return state


def game_now(service: Service, game: str) -> dict[str, Any]:
    """``game_doc`` of the game at its head, made once per version (on a worker thread)."""
    return service.at_head(game, lambda kept: _doc_now(service, game, kept))


def game_now_json(service: Service, game: str) -> tuple[int, bytes]:
    """The game's version and ``game_now`` as its read sends it, encoded once per version
    (and language) on a worker thread: a page opened, a phone come back, a live page's
    first state is sent the same bytes again, not the document encoded again on the
    event loop."""
    return service.at_head(game, lambda kept: (len(kept.stored), service.cached(
        ("game.json", game, len(kept.stored)),
        lambda: msgspec.json.encode(_doc_now(service, game, kept), enc_hook=json_plain))))


def _doc_now(service: Service, game: str, kept: Kept) -> dict[str, Any]:
    return service.cached(("game", game, len(kept.stored)), lambda: game_doc(kept))


def game_since(service: Service, game: str, since: int | None) -> dict[str, Any]:
    """What a page at version ``since`` of the game needs to be at its head: ``game_delta``
    (made once per base and version), or the whole ``game_now`` when it names none."""
    if since is None:
        return game_now(service, game)
    return service.at_head(game, lambda kept: service.cached(("delta", game, since, len(kept.stored)),
                                                               lambda: game_delta(kept, since)))


def point_of(request: Request) -> Point:
    """``?at=N``, ``?deal=K`` or ``?time=T`` (ISO 8601; without an offset, the server's zone)."""
    q = request.query_params
    return Point(int_param(q, "at"), int_param(q, "deal"), time_param(q.get("time")))


def int_param(q: Mapping[str, str], name: str) -> int | None:
    text = q.get(name)
    if text is None or text == "":
        return None
    if not digits(text.removeprefix("-")):
        raise Refused("api", _("{name} is a whole number, not {text}").format(name=name, text=repr(text[:40])),
                      _("a whole number, e.g. 12"), field=name)
    return int(text)


def time_param(text: str | None, field: str = "time") -> str | None:
    """A time of the query string (ISO 8601; without an offset, the server's zone), or
    a refusal naming ``field``."""
    if not text:
        return None
    from datetime import datetime

    from ledger.vocabulary.times import EXAMPLE, TimeFormatError, parse_local

    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    try:
        return parse_local(text, zone, end_of_day=True).isoformat()
    except (TimeFormatError, ValueError, OverflowError) as exc:
        raise Refused("api", str(exc), _("e.g. {example}").format(example=EXAMPLE), field=field) from None


def events_at(service: Service, game: str, point: Point) -> tuple[Kept, list[Any]]:
    """The kept game and its events as of ``point`` (all when no point)."""
    def read(kept: Kept) -> tuple[Kept, list[Any]]:
        return kept, list(cut([s.event for s in kept.stored], point))
    return service.at_head(game, read)


