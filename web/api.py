"""The JSON API (docs/api.md): every command a table's scorer, an arbiter and a director
need, through the same desk and tournament commands as the command line, and the reads.
Its routes are all listed here (``routes``), with the reads of a game and a
tournament's reads and writes; a table's writes are ``web.api_table``, an arbiter's
(a new game, the tables' tokens) ``web.api_arbiter``, the printed pages (PDF)
``web.api_print``, what they share ``web.api_common``.

Each write is one ``Service.record`` (a game's) or ``Service.once`` (a tournament's, a new
game's) on a worker thread: its body is decoded into a ``msgspec`` struct (an unknown or
mistyped field is refused naming it), who records it is the one signed in (``by`` is
never taken from the body), and what the desk returns is rendered as JSON. A refusal of
the desk is HTTP 422 with the rule, the message, what is allowed and the field.
"""

from __future__ import annotations

from collections.abc import Callable
from ledger.vocabulary.wording import digits
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ledger.application import Kept
from ledger.store.stored import StoredEvent
from ledger.desks.tournament import Tournaments
from ledger.words.tournament import parse_cut, parse_cutoff, parse_tie_breaks
from ledger.vocabulary.events import AnyEvent, event_to_dict
from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import TournamentStarted, parse_table_game, table_game
from projections.archive import GameResult, game_result
from projections.at_points import PointFolds
from projections.deal_text import table_json
from projections.game import GameState
from projections.kinds import kind_of
from projections.points import Point, cut
from projections.tournament_state import as_of, fold_tournament, standings, standings_doc
from projections.tournament_log import log_rows
from projections.trail import select_rows, trail_json, trail_row_json
from web import api_arbiter, api_print, api_table
from web.api_common import (
    S, events_at, game_now_json, game_since, int_param, json, point_of, pulka_of, read, reused_doc, time_param,
)
from web.auth import ANYONE, ARBITER, DIRECTOR, READ, TABLE, WRITE, Principal, needs, rule
from web.service import Duplicate, Reused, Service, request_digest

_ = language._  # every text a person reads, in the request's language


# -- the reads --------------------------------------------------------------------------------


@rule(ANYONE, READ)
async def game_list(request: Request) -> Response:
    service: Service = request.app.state.service

    def listing() -> list[dict[str, Any]]:
        from ledger.judge.kinds import GAME_STARTS

        store = service.worker().store
        return [{"game": name, "version": store.count(name)} for name in store.games(GAME_STARTS)]

    return json({"games": await service.run(listing)})


@rule(ANYONE, READ)
async def game(request: Request) -> Response:
    service: Service = request.app.state.service
    _version, doc = await service.run(game_now_json, service, request.path_params["game"])
    return Response(doc, media_type="application/json")


def _view(service: Service, game: str, point: Point) -> Any:
    def read(kept: Kept, events: list[AnyEvent], points: PointFolds | None) -> Any:
        if points is not None:  # a pulka: from its kept forks
            return service.cached(("view", game, len(kept.stored), point), lambda: points.view(events, point))
        cut_events = cut(events, point)
        return service.cached(("view", game, len(kept.stored), point),
                              lambda: kind_of(events[0]).view(cut_events, point, None))

    return service.at_point(game, read)


@rule(ANYONE, READ)
async def sheet_json(request: Request) -> Response:
    service: Service = request.app.state.service
    game_name, point = request.path_params["game"], point_of(request)
    return json(await service.run(lambda: _view(service, game_name, point).sheet_doc()))  # made off the event loop


@rule(ANYONE, READ)
async def settlement(request: Request) -> Response:
    service: Service = request.app.state.service
    game_name, point = request.path_params["game"], point_of(request)
    return json(await service.run(lambda: _view(service, game_name, point).settlement_doc()))  # off the event loop


@rule(ANYONE, READ)
async def sheet_svg(request: Request) -> Response:
    service: Service = request.app.state.service
    game_name, point = request.path_params["game"], point_of(request)
    alone = request.query_params.get("part") == "sheet"

    def drawn(kept: Kept, events: list[AnyEvent], points: PointFolds | None) -> str:
        from ledger.judge.tables import deal_cap_of
        from projections.drawing.svg import page_sheet, svg_document

        if points is None:
            cut(events, point)  # a point the game does not have is refused first, as for a pulka
            raise Refused("api", _("{game} is not a pulka: it has no drawn sheet").format(game=repr(game_name)))
        # ?part=sheet: the sheet alone, for a page that shows the title and the
        # settlement as its own text and draws the sheet in itself with sheet.css
        draw = page_sheet if alone else svg_document
        # a tournament's table at its deal cap is drawn over, as pulka sheet --svg draws it
        return service.cached(("svg", game_name, len(kept.stored), point, alone), lambda: draw(
            points.picture(events, point, deal_cap_of(service.worker().store, game_name))))

    svg = await service.run(service.at_point, game_name, drawn)
    return Response(svg, media_type="image/svg+xml",
                    headers={"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})


@rule(ANYONE, READ)
async def deals(request: Request) -> Response:
    service: Service = request.app.state.service
    game_name, point = request.path_params["game"], point_of(request)

    def table(kept: Kept, events: list[AnyEvent], points: PointFolds | None) -> bytes:
        if points is None or not isinstance(kept.state, GameState):
            cut(events, point)  # a point the game does not have is refused first, as for a pulka
            raise Refused("api", _("{game} is not a pulka").format(game=repr(game_name)))
        head, rows = points.deals(events, point)
        return table_json(game_name, head, rows)

    return Response(await service.run(service.at_point, game_name, table), media_type="application/json")


@rule(TABLE, READ)
async def log(request: Request) -> Response:
    """The audit trail with its filters (``pulka log``)."""
    service: Service = request.app.state.service
    game_name, point = request.path_params["game"], point_of(request)
    await needs(request, "table", game=game_name)
    q = request.query_params

    def trail(kept: Kept, events: list[AnyEvent], points: PointFolds | None) -> bytes:
        kind = kind_of(events[0])
        if points is not None:  # a pulka: from its kept trail
            rows = service.cached(("audit", game_name, len(kept.stored), point), lambda: points.audit(events, point))
        else:
            cut_events = cut(events, point)
            rows = service.cached(("audit", game_name, len(kept.stored), point),
                                  lambda: kind.audit(cut_events, None))
        chosen = select_rows(rows, deal=int_param(q, "only_deal"), by=q.get("by") or None, types=q.getlist("type"),
                             verdicts=q.get("verdicts") in ("1", "true", "yes"),
                             since=time_param(q.get("since"), "since"), until=time_param(q.get("until"), "until"))
        made = (points.audit_json(events, chosen, kind.cells) if points is not None
                else [trail_row_json(r, kind.cells) for r in chosen])
        return trail_json(game_name, len(kept.stored), made)

    return Response(await service.run(service.at_point, game_name, trail), media_type="application/json")


@rule(TABLE, READ)
async def explain_json(request: Request) -> Response:
    service: Service = request.app.state.service
    game_name, point = request.path_params["game"], point_of(request)
    await needs(request, "table", game=game_name)
    cell_text = request.query_params.get("cell", "")

    def trace() -> dict[str, Any]:
        view = _view(service, game_name, point)
        try:
            cell = view.parse_cell(cell_text)
        except ValueError as exc:
            raise Refused("api", str(exc), field="cell") from None
        return {"game": game_name, "number": cell_text, "writes": view.explain(cell)}

    return json(await service.run(trace))


@rule(TABLE, READ)
async def diff_json(request: Request) -> Response:
    service: Service = request.app.state.service
    game_name = request.path_params["game"]
    await needs(request, "table", game=game_name)
    q = request.query_params

    def compared() -> dict[str, Any]:
        kept, events = events_at(service, game_name, Point())
        a, b = _point_text(q.get("from", ""), "from"), _point_text(q.get("to", ""), "to")
        result: dict[str, Any] = kind_of(events[0]).diff(events, a, b)
        return result

    return json(await service.run(compared))


def _point_text(text: str, field: str) -> Point:
    """``12`` (event 12), ``deal:3`` (the end of deal 3) or a time, as ``pulka diff`` takes them."""
    if digits(text):
        return Point(at=int(text))
    if text.startswith("deal:") and digits(text[5:]):
        return Point(deal=int(text[5:]))
    if not text:
        raise Refused("api", _("a point is N, deal:K or a time"), "12, deal:3, 2026-12-01T20:14+01:00", field=field)
    return Point(time=time_param(text, field))


# -- tournaments ---------------------------------------------------------------------------------


def tournament_now(service: Service, name: str, tour: int | None = None, time: str | None = None) -> dict[str, Any]:
    """The tournament as its page shows it: its seating, each table's state (from the kept
    folds of its games) and the standings with the tables in play."""
    tournaments = Tournaments(service.worker().ledger)
    stored = tournaments.events(name)
    state = fold_tournament([s.event for s in stored])
    cap = state.started.deal_cap
    tables: list[dict[str, Any]] = []
    results: dict[str, GameResult] = {}
    for r, seated in sorted(state.seating.items()):
        for k in sorted(seated):
            game_name = table_game(name, r, k)
            if not service.worker().store.count(game_name):
                tables.append({"game": game_name, "tour": r, "table": k, "players": list(seated[k]), "version": 0})
                continue
            version, result = service.at_head(game_name, lambda kept: (len(kept.stored), game_result(pulka_of(kept), cap)))
            if r not in state.closed:
                results[game_name] = result
            tables.append({"game": game_name, "tour": r, "table": k, "players": list(seated[k]), "version": version,
                           "status": result.status, "deals": result.deals, "whists": result.whists})
    if tour is not None or time is not None:
        events = as_of([s.event for s in stored], tour, time)
        table = standings(fold_tournament(events), None if tour is not None else tournaments.replayed(
            fold_tournament(events), time))
    else:
        table = standings(state, results)
    return {"tournament": name, "version": len(stored), "tours": state.started.tours,
            "closed": sorted(state.closed), "over": state.over, "tables": tables, "standings": standings_doc(table)}


@rule(ANYONE, READ)
async def tournament_list(request: Request) -> Response:
    service: Service = request.app.state.service
    names = await service.run(lambda: service.worker().store.games(TournamentStarted))
    return json({"tournaments": names})


@rule(ANYONE, READ)
async def tournament_json(request: Request) -> Response:
    service: Service = request.app.state.service
    q = request.query_params
    doc = await service.run(tournament_now, service, request.path_params["tournament"], int_param(q, "tour"),
                            time_param(q.get("time")))
    return json(doc)


@rule(ANYONE, READ)
async def tournament_log(request: Request) -> Response:
    service: Service = request.app.state.service
    name = request.path_params["tournament"]

    def rows() -> dict[str, Any]:
        found = log_rows([s.event for s in Tournaments(service.worker().ledger).events(name)])
        return {"tournament": name, "events": [{"number": r.number, "at": r.at, "by": r.by, "type": r.type,
                                                "effect": r.effect} for r in found]}

    return json(await service.run(rows))


class TournamentIn(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    id: str
    name: str
    players: list[str]
    pulya: int
    convention: str = "sochi"
    tours: int | None = None
    deal_cap: int | None = None
    table_size: int = 4
    rules: dict[str, Any] = {}
    cutoff: str | None = None
    tie_breaks: str | None = None
    lot_seed: str | None = None
    removal_below: int | None = None
    cards: int = 2
    cuts: list[str] = []
    final_table: int | None = None


class SeatIn(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    id: str
    auto: bool = False
    seed: str | None = None
    table: int | None = None
    players: list[str] = []


class TourIn(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    id: str


class CardIn(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    id: str
    player: str
    reason: str


async def tournament_write(request: Request, name: str | None, who: str, kind: type[S],
                           write: Callable[[Tournaments, S, Principal], list[StoredEvent]]) -> Response:
    """A tournament's write: who may first, then the body read and decoded (``name``
    None: the tournament the body names, a new one)."""
    service: Service = request.app.state.service
    principal = await needs(request, who, write=True)
    b = await read(request, kind)
    stream = name if name is not None else str(getattr(b, "name"))

    digest = request_digest(request.url.path, b)

    def run() -> dict[str, Any]:
        done: list[StoredEvent] = service.once(getattr(b, "id"), lambda w: write(Tournaments(w.ledger), b, principal),
                                               stream=stream, digest=digest)
        return {"stored": [{"number": s.number, **event_to_dict(s.event)} for s in done],
                "tournament": tournament_now(service, stream)}

    try:
        return json(await service.run(run), 201)
    except Duplicate:
        return json({"duplicate": True, "tournament": await service.run(tournament_now, service, stream)})
    except Reused as exc:
        return json({"conflict": reused_doc(exc)}, 409)


@rule(DIRECTOR, WRITE)
async def tournament_new(request: Request) -> Response:
    def create(t: Tournaments, b: TournamentIn, p: Principal) -> list[StoredEvent]:
        started = t.start(
            b.name, b.players, b.pulya, convention=b.convention, rules=b.rules, tours=b.tours, deal_cap=b.deal_cap,
            table_size=b.table_size, cutoff=parse_cutoff(b.cutoff), tie_breaks=parse_tie_breaks(b.tie_breaks),
            lot_seed=b.lot_seed, removal_below=b.removal_below, cards=b.cards, cuts=[parse_cut(c) for c in b.cuts],
            final_table=b.final_table, by=p.by)
        return [StoredEvent(1, started, "")]

    return await tournament_write(request, None, DIRECTOR, TournamentIn, create)


@rule(DIRECTOR, WRITE)
async def tournament_seat(request: Request) -> Response:
    name, tour = request.path_params["tournament"], request.path_params["tour"]

    def seat(t: Tournaments, b: SeatIn, p: Principal) -> list[StoredEvent]:
        if b.auto:
            return t.seat_auto(name, tour, b.seed, p.by)
        if b.table is None or not b.players:
            raise Refused("api", _("give the table and its players, or auto"), "auto, or table and players",
                          field="table")
        return t.seat(name, tour, b.table, b.players, p.by)

    return await tournament_write(request, name, DIRECTOR, SeatIn, seat)


@rule(DIRECTOR, WRITE)
async def tournament_start(request: Request) -> Response:
    name, tour = request.path_params["tournament"], request.path_params["tour"]
    return await tournament_write(request, name, DIRECTOR, TourIn,
                                  lambda t, b, p: [o.stored[0] for o in t.start_tables(name, tour, p.by)])


@rule(DIRECTOR, WRITE)
async def tournament_close(request: Request) -> Response:
    name, tour = request.path_params["tournament"], request.path_params["tour"]
    return await tournament_write(request, name, DIRECTOR, TourIn, lambda t, b, p: t.close(name, tour, p.by))


@rule(ARBITER, WRITE)
async def tournament_card(request: Request) -> Response:
    name = request.path_params["tournament"]
    return await tournament_write(request, name, ARBITER, CardIn,
                                  lambda t, b, p: t.card(name, b.player, b.reason, p.by))


# -- live -------------------------------------------------------------------------------------------


async def live_message(service: Service, stream: str, version: int, since: int | None = None) -> dict[str, Any] | None:
    """What the followers of ``stream`` are sent when it reaches ``version``: a game's
    state (as ``GET /api/games/{game}``, or what changed since version ``since``, told
    before: ``game_delta``), or the tournament's name and version."""
    table = parse_table_game(stream)
    try:
        doc = await service.run(game_since, service, stream, since)
    except Refused:
        return {"stream": stream, "version": version, "kind": "tournament"}
    message = {"stream": stream, "version": doc["version"], "kind": "game", "state": doc}
    if table is not None:
        message["tournament"] = table[0]
    return message


def routes() -> list[Route]:
    return [
        *api_print.routes(),
        Route("/api/games", game_list, methods=["GET"]),
        Route("/api/games", api_arbiter.new_game, methods=["POST"]),
        Route("/api/games/{game:path}/sheet.svg", sheet_svg, methods=["GET"]),
        Route("/api/games/{game:path}/sheet", sheet_json, methods=["GET"]),
        Route("/api/games/{game:path}/settlement", settlement, methods=["GET"]),
        Route("/api/games/{game:path}/deals", deals, methods=["GET"]),
        Route("/api/games/{game:path}/log", log, methods=["GET"]),
        Route("/api/games/{game:path}/explain", explain_json, methods=["GET"]),
        Route("/api/games/{game:path}/diff", diff_json, methods=["GET"]),
        Route("/api/games/{game:path}/tokens", api_arbiter.issue_token, methods=["POST"]),
        Route("/api/games/{game:path}/tokens", api_arbiter.list_tokens, methods=["GET"]),
        Route("/api/games/{game:path}/correct/preview", api_table.preview, methods=["POST"]),
        Route("/api/games/{game:path}/undo/preview", api_table.undo_preview, methods=["POST"]),
        Route("/api/games/{game:path}/abandon/preview", api_table.abandon_preview, methods=["POST"]),
        Route("/api/games/{game:path}/{command}", api_table.command, methods=["POST"]),
        Route("/api/games/{game:path}", game, methods=["GET"]),
        Route("/api/tokens/{token}", api_arbiter.revoke_token, methods=["DELETE"]),
        Route("/api/tournaments", tournament_list, methods=["GET"]),
        Route("/api/tournaments", tournament_new, methods=["POST"]),
        Route("/api/tournaments/{tournament}/log", tournament_log, methods=["GET"]),
        Route("/api/tournaments/{tournament}/cards", tournament_card, methods=["POST"]),
        Route("/api/tournaments/{tournament}/tours/{tour:int}/seat", tournament_seat, methods=["POST"]),
        Route("/api/tournaments/{tournament}/tours/{tour:int}/start", tournament_start, methods=["POST"]),
        Route("/api/tournaments/{tournament}/tours/{tour:int}/close", tournament_close, methods=["POST"]),
        Route("/api/tournaments/{tournament}", tournament_json, methods=["GET"]),
    ]
