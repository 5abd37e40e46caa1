"""The JSON API (docs/api.md): every command a table's scorer, an arbiter and a director
need, through the same desk and tournament commands as the command line, and the reads.

Each write is one ``Service.record`` (a game's) or ``Service.once`` (a tournament's, a new
game's) on a worker thread: its body is decoded into a ``msgspec`` struct (an unknown or
mistyped field is refused naming it), who records it is the one signed in (``by`` is
never taken from the body), and what the desk returns is rendered as JSON. A refusal of
the desk is HTTP 422 with the rule, the message, what is allowed and the field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, TypeVar
from urllib.parse import quote

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ledger.application import Kept
from ledger.desks.pulka import CorrectionPreview, Corrected, PulkaDesk, Started
from ledger.desks.told import Told, told_doc
from ledger.game_documents import game_doc
from ledger.store.event_store import StoredEvent
from ledger.desks.tournament import Tournaments
from ledger.words.table import player_word
from ledger.vocabulary.events import GameStarted, event_to_dict
from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.tournament_events import TournamentStarted, parse_table_game, table_game
from ledger.vocabulary.wording import spoken_text
from projections.archive import GameResult, game_result
from projections.deal_text import deal_table
from projections.game import GameState
from projections.kinds import kind_of
from projections.points import Point, cut
from projections.tournament_state import as_of, log_rows, standings, standings_doc
from projections.tournament_state import fold as fold_tournament
from projections.trail import row_doc, select
from web.auth import ARBITER, DIRECTOR, Principal, needs
from web.outcome import Outcome, outcome_line
from web.service import Duplicate, Service, Stale

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
    return Point(_int(q, "at"), _int(q, "deal"), _time(q.get("time")))


def _int(q: Mapping[str, str], name: str) -> int | None:
    text = q.get(name)
    if text is None or text == "":
        return None
    if not text.lstrip("-").isdigit():
        raise Refused("api", _("{name} is a whole number, not {text}").format(name=name, text=repr(text[:40])),
                      field=name)
    return int(text)


def _time(text: str | None) -> str | None:
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


# -- the reads --------------------------------------------------------------------------------


async def games(request: Request) -> Response:
    service: Service = request.app.state.service

    def listing() -> list[dict[str, Any]]:
        from ledger.judge.kinds import GAME_STARTS

        store = service.worker().store
        return [{"game": name, "version": store.count(name)} for name in store.games(GAME_STARTS)]

    return json({"games": await service.run(listing)})


async def game(request: Request) -> Response:
    service: Service = request.app.state.service
    return json(await service.run(game_now, service, request.path_params["game"]))


def _view(service: Service, game: str, point: Point) -> Any:
    kept, events = events_at(service, game, point)
    return service.cached(("view", game, len(kept.stored), point),
                          lambda: kind_of(events[0]).view(events, point, None))


async def sheet(request: Request) -> Response:
    service: Service = request.app.state.service
    point = point_of(request)
    view = await service.run(_view, service, request.path_params["game"], point)
    return json(view.sheet_doc())


async def settlement(request: Request) -> Response:
    service: Service = request.app.state.service
    point = point_of(request)
    view = await service.run(_view, service, request.path_params["game"], point)
    return json(view.settlement_doc())


async def sheet_svg(request: Request) -> Response:
    service: Service = request.app.state.service
    game_name, point = request.path_params["game"], point_of(request)

    def drawn() -> str:
        from projections.drawing.svg import svg_document
        from projections.picture import picture

        kept, events = events_at(service, game_name, point)
        if not isinstance(kept.stored[0].event, GameStarted):
            raise Refused("api", _("{game} is not a pulka: it has no drawn sheet").format(game=repr(game_name)))
        return service.cached(("svg", game_name, len(kept.stored), point),
                              lambda: svg_document(picture(events, point)))

    svg = await service.run(drawn)
    return Response(svg, media_type="image/svg+xml",
                    headers={"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})


async def deals(request: Request) -> Response:
    service: Service = request.app.state.service
    game_name, point = request.path_params["game"], point_of(request)

    def table() -> dict[str, Any]:
        from projections.report import state_at

        kept, events = events_at(service, game_name, point)
        if not isinstance(kept.state, GameState):
            raise Refused("api", _("{game} is not a pulka").format(game=repr(game_name)))
        state = state_at(events, point) if point != Point() else kept.state
        head, rows = deal_table(state)
        return {"game": game_name, "columns": head, "rows": [[str(v) if isinstance(v, Fraction) else v for v in r]
                                                             for r in rows]}

    return json(await service.run(table))


async def log(request: Request) -> Response:
    """The audit trail with its filters (``pulka log``)."""
    service: Service = request.app.state.service
    game_name, point = request.path_params["game"], point_of(request)
    await needs(request, "table", game=game_name)
    q = request.query_params

    def trail() -> dict[str, Any]:
        kept, events = events_at(service, game_name, point)
        kind = kind_of(events[0])
        rows = service.cached(("audit", game_name, len(kept.stored), point), lambda: kind.audit(events, None))
        chosen = select(rows, deal=_int(q, "only_deal"), by=q.get("by") or None, types=q.getlist("type"),
                        verdicts=q.get("verdicts") in ("1", "true", "yes"), since=_time(q.get("since")),
                        until=_time(q.get("until")))
        return {"game": game_name, "version": len(kept.stored), "events": [row_doc(r, kind.cells) for r in chosen]}

    return json(await service.run(trail))


async def explain(request: Request) -> Response:
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


async def diff(request: Request) -> Response:
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
    if text.isdigit():
        return Point(at=int(text))
    if text.startswith("deal:") and text[5:].isdigit():
        return Point(deal=int(text[5:]))
    if not text:
        raise Refused("api", _("a point is N, deal:K or a time"), "12, deal:3, 2026-12-01T20:14+01:00", field=field)
    return Point(time=_time(text))


# -- the writes of a table ----------------------------------------------------------------------


class Write(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """What every write carries: its id, made by the client (stored once however often it
    is sent), and the version of the stream the client saw (refused when it moved on)."""

    id: str
    version: int


class Deal(Write, kw_only=True):
    line: str | None = None
    outcome: Outcome | None = None
    again: bool = False
    leave_open: bool = False
    confirmed: bool = False  # a typed line's result doubted as a slip of the order, stored as typed


class BidIn(Write, kw_only=True):
    player: str
    bid: str
    dark: bool = False
    leave_open: bool = False


class ContractIn(Write, kw_only=True):
    player: str
    contract: str
    shared_with: str | None = None
    evident_correction: bool = False


class DefenceIn(Write, kw_only=True):
    player: str
    call: str
    open: bool = False
    hand: str | None = None


class TricksIn(Write, kw_only=True):
    tricks: dict[str, int]
    deal: int | None = None
    penalties: list[str] = []


class EntryIn(Write, kw_only=True):
    player: str
    column: str
    amount: int
    on: str | None = None
    deal: int | None = None


class PencilIn(Write, kw_only=True):
    player: str | None = None


class AnnulIn(Write, kw_only=True):
    reason: str = ""
    dealer_error: bool = False


class AbandonIn(Write, kw_only=True):
    agreed_by: list[str] = []
    demanded_by: str | None = None
    reason: str = ""


class UndoIn(Write, kw_only=True):
    first: int | None = None


class Changes(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    target: int
    changes: list[str]
    waive: bool = False


class CorrectIn(Write, kw_only=True):
    target: int
    changes: list[str]
    waive: bool = False


class ObjectIn(Write, kw_only=True):
    player: str
    deal: int
    target: int | None = None


class DealtIn(Write, kw_only=True):
    player: str


class TalonIn(Write, kw_only=True):
    kind: str
    player: str
    tricks: int = 0


class JoinIn(Write, kw_only=True):
    player: str
    agreed_by: list[str]
    replaces: str | None = None


class LeaveIn(Write, kw_only=True):
    player: str
    reason: str = ""


class SubstituteIn(Write, kw_only=True):
    player: str
    substitute: str
    agreed_by: list[str]


class RulingIn(Write, kw_only=True):
    rule: str
    tricks: dict[str, int] = {}
    offender: str | None = None
    whists: dict[str, int] = {}
    agreed_by: list[str] = []
    planner: str | None = None
    compensated: list[str] = []
    declarer_result: str | None = None
    reason: str = ""


class PenaltyIn(Write, kw_only=True):
    player: str
    column: str
    amount: int
    reason: str
    wronged: str | None = None


def counts(named: Mapping[str, int]) -> list[str]:
    """``{"Anna": 6}`` as the desk's ``Anna=6``."""
    return [f"{name}={n}" for name, n in named.items()]


def deal_call(desk: PulkaDesk, game: str, b: Deal, by: str) -> Told:
    """A deal as typed (``line``) or as a structured outcome (``outcome.outcome_line``)."""
    if (b.line is None) == (b.outcome is None):
        raise Refused("api", _("a deal is a line or an outcome, one of them"), "line or outcome", field="line")
    line = b.line
    if b.outcome is not None:  # on the game as it stands: the service keeps it at its head
        state = desk.kept.state if desk.kept is not None else desk.ledger.state(game)
        if not isinstance(state, GameState):
            raise Refused("event-log", _("{game} is not a pulka").format(game=game), _("a pulka's name"))
        line = outcome_line(state, b.outcome)
    assert line is not None
    # An outcome's counts are named by player: there is no order they could be slipped in,
    # so the doubt of a typed line's result (``table_mode.doubt_of``) is not raised for them;
    # a typed line's is, until the scorer confirms the result as typed (``confirmed``).
    return desk.deal(game, line, by=by, again=b.again, leave_open=b.leave_open,
                     confirmed=b.confirmed or b.outcome is not None)


Command = tuple[type[Write], str, Callable[[PulkaDesk, str, Any, str], Told | Corrected]]

# name -> (its body, who may, the desk call); the table's scorer may do all but rulings
# and penalties, which are the arbiter's [Code 4.2.16].
COMMANDS: dict[str, Command] = {
    "deal": (Deal, "table", deal_call),
    "bid": (BidIn, "table", lambda d, g, b, by: d.bid(g, b.player, b.bid, dark=b.dark, by=by, leave_open=b.leave_open)),
    "contract": (ContractIn, "table", lambda d, g, b, by: d.contract(
        g, b.player, b.contract, shared_with=b.shared_with, evident_correction=b.evident_correction, by=by)),
    "defence": (DefenceIn, "table", lambda d, g, b, by: d.defence(g, b.player, b.call, open=b.open, hand=b.hand, by=by)),
    "tricks": (TricksIn, "table", lambda d, g, b, by: d.tricks(g, counts(b.tricks), deal=b.deal,
                                                               penalties=b.penalties, by=by)),
    "entry": (EntryIn, "table", lambda d, g, b, by: d.entry(g, b.player, b.column, b.amount, on=b.on, deal=b.deal,
                                                            by=by)),
    "pencil": (PencilIn, "table", lambda d, g, b, by: d.pencil(g, b.player or by, by=by)),
    "annul": (AnnulIn, "table", lambda d, g, b, by: d.annul(g, reason=b.reason, dealer_error=b.dealer_error, by=by)),
    "abandon": (AbandonIn, "table", lambda d, g, b, by: d.abandon(g, agreed_by=b.agreed_by or None,
                                                                  demanded_by=b.demanded_by, reason=b.reason, by=by)),
    "undo": (UndoIn, "table", lambda d, g, b, by: d.undo(g, first=b.first, by=by)),
    "correct": (CorrectIn, "table", lambda d, g, b, by: d.correct(g, b.target, b.changes, by=by, waive=b.waive,
                                                                  expected=b.version)),
    "object": (ObjectIn, "table", lambda d, g, b, by: d.object(g, b.player, b.deal, target=b.target, by=by)),
    "dealt": (DealtIn, "table", lambda d, g, b, by: d.dealt(g, b.player, by=by)),
    "talon": (TalonIn, "table", lambda d, g, b, by: d.talon(g, b.kind, b.player, tricks=b.tricks, by=by)),
    "join": (JoinIn, "table", lambda d, g, b, by: d.join(g, b.player, agreed_by=b.agreed_by, replaces=b.replaces,
                                                         by=by)),
    "leave": (LeaveIn, "table", lambda d, g, b, by: d.leave(g, b.player, reason=b.reason, by=by)),
    "substitute": (SubstituteIn, "table", lambda d, g, b, by: d.substitute(g, b.player, b.substitute,
                                                                           agreed_by=b.agreed_by, by=by)),
    "ruling": (RulingIn, ARBITER, lambda d, g, b, by: d.ruling(
        g, b.rule, counts(b.tricks), offender=b.offender, whists=counts(b.whists), agreed_by=b.agreed_by or None,
        planner=b.planner, compensated=b.compensated or None, declarer_result=b.declarer_result, reason=b.reason,
        by=by)),
    "penalty": (PenaltyIn, ARBITER, lambda d, g, b, by: d.penalty(g, b.player, b.column, b.amount, reason=b.reason,
                                                                  by=by, wronged=b.wronged)),
}


def written_doc(result: Told | Corrected) -> dict[str, Any]:
    if isinstance(result, Corrected):
        return {"told": told_doc(result.told), "preview": preview_doc(result.preview)}
    return {"told": told_doc(result)}


def preview_doc(p: CorrectionPreview) -> dict[str, Any]:
    return {
        "target": p.target, "deal": p.deal, "recorded_by": p.recorded_by, "asked_by": p.asked_by,
        "was": p.was, "now": p.now,
        "writes": [{"cell": w.text, "amount": str(w.amount)} for w in p.writes],
        "verdict": p.verdicts[0].kind if p.verdicts else "free",
        "verdicts": [{"number": v.number, "kind": v.kind, "effective": v.effect.effective, "rule": v.effect.rule,
                      "reason": spoken_text(v.effect.reason)} for v in p.verdicts],
        "version": p.expected,
    }


async def command(request: Request) -> Response:
    """``POST /api/games/{game}/{command}``: one command of the desk, stored once."""
    service: Service = request.app.state.service
    game_name, name = request.path_params["game"], request.path_params["command"]
    if name not in COMMANDS:
        return json({"refused": {"rule": "api", "message": _("no command {name}").format(name=repr(name)),
                                 "allowed": ", ".join(COMMANDS), "field": None}}, 404)
    kind, who, call = COMMANDS[name]
    principal = await needs(request, who, game=game_name, write=True)
    b = body(await request.body(), kind)

    def write() -> dict[str, Any]:
        result = service.record(game_name, b.id, b.version, lambda desk: call(desk, game_name, b, principal.by))
        return {**written_doc(result), "state": game_now(service, game_name)}

    try:
        return json(await service.run(write), 201)
    except Duplicate as exc:
        return json({"duplicate": True, "stored": {"first": exc.receipt.first, "last": exc.receipt.last},
                     "state": await service.run(game_now, service, game_name)})
    except Stale as exc:
        return json({"conflict": {"message": str(exc), "seen": exc.seen, "found": exc.found},
                     "state": await service.run(game_now, service, game_name)}, 409)


async def preview(request: Request) -> Response:
    """``POST /api/games/{game}/correct/preview``: a correction's verdict, nothing stored."""
    service: Service = request.app.state.service
    game_name = request.path_params["game"]
    principal = await needs(request, "table", game=game_name)
    b = body(await request.body(), Changes)

    def previewed() -> dict[str, Any]:
        desk = PulkaDesk(service.worker().ledger)
        return preview_doc(desk.preview_correction(game_name, b.target, b.changes, by=principal.by, waive=b.waive))

    return json({"preview": await service.run(previewed)})


# -- an arbiter's: a new game, the tables' tokens ------------------------------------------------


class NewGame(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    id: str
    game: str
    players: list[str]
    convention: str = "sochi"
    pulya: int = 20
    stake: str | None = None
    first_dealer: str | None = None
    rules: dict[str, Any] = {}


async def new_game(request: Request) -> Response:
    service: Service = request.app.state.service
    principal = await needs(request, ARBITER, write=True)
    b = body(await request.body(), NewGame)

    def write() -> dict[str, Any]:
        started: Started = service.once(b.id, lambda w: PulkaDesk(w.ledger).new(
            b.game, b.players, convention=b.convention, pulya=b.pulya, stake=b.stake, first_dealer=b.first_dealer,
            rules=b.rules, by=principal.by))
        return {"game": started.game, "created": started.created, "started": msgspec.to_builtins(started.event),
                "leads": started.leads, "state": game_now(service, b.game)}

    try:
        return json(await service.run(write), 201)
    except Duplicate:
        return json({"duplicate": True, "state": await service.run(game_now, service, b.game)})


class TokenIn(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    holder: str


def links(request: Request, game: str, token: str | None = None) -> dict[str, str]:
    """The page addresses of a game: the spectators' and, with a token, the scorer's (the
    token after ``#``, which a browser never sends to a server nor in a referrer)."""
    base = str(request.app.state.public_url or request.base_url).rstrip("/")
    out = {"watch": f"{base}/watch/{quote(game, safe='')}"}
    if token is not None:
        out["score"] = f"{base}/score/{quote(game, safe='')}#token={token}"
    return out


async def issue_token(request: Request) -> Response:
    """A table's token for one game: who holds it records as that player (a player of the
    game named in any case) or as ``scorer:HOLDER``."""
    service: Service = request.app.state.service
    game_name = request.path_params["game"]
    principal = await needs(request, ARBITER, write=True)
    b = body(await request.body(), TokenIn)

    def issue() -> tuple[str, str]:
        worker = service.worker()
        players = service.at_head(game_name, lambda kept: tuple(getattr(kept.state, "players", ())))
        holder = b.holder.strip()
        if not holder or holder.startswith(("arbiter:", "scorer:")):
            raise Refused("api", _("a token's holder is a player of the game or a scorer's name"),
                          ", ".join(players) + ", or a name", field="holder")
        try:
            by = player_word(players, holder)
        except Refused:
            by = f"scorer:{holder}"
        return worker.accounts.issue(game_name, by, principal.name), by

    from projections.drawing.qr import qr_svg

    token, by = await service.run(issue)
    addresses = links(request, game_name, token)
    return json({"token": token, "id": token.partition(".")[0], "game": game_name, "by": by, "links": addresses,
                 "qr": qr_svg(addresses["score"])}, 201)


async def list_tokens(request: Request) -> Response:
    service: Service = request.app.state.service
    game_name = request.path_params["game"]
    await needs(request, ARBITER)
    found = await service.run(lambda: service.worker().accounts.tokens(game_name))
    return json({"game": game_name, "tokens": [t._asdict() for t in found]})


async def revoke_token(request: Request) -> Response:
    service: Service = request.app.state.service
    await needs(request, ARBITER, write=True)
    token_id = request.path_params["token"]
    found = await service.run(lambda: service.worker().accounts.revoke(token_id))
    if found is None:
        raise Refused("api", _("no token {id}").format(id=repr(token_id)), field="token")
    return json({"token": found._asdict()})


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


async def tournament_list(request: Request) -> Response:
    service: Service = request.app.state.service
    names = await service.run(lambda: service.worker().store.games(TournamentStarted))
    return json({"tournaments": names})


async def tournament(request: Request) -> Response:
    service: Service = request.app.state.service
    q = request.query_params
    doc = await service.run(tournament_now, service, request.path_params["tournament"], _int(q, "tour"),
                            _time(q.get("time")))
    return json(doc)


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


def _started(b: TournamentIn, by: str) -> TournamentStarted:
    from cli.tournament import parse_cut, parse_cutoff, parse_tie_breaks

    return TournamentStarted(
        game=b.name, players=tuple(p.strip() for p in b.players if p.strip()), pulya=b.pulya,
        convention=b.convention, rules=dict(b.rules), tours=b.tours, deal_cap=b.deal_cap, table_size=b.table_size,
        cutoff=parse_cutoff(b.cutoff), tie_breaks=parse_tie_breaks(b.tie_breaks), lot_seed=b.lot_seed,
        removal_below=b.removal_below, cards_to_disqualify=b.cards, cuts=tuple(parse_cut(c) for c in b.cuts),
        final_table=b.final_table, by=by)


async def tournament_write(request: Request, name: str, who: str, kind: type[S],
                           write: Callable[[Tournaments, S, Principal], list[StoredEvent]]) -> Response:
    service: Service = request.app.state.service
    principal = await needs(request, who, write=True)
    b = body(await request.body(), kind)

    def run() -> dict[str, Any]:
        done: list[StoredEvent] = service.once(getattr(b, "id"), lambda w: write(Tournaments(w.ledger), b, principal))
        return {"stored": [{"number": s.number, **event_to_dict(s.event)} for s in done],
                "tournament": tournament_now(service, name)}

    try:
        return json(await service.run(run), 201)
    except Duplicate:
        return json({"duplicate": True, "tournament": await service.run(tournament_now, service, name)})


async def tournament_new(request: Request) -> Response:
    raw = await request.body()
    name = body(raw, TournamentIn).name
    def create(t: Tournaments, b: TournamentIn, p: Principal) -> list[StoredEvent]:
        started = t.create(_started(b, p.by))
        return [StoredEvent(1, started, "")]

    return await tournament_write(request, name, DIRECTOR, TournamentIn, create)


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


async def tournament_start(request: Request) -> Response:
    name, tour = request.path_params["tournament"], request.path_params["tour"]
    return await tournament_write(request, name, DIRECTOR, TourIn,
                                  lambda t, b, p: [o.stored[0] for o in t.start_tables(name, tour, p.by)])


async def tournament_close(request: Request) -> Response:
    name, tour = request.path_params["tournament"], request.path_params["tour"]
    return await tournament_write(request, name, DIRECTOR, TourIn, lambda t, b, p: t.close(name, tour, p.by))


async def tournament_card(request: Request) -> Response:
    name = request.path_params["tournament"]
    return await tournament_write(request, name, ARBITER, CardIn,
                                  lambda t, b, p: t.card(name, b.player, b.reason, p.by))


# -- live -------------------------------------------------------------------------------------------


async def live_message(service: Service, stream: str, version: int) -> dict[str, Any] | None:
    """What the followers of ``stream`` are sent when it reaches ``version``: a game's
    state (as ``GET /api/games/{game}``), or the tournament's name and version."""
    table = parse_table_game(stream)
    try:
        doc = await service.run(game_now, service, stream)
    except Refused:
        return {"stream": stream, "version": version, "kind": "tournament"}
    message = {"stream": stream, "version": doc["version"], "kind": "game", "state": doc}
    if table is not None:
        message["tournament"] = table[0]
    return message


def routes() -> list[Route]:
    return [
        Route("/api/games", games, methods=["GET"]),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game:path}/sheet.svg", sheet_svg, methods=["GET"]),
        Route("/api/games/{game:path}/sheet", sheet, methods=["GET"]),
        Route("/api/games/{game:path}/settlement", settlement, methods=["GET"]),
        Route("/api/games/{game:path}/deals", deals, methods=["GET"]),
        Route("/api/games/{game:path}/log", log, methods=["GET"]),
        Route("/api/games/{game:path}/explain", explain, methods=["GET"]),
        Route("/api/games/{game:path}/diff", diff, methods=["GET"]),
        Route("/api/games/{game:path}/tokens", issue_token, methods=["POST"]),
        Route("/api/games/{game:path}/tokens", list_tokens, methods=["GET"]),
        Route("/api/games/{game:path}/correct/preview", preview, methods=["POST"]),
        Route("/api/games/{game:path}/{command}", command, methods=["POST"]),
        Route("/api/games/{game:path}", game, methods=["GET"]),
        Route("/api/tokens/{token}", revoke_token, methods=["DELETE"]),
        Route("/api/tournaments", tournament_list, methods=["GET"]),
        Route("/api/tournaments", tournament_new, methods=["POST"]),
        Route("/api/tournaments/{tournament}/log", tournament_log, methods=["GET"]),
        Route("/api/tournaments/{tournament}/cards", tournament_card, methods=["POST"]),
        Route("/api/tournaments/{tournament}/tours/{tour:int}/seat", tournament_seat, methods=["POST"]),
        Route("/api/tournaments/{tournament}/tours/{tour:int}/start", tournament_start, methods=["POST"]),
        Route("/api/tournaments/{tournament}/tours/{tour:int}/close", tournament_close, methods=["POST"]),
        Route("/api/tournaments/{tournament}", tournament, methods=["GET"]),
    ]
