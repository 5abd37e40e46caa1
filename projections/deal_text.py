"""Deals as the table sees them: a deal written back as its deal line, who deals and
who leads next, one line of the sheet, and the table of deals a spreadsheet takes.

Pure functions of a ``GameState``; the command line prints what they return.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import msgspec

from ledger.vocabulary import language
from ledger.vocabulary.bids import spoken
from ledger.vocabulary.events import Annulled, AnyEvent, Bid, Contract, Dealt, Defence, Ruling, Tricks
from projections.deal_state import DealState
from projections.game import GameState
from projections.numbers import fmt
from projections.sheet import exact, totals
from projections.trail import Cell, cell_text

_ = language._  # every text a person reads, in the language in effect


def describe_ruling(r: Ruling) -> str:
    """A ruling, marked as agreed, conceded or ruled."""
    why = f" ({r.reason})" if r.reason else ""
    if r.rule == "3.3.16.3":
        who = ", ".join(f"{p} {a}" for p, a in (r.whists or {}).items())
        return f"ruled [Code 3.3.16.3]: the talon exposed by {r.offender}; whists on him: {who}{why}"
    if r.rule == "3.3.16.2":
        return (f"ruled [Code 3.3.16.2]: the talon exposed by {r.offender} goes to the one player still bidding, "
                f"whose last bid ends the auction; the deal is played{why}")
    if r.rule == "3.8.5.1":
        return describe_plan(r) + why
    if r.rule == "3.4.4":
        return f"ruled [Code 3.4.4]: a declaration against the rules stands: remiz without all{why}"
    if r.rule == "3.5.4":
        split = ", ".join(f"{p} {t}" for p, t in (r.tricks or {}).items())
        return f"conceded [Code 3.5.4]: the declarer is without all{f' ({split})' if split else ''}{why}"
    tricks = ", ".join(f"{p} {t}" for p, t in (r.tricks or {}).items())
    return f"agreed [Code 3.9.22] by {', '.join(r.agreed_by)}: the result without play: {tricks}{why}"


def describe_plan(r: Ruling) -> str:
    """A ruling on a disputed plan of play [Code 3.8.5.1]: a) agreed compensation, b) the
    arbiter's compensating result."""
    if r.whists is not None:
        who = ", ".join(f"{p} {a}" for p, a in r.whists.items())
        return (f"agreed [Code 3.8.5.1 a] by {', '.join(r.agreed_by)}: {r.planner}'s plan of play; "
                f"compensation on him: {who}")
    tricks = ", ".join(f"{p} {t}" for p, t in (r.tricks or {}).items())
    lot = "the other plan's" if r.declarer_result == "other" else "the result played"
    return (f"ruled [Code 3.8.5.1 b]: {r.planner}'s plan of play; {', '.join(r.compensated)} given the other "
            f"plan's result ({tricks}); the declarer {lot}, drawn by lot")


def tricks_order(deal: DealState, tricks: dict[int, int]) -> list[int]:
    """The seats in the order a deal line gives their tricks: from the forehand (the
    whisting dealer in the place of the defender whose cards he plays [Code 3.8.8]),
    then a sitting-out dealer's talon tricks on raspasy with four players."""
    order = deal.bidders if deal.raspasy else deal.playing
    seats = [s for s in order if s in tricks]
    if deal.dealer in tricks and deal.dealer not in seats:
        seats.append(deal.dealer)
    return seats


PLAY = (Bid, Contract, Defence, Tricks, Annulled, Dealt, Ruling)


def play_of(state: GameState, event: AnyEvent) -> bool:
    """An event of play: what a deal line records."""
    return isinstance(event, PLAY)


def events_by_deal(state: GameState, first_deal: int = 1) -> dict[int, list[AnyEvent]]:
    """The events of play of each deal from ``first_deal`` on, as they stand (corrections
    merged in, records without effect left out), in the order they were recorded."""
    out: dict[int, list[AnyEvent]] = {}
    begin = state.starts[first_deal - 1] if 1 <= first_deal <= len(state.starts) else state.folded + 1
    for number in range(begin, state.folded + 1):
        if number in state.void:
            continue
        event = state.content(number)
        if isinstance(event, PLAY) and event.deal is not None and event.deal >= first_deal:
            out.setdefault(event.deal, []).append(event)
    return out


def line_sections(state: GameState, deal: DealState, events: list[AnyEvent] | None = None) -> list[list[tuple[str, str]]]:
    """The sections of the deal line that records ``deal`` as it stands (corrections
    merged in): bids, contract, calls, tricks; each a list of (player, word)."""
    names = deal.persons
    bids: list[tuple[str, str]] = []
    contract: list[tuple[str, str]] = []
    calls: list[tuple[str, str]] = []
    counts: list[tuple[str, str]] = []
    if events is None:
        events = events_by_deal(state, deal.number).get(deal.number, [])
    for event in events:
        match event:
            case Bid():
                bids.append((event.player, event.bid + (":dark" if event.dark else "")))
            case Contract():
                contract = [(event.player, event.contract + (":shared" if event.shared_with else ""))]
                if event.evident_correction:
                    calls = []  # said to the mistaken contract: void [Code 3.4.8]
            case Defence():
                hand = f"@{event.hand}" if event.hand else ""
                calls.append((event.player, event.call + hand + (":open" if event.open else "")))
            case Tricks():
                seats = {state.deal_seat(deal, p): t for p, t in event.tricks.items()}
                counts = [(names[s], str(seats[s])) for s in tricks_order(deal, seats)]
            case _:
                pass
    if deal.raspasy:
        sections = [bids, counts]
    elif deal.no_defence:
        sections = [bids, contract, counts]
    else:
        sections = [bids, contract, calls, counts]
    while sections and not sections[-1]:
        sections.pop()
    return sections


def deal_line(state: GameState, deal: DealState) -> str:
    """The deal line that would record ``deal``: ``6S pass pass | 6S | whist whist | 6 2 2``."""
    return " | ".join(" ".join(word for _who, word in section) for section in line_sections(state, deal))


def spoken_line(state: GameState, deal: DealState) -> str:
    """``deal_line`` as a person reads it, its words in the language in effect
    (``6♠ пас пас | 6♠ | вист вист | 6 2 2``; in English as the line is typed)."""
    return " | ".join(" ".join(spoken(word) for _who, word in section) for section in line_sections(state, deal))


def deal_story(state: GameState, deal: DealState, events: list[AnyEvent] | None = None) -> str:
    """The deal with the names of who spoke: ``Anna 6S, Boris pass, Vera pass | Anna 6S | …``."""
    if deal.annulled_at is not None:
        return _("annulled (the dealer's error) [Code 3.2.17]") if deal.dealer_error else _("annulled")
    parts = [", ".join(f"{who} {spoken(word)}" for who, word in section)
             for section in line_sections(state, deal, events)]
    if deal.exposed_by is not None and deal.declarer is not None:
        # The auction ended by the talon exposed [Code 3.3.16.2]: said after the bids.
        parts.insert(1, _("the talon exposed by {offender} goes to {declarer} [Code 3.3.16.2]").format(
            offender=deal.persons[deal.exposed_by], declarer=deal.persons[deal.declarer]))
    for ruling in (deal.ruling, deal.plan):
        if ruling is not None:
            parts.append(describe_ruling(ruling))
    return " | ".join(parts)


def deal_game(state: GameState, deal: DealState) -> str:
    """What the deal was: ``6S by Anna``, ``misere by Boris``, ``raspasy``, ``annulled``."""
    if deal.annulled_at is not None:
        return _("annulled")
    if deal.raspasy:
        return _("raspasy")
    if deal.declarer is None:
        return _("auction")
    return _("{contract} by {declarer}").format(contract=spoken(str(deal.contract or "?")),
                                                declarer=deal.persons[deal.declarer])


def seats_of(state: GameState, deal: DealState) -> tuple[str, str]:
    """Who deals and who leads (bids first and leads to the first trick)."""
    return deal.persons[deal.dealer], deal.persons[deal.bidders[0]]


def next_deal_text(state: GameState) -> str:
    """Who deals and who leads next: ``deal 4: Vera deals, Anna leads``."""
    upcoming = state.next_deal()
    dealer, forehand = seats_of(state, upcoming)
    if upcoming.n_players == 4:
        text = _("deal {deal}: {dealer} deals and sits out, {forehand} leads")
    else:
        text = _("deal {deal}: {dealer} deals, {forehand} leads")
    text = text.format(deal=upcoming.number, dealer=dealer, forehand=forehand)
    if upcoming.min_level > 6:
        text += " " + _("(after raspasy: {level} or higher)").format(level=upcoming.min_level)
    return text


def sheet_line(state: GameState) -> str:
    """The sheet in one line: each player's pulya and gora, and what he would get if the
    pulka were settled now: ``Anna 2/0 (+9) · Boris 0/0 (-5) · Vera 0/0 (-4)``."""
    from projections.report import settlement_of  # here: the session's line, not a deal's text

    sheet = totals(state.sheet())
    rounded = settlement_of(state).rounded
    return " · ".join(f"{p} {fmt(sheet[(p, 'pulya', None)])}/{fmt(sheet[(p, 'gora', None)])} ({rounded[p]:+d})"
                      for p in state.sheet().players)


def cells(state: GameState) -> list[Cell]:
    """Every number of the sheet, in the order of the paper sheet (every seat that has
    been at the table [Code 3.1.2, 5.4.18])."""
    out: list[Cell] = []
    players = state.sheet().players
    for p in players:
        out += [(p, "pulya", None), (p, "gora", None)]
        out += [(p, "whists", q) for q in players if q != p]
    return out


def deal_table(state: GameState, first: int = 0) -> tuple[list[str], list[list[Any]]]:
    """The deals as rows for a spreadsheet: number, dealer, the deal with names, and
    what each deal wrote into each number of the sheet (blank for nothing). Writes by
    hand before the first deal are row 0. Amounts are exact ``Fraction``s. Only the rows
    of deals ``first`` and after (a page's update: the deals before it have not changed)."""
    columns = cells(state)
    written = written_by_deal(state, first)
    rows: list[list[Any]] = []
    if 0 in written:
        rows.append(hand_row(written[0], columns))
    played = events_by_deal(state, max(first, 1))
    for deal in state.deals[max(first, 1) - 1:]:
        rows.append(deal_row(state, deal, played.get(deal.number, []), written.get(deal.number, {}), columns))
    return table_head(columns), rows


def table_head(columns: list[Cell]) -> list[str]:
    """The deals table's column names (``deal_table``)."""
    return ["deal", "dealer", "leads", "game", "line", *[cell_text(c) for c in columns]]


def written_by_deal(state: GameState, first: int = 0) -> dict[int, dict[Cell, Fraction]]:
    """What each deal from ``first`` on wrote into each number of the sheet, exactly
    (summed in sub-units: a cell whose writes cancel out holds 0)."""
    units: dict[int, dict[Cell, int]] = {}
    for w in state.sheet().writes:
        if w.deal < first:
            continue
        per = units.setdefault(w.deal, {})
        cell = (w.player, w.column, w.on)
        per[cell] = per.get(cell, 0) + w.amount
    return {k: {cell: exact(amount) for cell, amount in per.items()} for k, per in units.items()}


def hand_row(written: dict[Cell, Fraction], columns: list[Cell]) -> list[Any]:
    """Row 0 of the deals table: the writes by hand before the first deal."""
    return [0, "", "", "written by hand", "", *[written.get(c, "") for c in columns]]


def deal_row(state: GameState, deal: DealState, played: list[AnyEvent], written: dict[Cell, Fraction],
             columns: list[Cell]) -> list[Any]:
    """One deal's row of the deals table (``played``: its events of play, as
    ``events_by_deal`` gives them; ``written``: what it wrote, as ``written_by_deal``)."""
    dealer, forehand = seats_of(state, deal)
    return [deal.number, dealer, forehand, deal_game(state, deal), deal_story(state, deal, played),
            *[written.get(c, "") for c in columns]]


def row_json(row: list[Any]) -> bytes:
    """A row of the deals table as JSON, its fractions as exact text (``3``, ``-1/2``)."""
    return msgspec.json.encode([str(v) if isinstance(v, Fraction) else v for v in row])


def table_json(game: str, head: list[str], rows: list[bytes]) -> bytes:
    """The deals table as the service gives it, ``{"game", "columns", "rows"}``, from its
    rows already in JSON (``row_json``)."""
    return b"".join((b'{"game":', msgspec.json.encode(game), b',"columns":', msgspec.json.encode(head),
                     b',"rows":[', b",".join(rows), b"]}"))
