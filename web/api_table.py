"""The API's writes of a table (docs/api.md): each command of the scorer's desk as
``POST /api/games/{game}/{command}`` (a deal, a bid, a contract, a defence, tricks, an
entry by hand, the pencil, an annulment, an abandonment, undo, redo, a correction, an
objection, the Code's changes of players and the talon; rulings and penalties, which
are the arbiter's), and a correction, an undo and an abandonment previewed.

Each write is one ``Service.record`` on a worker thread: its body is decoded into a
``msgspec`` struct, who records it is the one signed in (``by`` is never taken from the
body), it is stored once under its id and refused when the version it saw moved on,
and what the desk returns is rendered as JSON with the game as it stands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from ledger.desks.pulka import CorrectionPreview, Corrected, PulkaDesk
from ledger.desks.taken_back import TakenBack
from ledger.desks.told import Told, told_doc
from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.wording import spoken_text
from projections.game import GameState
from projections.report import settlement_doc
from web.api_common import game_since, int_param, json, read, reused_doc
from web.auth import ARBITER, TABLE, WRITE, needs, rule
from web.outcome import DealOutcome, outcome_line
from web.service import Duplicate, Reused, Service, Stale, request_digest

_ = language._  # every text a person reads, in the request's language


class WriteIn(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """What every write carries: its id, made by the client (stored once however often it
    is sent), the version of the stream the client saw (refused when it moved on), and,
    optionally, when it happened at the table (the phone's clock when it was entered, for
    a write sent later: stored beside the time it arrives)."""

    id: str
    version: int
    played_at: str | None = None


class Deal(WriteIn, kw_only=True):
    line: str | None = None
    outcome: DealOutcome | None = None
    again: bool = False
    leave_open: bool = False
    confirmed: bool = False  # a typed line's result doubted as a slip of the order, stored as typed


class BidIn(WriteIn, kw_only=True):
    player: str
    bid: str
    dark: bool = False
    leave_open: bool = False


class ContractIn(WriteIn, kw_only=True):
    player: str
    contract: str
    shared_with: str | None = None
    evident_correction: bool = False


class DefenceIn(WriteIn, kw_only=True):
    player: str
    call: str
    open: bool = False
    hand: str | None = None


class TricksIn(WriteIn, kw_only=True):
    tricks: dict[str, int]
    deal: int | None = None
    penalties: list[str] = []


class EntryIn(WriteIn, kw_only=True):
    player: str
    column: str
    amount: int
    on: str | None = None
    deal: int | None = None


class PencilIn(WriteIn, kw_only=True):
    player: str | None = None


class AnnulIn(WriteIn, kw_only=True):
    reason: str = ""
    dealer_error: bool = False


class AbandonIn(WriteIn, kw_only=True):
    agreed_by: list[str] = []
    demanded_by: str | None = None
    reason: str = ""


class UndoIn(WriteIn, kw_only=True):
    first: int | None = None


class UndoAsked(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    first: int | None = None


class AbandonAsked(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    agreed_by: list[str] = []
    demanded_by: str | None = None
    reason: str = ""


class Changes(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    target: int | str  # an event's number, or its deal: deal:5.tricks, deal:5.contract
    changes: list[str]
    waive: bool = False


class CorrectIn(WriteIn, kw_only=True):
    target: int | str  # an event's number, or its deal: deal:5.tricks, deal:5.contract
    changes: list[str]
    waive: bool = False


class ObjectIn(WriteIn, kw_only=True):
    player: str
    deal: int
    target: int | None = None


class DealtIn(WriteIn, kw_only=True):
    player: str


class TalonIn(WriteIn, kw_only=True):
    kind: str
    player: str
    tricks: int = 0


class JoinIn(WriteIn, kw_only=True):
    player: str
    agreed_by: list[str]
    replaces: str | None = None


class LeaveIn(WriteIn, kw_only=True):
    player: str
    reason: str = ""


class SubstituteIn(WriteIn, kw_only=True):
    player: str
    substitute: str
    agreed_by: list[str]


class RulingIn(WriteIn, kw_only=True):
    rule: str
    tricks: dict[str, int] = {}
    offender: str | None = None
    whists: dict[str, int] = {}
    agreed_by: list[str] = []
    planner: str | None = None
    compensated: list[str] = []
    declarer_result: str | None = None
    reason: str = ""


class PenaltyIn(WriteIn, kw_only=True):
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
    # so the question of a typed line's counts (``told.doubt_of``) never arises for them;
    # a typed line's is asked, until the scorer confirms the line as typed (``confirmed``).
    return desk.deal(game, line, by=by, again=b.again, leave_open=b.leave_open,
                     confirmed=b.confirmed or b.outcome is not None)


Command = tuple[type[WriteIn], str, Callable[[PulkaDesk, str, Any, str], Told | Corrected]]

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
    "redo": (WriteIn, "table", lambda d, g, b, by: d.redo(g, by=by)),
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


@rule(TABLE, WRITE)
async def command(request: Request) -> Response:
    """``POST /api/games/{game}/{command}``: one command of the desk, stored once."""
    service: Service = request.app.state.service
    game_name, name = request.path_params["game"], request.path_params["command"]
    if name not in COMMANDS:
        return json({"refused": {"rule": "api", "message": _("no command {name}").format(name=repr(name)),
                                 "allowed": ", ".join(COMMANDS), "field": None}}, 404)
    kind, who, call = COMMANDS[name]
    principal = await needs(request, who, game=game_name, write=True)
    b = await read(request, kind)

    digest = request_digest(game_name, name, b)
    since = int_param(request.query_params, "since")  # the version the page holds: its answer is a delta

    def write() -> dict[str, Any]:
        result = service.record(game_name, b.id, b.version, lambda desk: call(desk, game_name, b, principal.by),
                                digest, b.played_at)
        return {**written_doc(result), "state": game_since(service, game_name, since)}

    try:
        return json(await service.run(write), 201)
    except Duplicate as exc:
        return json({"duplicate": True, "stored": {"first": exc.receipt.first, "last": exc.receipt.last},
                     "state": await service.run(game_since, service, game_name, since)})
    except Reused as exc:
        return json({"conflict": reused_doc(exc), "state": await service.run(game_since, service, game_name, since)},
                    409)
    except Stale as exc:
        return json({"conflict": {"message": str(exc), "seen": exc.seen, "found": exc.found},
                     "state": await service.run(game_since, service, game_name, since)}, 409)


async def previewing(request: Request, kind: type[Any],
                     make: Callable[[PulkaDesk, str, Any, str | None], dict[str, Any]]) -> Response:
    """What a command would do, made by ``make`` from the request's body (``kind``) on a
    desk of its own, nothing stored."""
    service: Service = request.app.state.service
    game_name = request.path_params["game"]
    principal = await needs(request, "table", game=game_name, write=True)  # a POST with the cookie carries its token
    b = await read(request, kind)
    return json({"preview": await service.run(lambda: make(PulkaDesk(service.worker().ledger), game_name, b,
                                                           principal.by))})


@rule(TABLE, WRITE)
async def preview(request: Request) -> Response:
    """``POST /api/games/{game}/correct/preview``: a correction's verdict, nothing stored."""
    return await previewing(request, Changes, lambda d, g, b, by: preview_doc(
        d.preview_correction(g, b.target, b.changes, by=by, waive=b.waive)))


def taken_back_doc(p: TakenBack) -> dict[str, Any]:
    return {"first": p.first, "last": p.last, "deal": p.deal, "what": p.what, "version": p.expected}


@rule(TABLE, WRITE)
async def undo_preview(request: Request) -> Response:
    """``POST /api/games/{game}/undo/preview``: what undo would take back, nothing stored."""
    return await previewing(request, UndoAsked, lambda d, g, b, by: taken_back_doc(
        d.preview_undo(g, first=b.first, by=by)))


def abandoned_doc(desk: PulkaDesk, game: str, b: AbandonAsked, by: str | None) -> dict[str, Any]:
    outcome = desk.preview_abandon(game, agreed_by=b.agreed_by or None, demanded_by=b.demanded_by, reason=b.reason,
                                   by=by)
    return {"settlement": settlement_doc(outcome.state), "version": outcome.stored[-1].number - 1}


@rule(TABLE, WRITE)
async def abandon_preview(request: Request) -> Response:
    """``POST /api/games/{game}/abandon/preview``: the settlement abandoning the pulka now
    would give, nothing stored."""
    return await previewing(request, AbandonAsked, abandoned_doc)
