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
from ledger.vocabulary.wording import counted
from projections.game import rules_of
from projections.tournament_state import TournamentState, as_tournament_event, tie_breaks_text


def effect(event: TournamentEvent, state: TournamentState) -> str:
    """What one event of the tournament did, for ``pulka tournament log``."""
    match event:
        case TournamentStarted():
            s = event
            parts = [f"{len(s.players)} players", f"{rules_of(s).convention}, pulya to {s.pulya}",
                     f"tables of {s.table_size}"]
            if s.tours is not None:
                parts.append(counted(s.tours, "tour"))
            if s.deal_cap is not None:
                parts.append(f"deal cap {s.deal_cap}")
            if s.cutoff:
                parts.append("cut-off " + ", ".join(f"{'*' if g.upto is None else g.upto}:{g.rate}" for g in s.cutoff))
            if s.tie_breaks != DEFAULT_TIE_BREAKS:
                parts.append(f"ties broken by {tie_breaks_text(s)}")
            if s.removal_below is not None:
                parts.append(f"removal below {s.removal_below:+d}")
            for rule in s.cuts:
                parts.append(f"after tour {rule.after_tour} the first {rule.keep} go on")
            if s.final_table is not None:
                parts.append(f"final table of {s.final_table}")
            return f"tournament {s.game} started: " + "; ".join(parts)
        case Seated():
            how = {"manual": "by hand", "lot": f"by lot (seed {event.seed})", "swiss": "Swiss, by the standings",
                   "final": "the final table"}[event.method]
            return f"tour {event.tour}, table {event.table} ({table_game(state.name, event.tour, event.table)}): " \
                   f"{', '.join(event.players)}; {how}"
        case TourClosed():
            tables = "; ".join(
                f"table {t.table} {t.end} after {counted(t.deals, 'deal')}: "
                + ", ".join(f"{p} {w:+d}" for p, w in t.whists.items())
                for t in event.tables
            )
            return f"tour {event.tour} closed: {tables}"
        case YellowCard():
            n = len(state.cards.get(event.player, []))
            return f"yellow card {n} to {event.player} in tour {event.tour}" + (f": {event.reason}" if event.reason else "")
        case Removed():
            return f"{event.player} sits out tour {event.tour}" + (f": {event.reason}" if event.reason else "")
        case Disqualified():
            return f"{event.player} disqualified in tour {event.tour}" + (f": {event.reason}" if event.reason else "")
        case CutMade():
            return f"cut after tour {event.after_tour}: {len(event.kept)} go on ({', '.join(event.kept)})"
        case _:
            assert_never(event)


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
