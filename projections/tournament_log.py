"""A tournament's log for people (``pulka tournament log``, the API's tournament log):
what each of its events did, said from the tournament as it stood (``effect``), in the
columns of a game's log (``render_log``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import assert_never

from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.tournament_events import (
    DEFAULT_TIE_BREAKS,
    CutMade,
    Disqualified,
    Removed,
    Seated,
    TourClosed,
    TournamentEvent,
    TournamentStarted,
    YellowCard,
    table_game,
)
from ledger.vocabulary import language
from ledger.vocabulary.language import N_
from ledger.vocabulary.wording import convention_name, spoken_count
from projections.game import rules_of
from projections.tournament_state import TournamentState, as_tournament_event, tie_breaks_text

_ = language._  # every text a person reads, in the language in effect

_ENDS = {"finished": N_("finished"), "abandoned": N_("abandoned"), "capped": N_("capped")}  # how a table's pulka ended


def effect(event: TournamentEvent, state: TournamentState) -> str:
    """What one event of the tournament did, for ``pulka tournament log``, in the reader's
    language."""
    match event:
        case TournamentStarted():
            return _("tournament {name} started: {what}").format(name=event.game, what="; ".join(_started(event)))
        case Seated():
            how = {"manual": _("by hand"), "lot": _("by lot (seed {seed})").format(seed=event.seed),
                   "swiss": _("Swiss, by the standings"), "final": _("the final table")}[event.method]
            return _("tour {tour}, table {table} ({game}): {players}; {how}").format(
                tour=event.tour, table=event.table, game=table_game(state.name, event.tour, event.table),
                players=", ".join(event.players), how=how)
        case TourClosed():
            tables = "; ".join(
                _("table {table} {end} after {deals}: {whists}").format(
                    table=t.table, end=_(_ENDS[t.end]), deals=spoken_count(t.deals, "deal"),
                    whists=", ".join(f"{p} {w:+d}" for p, w in t.whists.items()))
                for t in event.tables
            )
            return _("tour {tour} closed: {tables}").format(tour=event.tour, tables=tables)
        case YellowCard():
            n = len(state.cards.get(event.player, []))
            return _("yellow card {n} to {player} in tour {tour}").format(n=n, player=event.player, tour=event.tour) \
                + _reason(event.reason)
        case Removed():
            return _("{player} sits out tour {tour}").format(player=event.player, tour=event.tour) + _reason(event.reason)
        case Disqualified():
            return _("{player} disqualified in tour {tour}").format(player=event.player, tour=event.tour) \
                + _reason(event.reason)
        case CutMade():
            return _("cut after tour {tour}: {n} go on ({players})").format(tour=event.after_tour, n=len(event.kept),
                                                                            players=", ".join(event.kept))
        case _:
            assert_never(event)


def _reason(reason: str | None) -> str:
    return f": {reason}" if reason else ""


def _started(s: TournamentStarted) -> list[str]:
    """The rules a tournament started with, each said in the reader's language."""
    parts = [spoken_count(len(s.players), "player"),
             _("{convention}, pulya to {pulya}").format(convention=convention_name(rules_of(s).convention), pulya=s.pulya),
             _("tables of {size}").format(size=s.table_size)]
    if s.tours is not None:
        parts.append(spoken_count(s.tours, "tour"))
    if s.deal_cap is not None:
        parts.append(_("deal cap {cap}").format(cap=s.deal_cap))
    if s.cutoff:
        parts.append(_("cut-off {rates}").format(
            rates=", ".join(f"{'*' if g.upto is None else g.upto}:{g.rate}" for g in s.cutoff)))
    if s.tie_breaks != DEFAULT_TIE_BREAKS:
        parts.append(_("ties broken by {tie_breaks}").format(tie_breaks=tie_breaks_text(s)))
    if s.removal_below is not None:
        parts.append(_("removal below {points}").format(points=f"{s.removal_below:+d}"))
    for rule in s.cuts:
        parts.append(_("after tour {tour} the first {keep} go on").format(tour=rule.after_tour, keep=rule.keep))
    if s.final_table is not None:
        parts.append(_("final table of {size}").format(size=s.final_table))
    return parts


@dataclass(frozen=True)
class LogRow:
    number: int
    at: str | None
    by: str | None
    type: str
    effect: str


def log_rows(events: Sequence[AnyEvent]) -> list[LogRow]:
    first = events[0]
    assert isinstance(first, TournamentStarted)
    state = TournamentState.start(first)
    rows = [LogRow(1, first.at, first.by, "tournament_started", effect(first, state))]
    for number_, event in enumerate(events[1:], start=2):
        e = as_tournament_event(event)
        state.apply(e)
        tag: str = type(e).__struct_config__.tag  # type: ignore[assignment]
        rows.append(LogRow(number_, e.at, e.by, tag, effect(e, state)))
    return rows


def render_log(rows: Sequence[LogRow], when: Callable[[str], str] | None = None) -> str:
    """The tournament's log for people, in the columns of a game's (``trail.render_audit``):
    number, time (``when`` shows a stored time; default: as stored), who recorded it,
    what it did."""
    show = when or (lambda at: at[:19].replace("T", " "))
    width = max((len(show(r.at)) for r in rows if r.at), default=19)
    lines = []
    for r in rows:
        at = show(r.at) if r.at else ""
        lines.append(f"{r.number:>4}  {at:<{width}}  {r.by or '':<14}  {r.effect}")
    return "\n".join(lines) + "\n"
