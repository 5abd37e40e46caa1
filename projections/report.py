"""What the command line shows: the JSON documents of event-log.md and the
readable sheet, and the points in time they can be taken at (``--at``, ``--deal``,
``--time``). Pure functions from events to data; ``cli`` only prints them.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent, GameStarted
from projections.game import GameState, replay
from projections.numbers import exact_fields as exact_fields
from projections.numbers import exact_text, fmt, money_context, number
# Points in time are shared by every kind of stream; they live in ``points``.
from projections.points import Point as Point
from projections.points import PointError as PointError
from projections.points import cut as cut
from projections.settlement import Settlement, settle_sheet, transfers
from projections.sheet import Sheet, exact, shown
from ledger.vocabulary.language import ngettext
from ledger.vocabulary.wording import convention_name, spoken_count

_ = language._  # every text a person reads, in the language in effect


def sheet_doc(sheet: Sheet) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for p in sheet.players:
        others = [q for q in sheet.players if q != p]
        pulya, gora = exact(sheet.pulya[p]), exact(sheet.gora[p])
        whists = {q: exact(sheet.whists[p][q]) for q in others}
        player: dict[str, Any] = {
            "pulya": number(pulya),
            "gora": number(gora),
            "whists": {q: number(v) for q, v in whists.items()},
        }
        # Exact values of the numbers that are not whole (a Rostov raspasy tie, a checked 10).
        for key, value in (("pulya", pulya), ("gora", gora)):
            if value.denominator != 1:
                player[f"{key}_exact"] = exact_text(value)
        fractional = {q: exact_text(v) for q, v in whists.items() if v.denominator != 1}
        if fractional:
            player["whists_exact"] = fractional
        doc[p] = player
    return doc


def settlement_of(state: GameState) -> Settlement:
    return settle_sheet(state.sheet(), state.started.stake)


def deals_done(state: GameState) -> int:
    """The deals of the game that are done: dealt, and not still being played."""
    return state.current_deal_number - (1 if state.deal_in_progress() is not None else 0)


def capped(state: GameState, deal_cap: int | None) -> bool:
    """Whether a tournament's table stopped at the tournament's deal cap (``deal_cap``,
    known from the tournament, not from the game): neither finished nor abandoned, and
    its deals done reached the cap. It is over, and settles as abandoned [Code 4.2.15]."""
    return (deal_cap is not None and state.abandoned_at is None and not state.finished
            and deals_done(state) >= deal_cap)


def settlement_doc(state: GameState, deal_cap: int | None = None, *, with_sheet: bool = True) -> dict[str, Any]:
    """The settlement document; ``capped`` (true) is added for a tournament's table over
    at its tournament's ``deal_cap``. ``with_sheet``: with the sheet's document (the drawn
    sheet, which draws the sheet of its own, asks without)."""
    sheet = state.sheet()
    s = settlement_of(state)
    doc: dict[str, Any] = {
        "game": state.started.game,
        "convention": state.rules.convention,
        "players": list(s.players),
        "finished": sheet.finished,
        "abandoned": state.abandoned_at is not None,
        **({"sheet": sheet_doc(sheet)} if with_sheet else {}),
        "result": {p: number(s.result[p]) for p in s.players},
        "rounded": dict(s.rounded),
    }
    if capped(state, deal_cap):
        doc["capped"] = True
    if s.money is not None:
        doc["money"] = {p: str(v) for p, v in s.money.items()}
    doc["result_exact"] = {p: exact_text(s.result[p]) for p in s.players}
    doc["transfers"] = transfers_doc(state, s)
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
        return _("{seat} (left)").format(seat=seat)
    holder = state.seats.holder(seat)
    return _("{seat} (played by {holder})").format(seat=seat, holder=holder) if holder != seat else seat


def transfers_doc(state: GameState, settled: Settlement | None = None) -> list[dict[str, Any]]:
    """Who pays whom, in the fewest payments: whists, and money when a stake is set
    (stake x whists, exact); ``settled``: the state's settlement, when made already."""
    stake = state.started.stake
    out = []
    for payer, payee, whists in transfers((settlement_of(state) if settled is None else settled).rounded):
        row: dict[str, Any] = {"from": payer, "to": payee, "whists": whists}
        if stake is not None:
            with money_context():
                row["money"] = str(Decimal(stake) * whists)
        out.append(row)
    return out


def state_at(events: list[AnyEvent], point: Point, progress: Callable[[int], None] | None = None) -> GameState:
    """The game as of a point; ``progress(done)`` is told how many events are folded."""
    kept = cut(events, point)
    if progress is None:
        return replay(kept)
    first = kept[0]
    assert isinstance(first, GameStarted)
    state = GameState.start(first)
    for done, event in enumerate(kept[1:], start=2):
        state.apply(event)
        if done % 500 == 0:
            progress(done)
    progress(len(kept))
    return state


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
                marks[-1] = shown(total)
            else:
                marks.append(shown(total))
            last_event = w.event
    return ".".join(marks) if marks else "-"


def game_status(state: GameState) -> str:
    """Where the pulka is, in the players' words."""
    if state.abandoned_at is not None:
        return _("abandoned")
    return _("finished") if state.sheet().finished else _("in play")


def render_sheet(state: GameState, point: Point) -> str:
    """The sheet as a paper one is kept, in the language in effect: пуля, гора, висты."""
    sheet = state.sheet()
    lines = [
        _("pulka {game}: {convention}, pulya to {pulya}, {players}; {deals}, {status} ({point}, event {event})").format(
            game=state.started.game, convention=convention_name(state.rules.convention), pulya=state.started.pulya,
            players=spoken_count(len(state.players), "player"), deals=spoken_count(state.current_deal_number, "deal"),
            status=game_status(state), point=point.describe(), event=state.folded),
        "",
    ]
    labels = {q: _("whists on {player}").format(player=q) for q in sheet.players}
    pulya, gora = _("pulya"), _("gora")
    width = max(len(label) for label in (pulya, gora, *labels.values()))
    for p in sheet.players:
        lines.append(p)
        lines.append(f"  {pulya:<{width}} {_running(sheet, p, 'pulya'):>30}  = {shown(sheet.pulya[p])}")
        lines.append(f"  {gora:<{width}} {_running(sheet, p, 'gora'):>30}  = {shown(sheet.gora[p])}")
        for q in sheet.players:
            if q != p:
                lines.append(f"  {labels[q]:<{width}} {_running(sheet, p, 'whists', q):>30}  "
                             f"= {shown(sheet.whists[p][q])}")
        lines.append("")
    changed = [seat_label(state, p) for p in sheet.players if seat_label(state, p) != p]
    if changed:
        # The table's changes [Code 3.1.2, 5.4.7, 5.4.18]: each seat keeps its columns.
        lines.append(_("seats: {changes}").format(changes="; ".join(changed)))
    return "\n".join(lines).rstrip() + "\n"


def money_text(amount: Decimal) -> str:
    """Money as people read it: at least two decimals (``4.50``, ``-3.80``, ``0.125``)."""
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and exponent > -2:
        with money_context():
            amount = amount.quantize(Decimal("0.01"))
    return str(amount)


def render_settlement(state: GameState, point: Point, deal_cap: int | None = None) -> str:
    """The settlement for people; a tournament's table at its ``deal_cap`` is said to be
    over [Code 4.2.15]."""
    sheet = state.sheet()
    s = settlement_of(state)
    if capped(state, deal_cap):
        status = _("over: the tournament's deal cap, {deals} played, settled as abandoned [Code 4.2.15]").format(
            deals=spoken_count(deal_cap or 0, "deal"))
    else:
        status = _("abandoned") if state.abandoned_at is not None else (
            _("finished") if sheet.finished else _("not finished: settled as if abandoned now"))
    lines = [_("settlement of {game} ({convention}, {point}): {status}").format(
        game=state.started.game, convention=convention_name(state.rules.convention), point=point.describe(),
        status=status), ""]
    # The columns: player, pulya, gora, gora after every pulya is closed, the exact result, rounded, money.
    player, pulya, gora, gora_closed, result, rounded, money_head = (
        _("player"), _("pulya"), _("gora"), _("gora*"), _("exact"), _("rounded"), _("money"))
    head = f"{player:<12}{pulya:>7}{gora:>8}{gora_closed:>8}{result:>12}{rounded:>9}"
    if s.money is not None:
        head += f"{money_head:>10}"
    lines.append(head)
    for p in s.players:
        row = (f"{p:<12}{shown(sheet.pulya[p]):>7}{shown(sheet.gora[p]):>8}{fmt(s.gora[p]):>8}"
               f"{fmt(s.result[p]):>12}{s.rounded[p]:>9}")
        if s.money is not None:
            row += f"{money_text(s.money[p]):>10}"
        lines.append(row)
    lines.append("")
    payments = transfers_doc(state)
    if payments:
        lines.append(_("Who pays whom (the fewest payments):"))
        for t in payments:
            money = f" = {money_text(Decimal(t['money']))}" if "money" in t else ""
            lines.append("  " + ngettext("{payer} pays {payee} {n} whist", "{payer} pays {payee} {n} whists",
                                         t["whists"]).format(payer=t["from"], payee=t["to"], n=t["whists"]) + money)
    else:
        lines.append(_("Nobody pays anybody."))
    lines.append("")
    lines.append(_("gora* is the gora after bringing every pulya to the target [Code 4.2.3]."))
    if s.adjusted is not None:
        per = 10 // len(s.players)
        if s.adjustment > 0:
            how = ngettext("Rule 4.2.12: {player}'s gora raised by one point so that it divides; {player} writes "
                           "{per} whist on each other player.",
                           "Rule 4.2.12: {player}'s gora raised by one point so that it divides; {player} writes "
                           "{per} whists on each other player.", per)
        else:
            how = ngettext("Rule 4.2.12: {player}'s gora lowered by one point so that it divides; each other "
                           "player writes {per} whist on {player}.",
                           "Rule 4.2.12: {player}'s gora lowered by one point so that it divides; each other "
                           "player writes {per} whists on {player}.", per)
        lines.append(how.format(player=s.adjusted, per=per))
    lines.append(_("Both methods of rule 4.2.14 agree; the results sum to zero."))
    return "\n".join(lines) + "\n"
