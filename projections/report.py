"""What the command line shows: the JSON documents of event-log.md and the
readable sheet, and the points in time they can be taken at (``--at``, ``--deal``,
``--time``). Pure functions from events to data; ``cli`` only prints them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from ledger.vocabulary.events import AnyEvent, GameStarted
from ledger.vocabulary.times import TimeFormatError, parse_time
from projections.game import GameState, replay
from projections.settlement import Settlement, settle
from projections.numbers import fmt, number
from projections.sheet import Sheet, exact


class PointError(ValueError):
    """A point in time that the log does not have (``--at 99`` on a 40-event log)."""


@dataclass(frozen=True)
class Point:
    at: int | None = None
    deal: int | None = None
    time: str | None = None

    def describe(self) -> str:
        if self.at is not None:
            return f"as of event {self.at}"
        if self.deal is not None:
            return f"as of the end of deal {self.deal}"
        if self.time is not None:
            return f"as of {self.time}"
        return "now"


def cut(events: list[AnyEvent], point: Point) -> list[AnyEvent]:
    """The events recorded up to a point: event N, the end of deal K, or time T."""
    given = [x for x in (point.at, point.deal, point.time) if x is not None]
    if len(given) > 1:
        raise PointError("give only one of --at, --deal and --time")
    if point.at is not None:
        if not 1 <= point.at <= len(events):
            raise PointError(f"the game has events 1 to {len(events)}; there is no event {point.at}")
        return events[: point.at]
    if point.deal is not None:
        deals = max((e.deal or 0) for e in events)
        if not 0 <= point.deal <= deals:
            raise PointError(f"the game has deals 1 to {deals}; there is no deal {point.deal}")
        for i, e in enumerate(events):
            if i and (e.deal or 0) > point.deal:
                return events[:i]
        return events
    if point.time is not None:
        when = _time(point.time)
        kept = [e for e in events if e.at is None or _time(e.at) <= when]
        if not kept or not isinstance(kept[0], GameStarted):
            raise PointError(f"the game was started after {point.time}")
        return events[: len(kept)]
    return events


def _time(text: str) -> datetime:
    try:
        return parse_time(text)
    except TimeFormatError as exc:
        raise PointError(str(exc)) from None


def sheet_doc(sheet: Sheet) -> dict[str, Any]:
    return {
        p: {
            "pulya": number(exact(sheet.pulya[p])),
            "gora": number(exact(sheet.gora[p])),
            "whists": {q: number(exact(sheet.whists[p][q])) for q in sheet.players if q != p},
        }
        for p in sheet.players
    }


def settlement_of(state: GameState) -> Settlement:
    return settle(state.sheet(), state.started.stake)


def settlement_doc(state: GameState) -> dict[str, Any]:
    sheet = state.sheet()
    s = settlement_of(state)
    doc: dict[str, Any] = {
        "game": state.started.game,
        "convention": state.rules.convention,
        "players": list(s.players),
        "finished": sheet.finished,
        "abandoned": state.abandoned_at is not None,
        "sheet": sheet_doc(sheet),
        "result": {p: number(s.result[p]) for p in s.players},
        "rounded": dict(s.rounded),
    }
    if s.money is not None:
        doc["money"] = {p: str(v) for p, v in s.money.items()}
    # The table's changes [Code 3.1.2, 5.4.7, 5.4.18]: who holds a seat for another, who left.
    held = {seat: state.seats.holder(seat) for seat in s.players if state.seats.holder(seat) != seat}
    if held:
        doc["held_by"] = held
    left = [p for p in s.players if p not in state.seats.seating]
    if left:
        doc["left"] = left
    return doc


def seat_label(state: GameState, seat: str) -> str:
    """A seat's name on the sheet, with who holds it now or that it was left."""
    if seat not in state.seats.seating:
        return f"{seat} (left)"
    holder = state.seats.holder(seat)
    return f"{seat} (played by {holder})" if holder != seat else seat


def state_at(events: list[AnyEvent], point: Point) -> GameState:
    return replay(cut(events, point))


# -- for people -----------------------------------------------------------------------


def _running(sheet: Sheet, player: str, column: str, on: str | None = None) -> str:
    """Running totals as a paper sheet shows them: one mark per event that wrote."""
    total = 0
    marks: list[str] = []
    last_event = None
    for w in sheet.writes:
        if w.player == player and w.column == column and w.on == on:
            total += w.amount
            if w.event == last_event:
                marks[-1] = fmt(exact(total))
            else:
                marks.append(fmt(exact(total)))
            last_event = w.event
    return ".".join(marks) if marks else "-"


def render_sheet(state: GameState, point: Point) -> str:
    sheet = state.sheet()
    r = state.rules
    status = "abandoned" if state.abandoned_at is not None else ("finished" if sheet.finished else "in play")
    lines = [
        f"pulka {state.started.game}: {r.convention}, pulya to {state.started.pulya}, "
        f"{len(state.players)} players; {state.current_deal_number} deals, {status} ({point.describe()}, "
        f"event {state.folded})",
        "",
    ]
    width = max(len(p) for p in sheet.players) + len("whists on ")
    for p in sheet.players:
        lines.append(seat_label(state, p))
        lines.append(f"  {'pulya':<{width}} {_running(sheet, p, 'pulya'):>30}  = {fmt(exact(sheet.pulya[p]))}")
        lines.append(f"  {'gora':<{width}} {_running(sheet, p, 'gora'):>30}  = {fmt(exact(sheet.gora[p]))}")
        for q in sheet.players:
            if q != p:
                label = f"whists on {q}"
                lines.append(f"  {label:<{width}} {_running(sheet, p, 'whists', q):>30}  = {fmt(exact(sheet.whists[p][q]))}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def render_settlement(state: GameState, point: Point) -> str:
    sheet = state.sheet()
    s = settlement_of(state)
    status = "abandoned" if state.abandoned_at is not None else (
        "finished" if sheet.finished else "not finished: settled as if abandoned now")
    lines = [f"settlement of {state.started.game} ({state.rules.convention}, {point.describe()}): {status}", ""]
    head = f"{'player':<12}{'pulya':>7}{'gora':>8}{'gora*':>8}{'exact':>12}{'rounded':>9}"
    if s.money is not None:
        head += f"{'money':>10}"
    lines.append(head)
    for p in s.players:
        row = (f"{p:<12}{fmt(exact(sheet.pulya[p])):>7}{fmt(exact(sheet.gora[p])):>8}{fmt(s.gora[p]):>8}"
               f"{fmt(s.result[p]):>12}{s.rounded[p]:>9}")
        if s.money is not None:
            row += f"{str(s.money[p]):>10}"
        lines.append(row)
    lines.append("")
    lines.append("gora* is the gora after bringing every pulya to the target [Code 4.2.3].")
    if s.adjusted is not None:
        per = 10 // len(s.players)
        if s.adjustment > 0:
            how = f"raised by one point so that it divides; {s.adjusted} writes {per} whists on each other player"
        else:
            how = f"lowered by one point so that it divides; each other player writes {per} whists on {s.adjusted}"
        lines.append(f"Rule 4.2.12: {s.adjusted}'s gora {how}.")
    lines.append("Both methods of rule 4.2.14 agree; the results sum to zero.")
    return "\n".join(lines) + "\n"
