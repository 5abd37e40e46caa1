"""The audit trail: every event with what it did to the sheet, and why.

``audit`` replays a game event by event and records, for each one, its number,
time, recorder, a one-line description, the change it made to the sheet, and the
verdict of the recording rules for corrections, objections and late records.
``pulka_explain`` traces one number of the sheet back to the writes and events
behind it; ``numbers_at`` gives what ``diff`` compares at a point in time. These are
how an arbiter reconstructs a dispute. What does not depend on Preferans (the rows, their documents, text and
selection, the comparison of two points) is shared with the other kinds of stream in
``trail``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from msgspec.structs import replace
from fractions import Fraction
from functools import singledispatch
from typing import Any

from ledger.vocabulary import language
from ledger.vocabulary.language import N_
from ledger.vocabulary.bids import spoken
from ledger.vocabulary.wording import convention_name, spoken_text
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
from projections.deal_text import describe_ruling
from projections.game import GameState
from projections.numbers import exact_fields
from projections.numbers import exact_of as exact_of
from projections.numbers import signed as signed
from projections.points import Point
from projections.sheet import COLUMN_WORDS, Write, exact
from projections.sheet import totals as totals
from projections.sheet import cell_units
# The parts of the audit trail every kind of stream shares live in ``trail``.
from projections.trail import AuditRow as AuditRow
from projections.trail import Cell as Cell
from projections.trail import CellNames, Numbers, corrections_in_effect, trail_row_json
from projections.trail import changes as changes
from projections.trail import deal_corrected
from projections.trail import cell_text as cell_text
from projections.trail import row_doc as row_doc

_ = language._  # every text a person reads, in the language in effect



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
    return _("game {game} started: {players}; {convention}, pulya to {pulya}").format(
        game=event.game, players=", ".join(event.players), convention=convention_name(event.convention),
        pulya=event.pulya)


@describe.register(Bid)
def _bid(event: Bid) -> str:
    dark = " " + _("dark [Code 3.3.19]") if event.dark else ""
    implied = " " + _("(implied by the outcome: no auction recorded)") if event.implied else ""
    return _("{player} bids {bid}").format(player=event.player, bid=spoken(event.bid)) + dark + implied


@describe.register(Contract)
def _contract(event: Contract) -> str:
    shared = (", " + _("shared in halves with the dealer {dealer} [Code 3.6.9]").format(dealer=event.shared_with)
              if event.shared_with else "")
    fixed = (": " + _("an evident correction after a whist, the calls said so far void [Code 3.4.8]")
             if event.evident_correction else "")
    return _("{player} declares {contract}").format(player=event.player, contract=spoken(event.contract)) \
        + shared + fixed


@describe.register(Defence)
def _defence(event: Defence) -> str:
    hand = " " + _("with {player}'s cards [Code 3.8.8]").format(player=event.hand) if event.hand else ""
    return f"{event.player}: {spoken(event.call).replace('_', '-')}" + (" " + _("(open)") if event.open else "") + hand


@describe.register(Tricks)
def _tricks(event: Tricks) -> str:
    text = _("tricks {tricks}").format(tricks=", ".join(f"{p} {t}" for p, t in event.tricks.items()))
    for pt in event.penalty_tricks:
        text += "; " + _("penalty {player} {tricks} [Code {rule}]").format(player=pt.player, tricks=pt.tricks,
                                                                          rule=pt.rule)
    return text


def _column(column: str, on: str | None) -> str:
    """A column as players name it: pulya, gora, whists on Boris (пуля, гора, висты на Boris)."""
    if on:
        return _("{column} on {player}").format(column=_("whists") if column == "whists" else column, player=on)
    return {"pulya": _("pulya"), "gora": _("gora"), "whists": _("whists")}.get(column, column)


@describe.register(Entry)
def _entry(event: Entry) -> str:
    return _("entry: {player} {column} {amount}").format(player=event.player, column=_column(event.column, event.on),
                                                         amount=f"{event.amount:+d}")


@describe.register(Penalty)
def _penalty(event: Penalty) -> str:
    if event.column == "whists" and event.wronged:
        return _("penalty on {player}: {wronged} writes {amount} whists on him ({reason}) [Code 4.2.16]").format(
            player=event.player, wronged=event.wronged, amount=event.amount, reason=event.reason)
    return _("penalty: {player} {column} {amount} ({reason}) [Code 4.2.16]").format(
        player=event.player, column=_column(event.column, event.on), amount=f"{event.amount:+d}", reason=event.reason)


@describe.register(PencilDown)
def _pencil_down(event: PencilDown) -> str:
    return _("{player} puts the pencil down").format(player=event.player)


# A correction's fields as a person reads them (the log keeps the event's own names).
_FIELDS = {"tricks": N_("tricks"), "contract": N_("contract"), "bid": N_("bid"), "call": N_("call"),
           "amount": N_("amount"), "column": N_("column"), "on": N_("on"), "player": N_("player")}


@describe.register(Correction)
def _correction(event: Correction) -> str:
    def field(k: str) -> str:
        return _(_FIELDS[k]) if k in _FIELDS else k

    fields = ", ".join(
        f"{field(k)} " + ", ".join(f"{p} {t}" for p, t in v.items()) if isinstance(v, dict)
        else f"{field(k)}={spoken(v) if isinstance(v, str) else v}"
        for k, v in event.replacement.items()
    )
    waived = " " + _("(penalty waived)") if event.penalty == "waived" else ""
    return _("correction of event {event}: {fields}").format(event=event.target, fields=fields) + waived


@describe.register(Objection)
def _objection(event: Objection) -> str:
    if event.target:
        return _("{player} objects to event {event}").format(player=event.player, event=event.target)
    return _("{player} objects to late records of deal {deal}").format(player=event.player, deal=event.deal)


@describe.register(Abandoned)
def _abandoned(event: Abandoned) -> str:
    if event.demanded_by:
        return _("settled at once on {player}'s demand: {reason} [Code 4.2.15, 5.4.18]").format(
            player=event.demanded_by, reason=event.reason)
    return _("abandoned by agreement of {players} [Code 4.2.3]").format(players=", ".join(event.agreed_by))


@describe.register(Annulled)
def _annulled(event: Annulled) -> str:
    fault = " " + _("(the dealer's error) [Code 3.2.17]") if event.dealer_error else ""
    return _("deal annulled") + (f": {event.reason}" if event.reason else "") + fault


@describe.register(Withdrawn)
def _withdrawn(event: Withdrawn) -> str:
    return _("withdrawn while in hand: events from {event} on").format(event=event.first)


@describe.register(Dealt)
def _dealt(event: Dealt) -> str:
    return _("{player} dealt out of turn; the deal stands [Code 3.2.14]").format(player=event.player)


@describe.register(Ruling)
def _ruling(event: Ruling) -> str:
    return describe_ruling(event)


@describe.register(Joined)
def _joined(event: Joined) -> str:
    if event.replaces:
        return _("{player} joins in the place of {left}, who left, with the consent of {players} "
                 "[Code 3.1.2]").format(player=event.player, left=event.replaces, players=", ".join(event.agreed_by))
    return _("{player} joins with the consent of {players} [Code 3.1.2]").format(
        player=event.player, players=", ".join(event.agreed_by))


@describe.register(Left)
def _left(event: Left) -> str:
    return (_("{player} leaves the table").format(player=event.player) + (f": {event.reason}" if event.reason else "")
            + " [" + _("Code {rule}").format(rule="5.4.18") + "]")


@describe.register(Substituted)
def _substituted(event: Substituted) -> str:
    return _("{substitute} takes {player}'s seat with the consent of {players} [Code 5.4.7]").format(
        substitute=event.substitute, player=event.player, players=", ".join(event.agreed_by))


@describe.register(Talon)
def _talon(event: Talon) -> str:
    if event.kind == "peek":
        return _("{player} looked at the talon before it was bought [Code 3.2.21]").format(player=event.player)
    if event.kind == "refused":
        return _("{player} refused the talon [Code 3.4.10]").format(player=event.player)
    return _("the talon gave {player} {tricks} trick(s): the dealer's premium [Code 3.4.11]").format(
        player=event.player, tricks=event.tricks)


def audit(events: list[AnyEvent], progress: Callable[[int], None] | None = None) -> list[AuditRow]:
    """Every event with what it did; ``progress(done)`` is told how far the replay is."""
    first = events[0]
    assert isinstance(first, GameStarted)
    trail = AuditFold(first)
    trail.extend(events[1:], progress)
    # Verdicts can change later (an objection withdraws a late record): show the final ones.
    return trail.rows_at(trail.state)


class AuditFold:
    """The audit trail of a game kept as its events are folded, one by one (``extend``):
    each event's row as its own fold made it, what it did to the sheet and its verdict
    then. What a row says of its event depends on no later event but its verdict, which
    a later one can change (an objection withdraws a late record): ``rows_at(state)``
    gives the trail ``audit`` gives of the events folded into ``state``, with the
    verdicts of that state. Its texts are in the language in effect when they were made."""

    def __init__(self, first: GameStarted) -> None:
        self.state = GameState.start(first)
        self._before = cell_units(self.state.sheet())
        self.rows = [AuditRow(1, first.at, first.by, "game_started", None, describe(first), {}, None, None, None)]
        # Each kept row's JSON (``trail.trail_row_json``) by its event's number, with the names
        # it was made with: made at the first read that sends the row, taken again after.
        self._json: dict[int, tuple[CellNames, bytes]] = {}

    def extend(self, events: Sequence[AnyEvent], progress: Callable[[int], None] | None = None) -> None:
        """The rows of ``events``, the next ones of the game, each folded in."""
        state, rows = self.state, self.rows
        before = self._before
        for event in events:
            if progress is not None and state.folded % 500 == 0:
                progress(state.folded)
            previous = state.current  # a new deal is told by identity: this fold is never forked
            state.apply(event)
            after = cell_units(state.sheet())
            delta = {cell: exact(v) for cell, v in changes(before, after).items()}
            row = _row(state, state.folded, event, delta)
            if previous is not None and state.current is not previous and previous.phase == "play":
                row = replace(row, note=f"deal {previous.number} was played but its result is not recorded; "
                                        "it may still be added as a forgotten record [Code 4.2.10]")
            rows.append(row)
            before = after
        self._before = before

    def rows_at(self, state: GameState) -> list[AuditRow]:
        """The rows of the events folded into ``state`` (this game's first ``state.folded``,
        all folded here already), with the verdicts as ``state`` has them."""
        assert state.folded <= len(self.rows), (state.folded, len(self.rows))
        effects = state.effects
        return [row if row.number not in effects else final_row(state, row) for row in self.rows[: state.folded]]

    def rows_json(self, rows: Iterable[AuditRow], names: CellNames) -> list[bytes]:
        """Rows of ``rows_at`` in JSON (``trail.trail_row_json``): a row kept here as it was made
        is encoded once and taken again at every read that sends it; a row with the
        verdict a later state gives it (``final_row``) is encoded as it comes. Reading a
        thousand rows at a random point cost 3.5 ms of the service's CPU to encode."""
        kept, made = self.rows, self._json
        out = []
        for row in rows:
            n = row.number
            if n <= len(kept) and kept[n - 1] is row:
                found = made.get(n)
                if found is None or found[0] is not names:
                    found = made[n] = (names, trail_row_json(row, names))
                out.append(found[1])
            else:
                out.append(trail_row_json(row, names))
        return out


def _row(state: GameState, n: int, event: AnyEvent, delta: dict[Cell, Fraction]) -> AuditRow:
    effect = state.effects.get(n)
    credited = state.credited(n, event.deal or 0) if delta else n
    credit = None
    if credited != n:
        result = state.events[credited - 1]
        credit = _("the result of deal {deal}: credited to event {event} ({what}, recorded by {by})").format(
            deal=event.deal, event=credited, what=describe(state.content(credited)), by=result.by)
    return AuditRow(
        n, event.at, event.by, event_type(event), event.deal, describe(event), delta,
        effect.effective if effect else None, effect.rule if effect else None,
        spoken_text(effect.reason) if effect else None, about=deal_corrected(state.events, event),
        credited_to=credited if credited != n else None, credit=credit, played_at=event.played_at,
    )


def final_row(state: GameState, row: AuditRow) -> AuditRow:
    """``row`` with the verdict on its event as ``state`` has it (when it has one)."""
    effect = state.effects.get(row.number)
    if effect is None:
        return row
    return replace(row, effective=effect.effective, rule=effect.rule, reason=spoken_text(effect.reason))


# -- explain ---------------------------------------------------------------------------------


def parse_cell(text: str, players: tuple[str, ...]) -> Cell:
    """``Anna.pulya``, ``Anna.gora`` or ``Anna.whists.Boris``; the names in any case and
    the columns in the players' words too (``анна.гора``, ``Anna.висты.boris``), as every
    other command reads them."""
    named = {p.casefold(): p for p in players}
    parts = [part.strip() for part in text.split(".")]
    who = [named.get(part.casefold()) for part in parts]
    column = COLUMN_WORDS.get(parts[1].lower()) if len(parts) > 1 else None
    if len(parts) == 2 and column in ("pulya", "gora") and who[0] is not None:
        return who[0], column, None
    if len(parts) == 3 and column == "whists" and who[0] is not None and who[2] is not None and who[0] != who[2]:
        return who[0], "whists", who[2]
    raise ValueError(
        _("{text} is not a number of the sheet; write PLAYER.pulya, PLAYER.gora or PLAYER.whists.OTHER "
          "(пуля, гора, висты) with players {players}").format(text=excerpt(text), players=", ".join(players))
    )


def pulka_explain(state: GameState, cell: Cell, ignored: dict[Cell, list[tuple[int, Write]]] | None = None
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
            "why": spoken_text(w.why),
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
            "why": _("no effect [Code {rule}]: {reason}; it would have written {amount}").format(
                rule=effect.rule, reason=spoken_text(effect.reason), amount=signed(w.exact)),
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
    from projections.report import settlement_of, state_at  # here: a diff's, not a deal's

    state = state_at(events, point)
    settlement = settlement_of(state)
    return Numbers(state.folded, totals(state.sheet()), settlement.result, dict(settlement.rounded))
