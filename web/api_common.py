"""What the routes of the JSON API share (docs/api.md): a document as a JSON response,
a request's body decoded into its ``msgspec`` struct (an unknown or mistyped field
refused naming it), a point in time from the query string, and a game as it stands:
its document made once per version, its events as of a point.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from ledger.vocabulary.wording import digits
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from ledger.application import Kept
from ledger.game_documents import game_doc
from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused
from projections.game import GameState
from projections.points import Point, cut
from web.service import Service

_ = language._  # every text a person reads, in the request's language

S = TypeVar("S", bound=msgspec.Struct)


def json(doc: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(doc, enc_hook=encode_extra), status, media_type="application/json")


def encode_extra(value: Any) -> Any:
    if isinstance(value, Fraction | str):  # a text a fold made (``wording.said``): its English
        return str(value)
    raise NotImplementedError(type(value))


def body(request_body: bytes, kind: type[S]) -> S:
    """The request's JSON as ``kind``; a refusal naming the field that is wrong."""
    try:
        return msgspec.json.decode(request_body or b"{}", type=kind)
    except msgspec.ValidationError as exc:
        raise Refused("api", str(exc), "see docs/api.md", field=field_of(str(exc))) from None
    except msgspec.DecodeError as exc:
        raise Refused("api", _("the body is not JSON: {reason}").format(reason=exc), "a JSON object") from None


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
    return service.at_head(game, lambda kept: service.cached(("game", game, len(kept.stored)),
                                                               lambda: game_doc(kept)))


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
                      field=name)
    return int(text)


def time_param(text: str | None) -> str | None:
    if not text:
        return None
    from datetime import datetime

    from ledger.vocabulary.times import parse_local

    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return parse_local(text, zone, end_of_day=True).isoformat()


def events_at(service: Service, game: str, point: Point) -> tuple[Kept, list[Any]]:
    """The kept game and its events as of ``point`` (all when no point)."""
    def read(kept: Kept) -> tuple[Kept, list[Any]]:
        return kept, list(cut([s.event for s in kept.stored], point))
    return service.at_head(game, read)


