"""The API's writes of an arbiter (docs/api.md) beside a tournament's: a new game, and
the tables' tokens (issued for a player of the game or a scorer, with the scorer's link
and its QR code; listed; revoked)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from ledger.desks.pulka import PulkaDesk, Started
from ledger.words.table import player_word
from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused
from web.api_common import game_now, json, read, reused_doc
from web.auth import ARBITER, READ, WRITE, needs, rule
from web.reach import link_base
from web.service import Duplicate, Reused, Service, request_digest

_ = language._  # every text a person reads, in the request's language


class NewGame(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    id: str
    game: str
    players: list[str]
    convention: str = "sochi"
    pulya: int = 20
    stake: str | None = None
    first_dealer: str | None = None
    rules: dict[str, Any] = {}


@rule(ARBITER, WRITE)
async def new_game(request: Request) -> Response:
    service: Service = request.app.state.service
    principal = await needs(request, ARBITER, write=True)
    b = await read(request, NewGame)

    def write() -> dict[str, Any]:
        started: Started = service.once(b.id, lambda w: PulkaDesk(w.ledger).new(
            b.game, b.players, convention=b.convention, pulya=b.pulya, stake=b.stake, first_dealer=b.first_dealer,
            rules=b.rules, by=principal.by), stream=b.game, digest=request_digest("new game", b))
        return {"game": started.game, "created": started.created, "started": msgspec.to_builtins(started.event),
                "leads": started.leads, "state": game_now(service, b.game)}

    try:
        return json(await service.run(write), 201)
    except Duplicate:
        return json({"duplicate": True, "state": await service.run(game_now, service, b.game)})
    except Reused as exc:
        return json({"conflict": reused_doc(exc)}, 409)


class TokenIn(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    holder: str


def links(request: Request, game: str, token: str | None = None) -> dict[str, str]:
    """The page addresses of a game: the spectators' and, with a token, the scorer's (the
    token after ``#``, which a browser never sends to a server nor in a referrer)."""
    base = link_base(request.app.state.public_url, request.app.state.network_url, str(request.base_url))
    out = {"watch": f"{base}/watch/{quote(game, safe='')}"}
    if token is not None:
        out["score"] = f"{base}/score/{quote(game, safe='')}#token={token}"
    return out


def token_holder(players: tuple[str, ...], holder: str) -> str:
    """Who a table's token records as: a player of the game named in any case, else
    ``scorer:NAME``; written ``scorer:NAME`` (the ledger's own form of a recorder who is not
    a player, as ``--by`` and the README write it) it is that scorer, whatever NAME is.
    Never ``arbiter:``: an arbiter records through his own account, not a table's token."""
    holder = holder.strip()
    scorer = holder.removeprefix("scorer:").strip() if holder.startswith("scorer:") else None
    if not holder or holder.startswith("arbiter:") or scorer == "":
        raise Refused("api", _("a token's holder is a player of the game or a scorer's name"),
                      _("{players}, or a name").format(players=", ".join(players)), field="holder")
    if scorer is not None:
        return f"scorer:{scorer}"
    try:
        return player_word(players, holder)
    except Refused:
        return f"scorer:{holder}"


@rule(ARBITER, WRITE)
async def issue_token(request: Request) -> Response:
    """A table's token for one game: who holds it records as that player (a player of the
    game named in any case) or as ``scorer:HOLDER``."""
    service: Service = request.app.state.service
    game_name = request.path_params["game"]
    principal = await needs(request, ARBITER, write=True)
    b = await read(request, TokenIn)

    def issue() -> tuple[str, str]:
        worker = service.worker()
        players = service.at_head(game_name, lambda kept: tuple(getattr(kept.state, "players", ())))
        by = token_holder(players, b.holder)
        return worker.accounts.issue(game_name, by, principal.name), by

    from projections.drawing.qr import qr_svg

    token, by = await service.run(issue)
    addresses = links(request, game_name, token)
    return json({"token": token, "id": token.partition(".")[0], "game": game_name, "by": by, "links": addresses,
                 "qr": qr_svg(addresses["score"])}, 201)


@rule(ARBITER, READ)
async def list_tokens(request: Request) -> Response:
    service: Service = request.app.state.service
    game_name = request.path_params["game"]
    await needs(request, ARBITER)
    found = await service.run(lambda: service.worker().accounts.tokens(game_name))
    return json({"game": game_name, "tokens": [t._asdict() for t in found]})


@rule(ARBITER, WRITE)
async def revoke_token(request: Request) -> Response:
    service: Service = request.app.state.service
    await needs(request, ARBITER, write=True)
    token_id = request.path_params["token"]
    found = await service.run(lambda: service.worker().accounts.revoke(token_id))
    if found is None:
        raise Refused("api", _("no token {id}").format(id=repr(token_id)), field="token")
    return json({"token": found._asdict()})


