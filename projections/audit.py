"""The audit trail: every event with what it did to the sheet, and why.

``audit`` replays a game event by event and records, for each one, its number,
time, recorder, a one-line description, the change it made to the sheet, and the
verdict of the recording rules for corrections, objections and late records.
``explain`` traces one number of the sheet back to the writes and events behind
it; ``diff`` compares two points in time. These are how an arbiter reconstructs
a dispute. What does not depend on Preferans (the rows, their documents, text and
selection, the comparison of two points) is shared with the other kinds of stream in
``trail``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from functools import singledispatch
from typing import Any

from ledger.vocabulary.refusal import excerpt
from ledger.vocabulary.events import (
    Abandoned,
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Correction,
    Dealt,
    Defence,
    Entry,
    GameStarted,
    Joined,
    Left,
    Objection,
    PencilDown,
    Penalty,
    Ruling,
    Substituted,
    Talon,
    Tricks,
    Withdrawn,
    event_type,
)
from projections.deals import describe_ruling
from projections.game import GameState
from projections.numbers import exact_fields
from projections.numbers import exact_of as exact_of
from projections.numbers import signed as signed
from projections.report import Point, settlement_of, state_at
from projections.sheet import Write, exact
from projections.sheet import totals as totals
from projections.sheet import cell_units
# The parts of the audit trail every kind of stream shares live in ``trail``.
from projections.trail import AuditRow as AuditRow
from projections.trail import Cell as Cell
from projections.trail import Numbers, corrections_in_effect
from projections.trail import changes as changes
from projections.trail import deal_corrected
from projections.trail import diff as diff_numbers
from projections.trail import cell_text as cell_text
from projections.trail import render_audit as render_audit
from projections.trail import render_diff as render_diff
from projections.trail import render_explain as render_explain
from projections.trail import row_doc as row_doc
from projections.trail import select as select



@singledispatch
def describe(event: AnyEvent) -> str:
    """One line for an event, with the rule of the Code it applies where it applies one:
    one small function for each type of a pulka's events, registered below with its
    type (``describe.register``; tests/test_audit_lines.py checks that each type has
    one; the type is named in the decorator, which costs less at start-up than
    reading it from the annotation).
    An event of another kind of stream (a ``ForeignEvent``) is named as such."""
    return f"{event_type(event)}: not an event of a pulka"


@describe.register(GameStarted)
def _started(event: GameStarted) -> str:
    return f"game {event.game} started: {', '.join(event.players)}; {event.convention}, pulya to {event.pulya}"


@describe.register(Bid)
def _bid(event: Bid) -> str:
    dark = " dark [Code 3.3.19]" if event.dark else ""
    implied = " (implied by the outcome: no auction recorded)" if event.implied else ""
    return f"{event.player} bids {event.bid}{dark}{implied}"


@describe.register(Contract)
def _contract(event: Contract) -> str:
    shared = f", shared in halves with the dealer {event.shared_with} [Code 3.6.9]" if event.shared_with else ""
    fixed = (": an evident correction after a whist, the calls said so far void [Code 3.4.8]"
             if event.evident_correction else "")
    return f"{event.player} declares {event.contract}{shared}{fixed}"


@describe.register(Defence)
def _defence(event: Defence) -> str:
    hand = f" with {event.hand}'s cards [Code 3.8.8]" if event.hand else ""
    return f"{event.player}: {event.call.replace('_', '-')}" + (" (open)" if event.open else "") + hand


@describe.register(Tricks)
def _tricks(event: Tricks) -> str:
    text = "tricks " + ", ".join(f"{p} {t}" for p, t in event.tricks.items())
    for pt in event.penalty_tricks:
        text += f"; penalty {pt.player} {pt.tricks} [Code {pt.rule}]"
    return text


@describe.register(Entry)
def _entry(event: Entry) -> str:
    on = f" on {event.on}" if event.on else ""
    return f"entry: {event.player} {event.column}{on} {event.amount:+d}"


@describe.register(Penalty)
def _penalty(event: Penalty) -> str:
    if event.column == "whists" and event.wronged:
        return (f"penalty on {event.player}: {event.wronged} writes {event.amount} whists on him "
                f"({event.reason}) [Code 4.2.16]")
    on = f" on {event.on}" if event.on else ""
    return f"penalty: {event.player} {event.column}{on} {event.amount:+d} ({event.reason}) [Code 4.2.16]"


@describe.register(PencilDown)
def _pencil_down(event: PencilDown) -> str:
    return f"{event.player} puts the pencil down"


@describe.register(Correction)
def _correction(event: Correction) -> str:
    fields = ", ".join(
        f"{k} " + ", ".join(f"{p} {t}" for p, t in v.items()) if isinstance(v, dict) else f"{k}={v}"
        for k, v in event.replacement.items()
    )
    waived = " (penalty waived)" if event.penalty == "waived" else ""
    return f"correction of event {event.target}: {fields}{waived}"


@describe.register(Objection)
def _objection(event: Objection) -> str:
    what = f"event {event.target}" if event.target else f"late records of deal {event.deal}"
    return f"{event.player} objects to {what}"


@describe.register(Abandoned)
def _abandoned(event: Abandoned) -> str:
    if event.demanded_by:
        return f"settled at once on {event.demanded_by}'s demand: {event.reason} [Code 4.2.15, 5.4.18]"
    return f"abandoned by agreement of {', '.join(event.agreed_by)} [Code 4.2.3]"


@describe.register(Annulled)
def _annulled(event: Annulled) -> str:
    fault = " (the dealer's error) [Code 3.2.17]" if event.dealer_error else ""
    return "deal annulled" + (f": {event.reason}" if event.reason else "") + fault


@describe.register(Withdrawn)
def _withdrawn(event: Withdrawn) -> str:
    return f"withdrawn while in hand: events from {event.first} on"


@describe.register(Dealt)
def _dealt(event: Dealt) -> str:
    return f"{event.player} dealt out of turn; the deal stands [Code 3.2.14]"


@describe.register(Ruling)
def _ruling(event: Ruling) -> str:
    return describe_ruling(event)


@describe.register(Joined)
def _joined(event: Joined) -> str:
    place = f" in the place of {event.replaces}, who left," if event.replaces else ""
    return f"{event.player} joins{place} with the consent of {', '.join(event.agreed_by)} [Code 3.1.2]"


@describe.register(Left)
def _left(event: Left) -> str:
    return f"{event.player} leaves the table" + (f": {event.reason}" if event.reason else "") + " [Code 5.4.18]"


@describe.register(Substituted)
def _substituted(event: Substituted) -> str:
    return (f"{event.substitute} takes {event.player}'s seat with the consent of "
            f"{', '.join(event.agreed_by)} [Code 5.4.7]")


@describe.register(Talon)
def _talon(event: Talon) -> str:
    if event.kind == "peek":
        return f"{event.player} looked at the talon before it was bought [Code 3.2.21]"
    if event.kind == "refused":
        return f"{event.player} refused the talon [Code 3.4.10]"
    return f"the talon gave {event.player} {event.tricks} trick(s): the dealer's premium [Code 3.4.11]"


def audit(events: list[AnyEvent], progress: Callable[[int], None] | None = None) -> list[AuditRow]:
    """Every event with what it did; ``progress(done)`` is told how far the replay is."""
    first = events[0]
    assert isinstance(first, GameStarted)
    state = GameState.start(first)
    before = cell_units(state.sheet())
    rows = [AuditRow(1, first.at, first.by, "game_started", None, describe(first), {}, None, None, None)]
    for event in events[1:]:
        if progress is not None and state.folded % 500 == 0:
            progress(state.folded)
        previous = state.current
        state.apply(event)
        after = cell_units(state.sheet())
        delta = {cell: exact(v) for cell, v in changes(before, after).items()}
        row = _row(state, state.folded, event, delta)
        if previous is not None and state.current is not previous and previous.phase == "play":
            row = replace(row, note=f"deal {previous.number} was played but its result is not recorded; "
                                    "it may still be added as a forgotten record [Code 4.2.10]")
        rows.append(row)
        before = after
    # Verdicts can change later (an objection withdraws a late record): show the final ones.
    return [_final(state, row) for row in rows]


def _row(state: GameState, n: int, event: AnyEvent, delta: dict[Cell, Fraction]) -> AuditRow:
    effect = state.effects.get(n)
    credited = state.credited(n, event.deal or 0) if delta else n
    credit = None
    if credited != n:
        result = state.events[credited - 1]
        credit = (f"the result of deal {event.deal}: credited to event {credited} "
                  f"({describe(state.content(credited))}, recorded by {result.by})")
    return AuditRow(
        n, event.at, event.by, event_type(event), event.deal, describe(event), delta,
        effect.effective if effect else None, effect.rule if effect else None, effect.reason if effect else None,
        about=deal_corrected(state.events, event),
        credited_to=credited if credited != n else None, credit=credit,
    )


def _final(state: GameState, row: AuditRow) -> AuditRow:
    effect = state.effects.get(row.number)
    if effect is None:
        return row
    return replace(row, effective=effect.effective, rule=effect.rule, reason=effect.reason)


# -- explain ---------------------------------------------------------------------------------


def parse_cell(text: str, players: tuple[str, ...]) -> Cell:
    """``Anna.pulya``, ``Anna.gora`` or ``Anna.whists.Boris``."""
    parts = text.split(".")
    if len(parts) == 2 and parts[1] in ("pulya", "gora") and parts[0] in players:
        return parts[0], parts[1], None
    if len(parts) == 3 and parts[1] == "whists" and parts[0] in players and parts[2] in players and parts[0] != parts[2]:
        return parts[0], "whists", parts[2]
    raise ValueError(
        f"{excerpt(text)} is not a number of the sheet; write PLAYER.pulya, PLAYER.gora or PLAYER.whists.OTHER "
        f"with players {', '.join(players)}"
    )


def explain(state: GameState, cell: Cell, ignored: dict[Cell, list[tuple[int, Write]]] | None = None
            ) -> list[dict[str, Any]]:
    """Every write behind one number, with the event, its recorder and any correction of
    it; then every record without effect that would have written there, named with its
    verdict (``ignored``: ``ignored_records(state)``, worked out once for many cells)."""
    corrected_by = corrections_in_effect(state)
    out = []
    total = Fraction(0)
    for w in state.sheet().writes:
        if (w.player, w.column, w.on) != cell:
            continue
        total += w.exact
        # Credited to the deal's result and its recorder, not to the call that closed it.
        credited = state.credited(w.event, w.deal)
        event = state.events[credited - 1]
        out.append({
            "event": credited,
            "deal": w.deal,
            **exact_fields("amount", w.exact),
            **exact_fields("total", total),
            "why": w.why,
            "recorded_by": event.by,
            "at": event.at,
            "event_text": describe(state.content(credited)),
            "corrected_by": corrected_by.get(credited, []),
            **({"written_at": w.event} if credited != w.event else {}),
        })
    for number, w in (ignored_records(state) if ignored is None else ignored).get(cell, []):
        event = state.events[number - 1]
        effect = state.effects[number]
        out.append({
            "event": number,
            "deal": w.deal,
            **exact_fields("amount", Fraction(0)),
            **exact_fields("total", total),
            "why": f"no effect [Code {effect.rule}]: {effect.reason}; it would have written {signed(w.exact)}",
            "recorded_by": event.by,
            "at": event.at,
            "event_text": describe(state.content(number)),
            "corrected_by": corrected_by.get(number, []),
            "ignored": True,
        })
    return out


def ignored_records(state: GameState) -> dict[Cell, list[tuple[int, Write]]]:
    """The records without effect (too late, objected to, withdrawn [Code 4.2.8, 4.2.10])
    that would have written a number, by the cell each would have written in."""
    out: dict[Cell, list[tuple[int, Write]]] = {}
    for number in sorted(state.void):
        for w in state.unwritten(number):
            out.setdefault((w.player, w.column, w.on), []).append((number, w))
    return out


# -- diff ------------------------------------------------------------------------------------


def numbers_at(events: list[AnyEvent], point: Point) -> Numbers:
    """The pulka's numbers at a point, as ``diff`` compares them."""
    state = state_at(events, point)
    settlement = settlement_of(state)
    return Numbers(state.folded, totals(state.sheet()), settlement.result, dict(settlement.rounded))


def diff(events: list[AnyEvent], a: Point, b: Point) -> dict[str, Any]:
    """What changed on the sheet and in the settlement between two points, and which
    events changed it."""
    return diff_numbers(events, a, b, numbers_at, audit)
