"""A tournament as a fold of its events: the seating, the tours closed, the cards, the
removals and the cuts, and the standings they give.

``TournamentState`` folds the tournament's own stream without judging (that is
``ledger.judge.tournament``). ``standings`` turns a state into the table of places:
a player's tour result is his rounded settlement in whists [Code 4.2.12], recorded in
the tour's close; his tour points are that result through the tournament's cut-off
function, summed over the tours closed. Results of tables still in play (``live``)
are shown beside, not counted. Places order by the stage reached (the players still in
before those cut, and those before the disqualified), then points, then the tie-breaks
in the tournament's order, then the order of entry (which only orders, it never
separates places). The choices are documented in docs/conventions.md ("Tournaments").
The tournament's log for people is ``tournament_log``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, assert_never

from ledger.vocabulary import language
from ledger.vocabulary.language import N_, ngettext
from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.lot import draw_lots
from ledger.vocabulary.rules import RuleSet
from ledger.vocabulary.tournament_events import (
    DEFAULT_TIE_BREAKS,
    FEWER_FIRST,
    TALLIED,
    CutMade,
    Disqualified,
    Removed,
    Seated,
    Segment,
    Tally,
    TourClosed,
    TournamentEvent,
    TournamentStarted,
    YellowCard,
    rate_of,
    table_game,
)
from projections.archive import GameResult
from projections.deal_state import DealState
from projections.game import GameState, rules_of
from projections.penalty_tricks import penalty_counts
from ledger.vocabulary.times import TimeFormatError, utc_micros
from projections.numbers import fmt, number
from projections.report import PointError

_ = language._  # every text a person reads, in the language in effect

def tour_points(whists: int, segments: Sequence[Segment]) -> Fraction:
    """A tour result through the cut-off function: ordered marginal segments, e.g.
    200 at 1, 650 at 1/10, then nothing: the first 200 whists count in full, a tenth
    of what lies between 200 and 650, nothing above. A loss goes through the same
    segments (the function is odd). No segments: the result counts in full."""
    if not segments:
        return Fraction(whists)
    rest = abs(whists)
    lower = 0
    total = Fraction(0)
    for segment in segments:
        upper = segment.upto
        top = rest if upper is None else min(rest, upper)
        if top > lower:
            total += (top - lower) * rate_of(segment)
        if upper is None or rest <= upper:
            break
        lower = upper
    return total if whists >= 0 else -total


# -- the counts of the Code's criteria [Code 4.1.3] ------------------------------------------


def tallies_of(state: GameState) -> dict[str, Tally]:
    """Each seat's counts in a table's pulka for the tie-breaks the Code names [Code
    4.1.3], from its deals as they stand (corrections merged; annulled and unfinished
    deals, and a talon exposed in the auction, count nothing). A seat's counts include a
    substitute's deals in it, as its result does. Tricks are those the result counts,
    the offender's penalty tricks included [Code 3.9.11.2, footnote 34]:

    - a raspasy is won by each player in the deal (not the sitting-out dealer) who took
      no more tricks than any other [Code 3.7.2.2: the one who took fewest wins]; its
      tricks count for everyone who took them, the four-player dealer's talon tricks
      too [Code 3.7.6.1];
    - a remiz is a contract declared and not made: undertricks, a misère with a trick,
      a declaration ruled a remiz without all [Code 3.4.4]; a shared misère [Code
      3.6.9] counts for its declarer;
    - misère tricks are those the declarer took on his misères."""
    counts = {name: [0, 0, 0, 0] for name in state.started.players}
    for deal in state.deals:
        for seat, won, raspasy, remiz, misere in _deal_tallies(deal):
            row = counts.setdefault(deal.names[seat], [0, 0, 0, 0])
            row[0] += won
            row[1] += raspasy
            row[2] += remiz
            row[3] += misere
    return {name: Tally(*row) for name, row in counts.items()}


def _deal_tallies(deal: DealState) -> list[tuple[int, int, int, int, int]]:
    """(seat, raspasy won, raspasy tricks, remizes, misère tricks) of one deal."""
    if deal.annulled_at is not None or not deal.resolved:
        return []
    ruling = deal.ruling
    if ruling is not None and ruling.rule == "3.3.16.3":
        return []
    lost, remiz = penalty_counts(deal)
    if deal.raspasy:
        if deal.tricks is None:
            return []
        taken = {s: deal.tricks.get(s, 0) + lost.get(s, 0) for s in deal.tricks.keys() | set(deal.active)}
        fewest = min(taken[s] for s in deal.active)
        return [(s, int(s in deal.active and taken[s] == fewest), n, 0, 0) for s, n in sorted(taken.items())]
    declarer = deal.declarer
    if declarer is None:
        return []
    if ruling is not None and ruling.rule == "3.4.4":
        return [(declarer, 0, 0, 1, 0)]
    contract = deal.contract
    if contract is None or deal.tricks is None:
        return []  # a contract unplayed (both passed, a half-whist): made [Code 4.2.3.2]
    taken_by = deal.tricks.get(declarer, 0)
    if contract.is_misere:
        counted = taken_by + lost.get(declarer, 0) + remiz.get(declarer, 0)
        return [(declarer, 0, 0, int(counted > 0), counted)]
    under = max(0, contract.needed - (taken_by - lost.get(declarer, 0))) + remiz.get(declarer, 0)
    return [(declarer, 0, 0, int(under > 0), 0)]


@dataclass
class TournamentState:
    started: TournamentStarted
    rules: RuleSet
    events: list[TournamentEvent] = field(default_factory=list)
    seating: dict[int, dict[int, tuple[str, ...]]] = field(default_factory=dict)  # tour -> table -> players
    how: dict[tuple[int, int], Seated] = field(default_factory=dict)
    closed: dict[int, TourClosed] = field(default_factory=dict)
    cards: dict[str, list[YellowCard]] = field(default_factory=dict)
    removed: dict[int, dict[str, Removed]] = field(default_factory=dict)  # tour sat out -> player
    disqualified: dict[str, Disqualified] = field(default_factory=dict)
    cuts: list[CutMade] = field(default_factory=list)
    _lot: dict[str, int] | None = field(default=None, repr=False, compare=False)  # lot_place, drawn once

    @classmethod
    def start(cls, started: TournamentStarted) -> TournamentState:
        state = cls(started=started, rules=rules_of(started))
        state.events.append(started)
        return state

    @property
    def name(self) -> str:
        return self.started.game

    @property
    def players(self) -> tuple[str, ...]:
        return self.started.players

    @property
    def last_closed(self) -> int:
        return max(self.closed, default=0)

    @property
    def over(self) -> bool:
        """Every tour of a tournament with a set number of tours has been closed."""
        tours = self.started.tours
        return tours is not None and self.last_closed >= tours

    @property
    def final_tour(self) -> int | None:
        """The tour played as one final table, if the tournament has one."""
        if self.started.final_table is None or self.started.tours is None:
            return None
        return self.started.tours

    def apply(self, event: TournamentEvent) -> None:
        self.events.append(event)
        match event:
            case TournamentStarted():
                pass
            case Seated():
                self.seating.setdefault(event.tour, {})[event.table] = event.players
                self.how[(event.tour, event.table)] = event
            case TourClosed():
                self.closed[event.tour] = event
            case YellowCard():
                self.cards.setdefault(event.player, []).append(event)
            case Removed():
                self.removed.setdefault(event.tour, {})[event.player] = event
            case Disqualified():
                self.disqualified[event.player] = event
            case CutMade():
                self.cuts.append(event)
            case _:
                assert_never(event)

    # -- who plays -------------------------------------------------------------------

    def cut_at(self, player: str) -> CutMade | None:
        """The cut that left ``player`` out, if one did."""
        for made in self.cuts:
            if player not in made.kept:
                return made
        return None

    def stage(self, player: str) -> int:
        """How far the player got: the cuts passed; -1 when disqualified."""
        if player in self.disqualified:
            return -1
        passed = 0
        for made in self.cuts:
            if player not in made.kept:
                break
            passed += 1
        return passed

    def eligible(self, tour: int) -> list[str]:
        """The players who may sit in ``tour``, in the order of entry: not disqualified,
        not cut, not removed for it."""
        removed = self.removed.get(tour, {})
        return [
            p for p in self.players
            if p not in self.disqualified and self.cut_at(p) is None and p not in removed
        ]

    def lot_place(self, player: str) -> int:
        """The player's place (from 1) in the drawing of lots of the tie-break ``lot``,
        drawn from the recorded ``lot_seed`` over the entrants in their order of entry."""
        if self._lot is None:
            seed = self.started.lot_seed
            assert seed is not None, "a tournament that breaks ties by lot records its seed"
            self._lot = {p: i for i, p in enumerate(draw_lots(seed, self.players), start=1)}
        return self._lot[player]

    def table_of(self, tour: int, player: str) -> int | None:
        for table, players in self.seating.get(tour, {}).items():
            if player in players:
                return table
        return None

    def met(self, before_tour: int) -> set[frozenset[str]]:
        """The pairs of players who sat at one table in a tour before ``before_tour``."""
        pairs: set[frozenset[str]] = set()
        for tour, tables in self.seating.items():
            if tour >= before_tour:
                continue
            for players in tables.values():
                for i, a in enumerate(players):
                    for b in players[i + 1:]:
                        pairs.add(frozenset((a, b)))
        return pairs

    def status(self, player: str) -> str:
        if player in self.disqualified:
            return "disqualified"
        if self.cut_at(player) is not None:
            return "cut"
        if self.over:
            return "finished"
        if player in self.removed.get(self.last_closed + 1, {}):
            return "removed"
        final = self.final_tour
        if final is not None and self.cuts and self.cuts[-1].after_tour == final - 1:
            return "final"
        return "playing"


def fold_tournament(events: Sequence[AnyEvent]) -> TournamentState:
    """The state of a tournament stream (its first event ``tournament_started``)."""
    first = events[0]
    assert isinstance(first, TournamentStarted), first
    state = TournamentState.start(first)
    for event in events[1:]:
        state.apply(as_tournament_event(event))
    return state


def as_tournament_event(event: AnyEvent) -> TournamentEvent:
    assert isinstance(event, TournamentStarted | Seated | TourClosed | YellowCard | Removed | Disqualified | CutMade), event
    return event


def through_tour(events: Sequence[AnyEvent], tour: int) -> list[AnyEvent]:
    """The events up to the close of ``tour`` and what that close brought with it
    (cards, removals, disqualifications, a cut): the tournament as it stood after it."""
    closing = next((i for i, e in enumerate(events) if isinstance(e, TourClosed) and e.tour == tour), None)
    if closing is None:
        closed = sorted(e.tour for e in events if isinstance(e, TourClosed))
        raise PointError((_("tour {tour} is not closed; tours closed: {closed}") if closed
                          else _("tour {tour} is not closed; no tour is closed yet")).format(
            tour=tour, closed=", ".join(map(str, closed))))
    end = closing + 1
    while end < len(events):
        e = events[end]
        if not ((isinstance(e, YellowCard | Removed | Disqualified) and e.at_close)
                or (isinstance(e, CutMade) and e.after_tour == tour)):
            break
        end += 1
    return list(events[:end])


def as_of(events: list[AnyEvent], tour: int | None, time: str | None) -> list[AnyEvent]:
    """The tournament's events after tour ``tour``, or up to time ``time``, or all."""
    if tour is not None and time is not None:
        raise PointError(_("give only one of --tour and --time"))
    if tour is not None:
        return through_tour(events, tour)
    if time is not None:
        when = point_micros(time)
        kept = [e for e in events if e.at is None or point_micros(e.at) <= when]
        if not kept:
            raise PointError(_("the tournament was started after {time}").format(time=time))
        return events[: len(kept)]
    return events


def point_micros(text: str) -> int:
    """A point in time given by the user (``--time``), as microseconds since 1970 UTC."""
    try:
        return utc_micros(text)
    except TimeFormatError as exc:
        raise PointError(str(exc)) from None


# -- standings ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TourEntry:
    tour: int
    table: int
    whists: int
    points: Fraction
    won: bool
    in_play: bool = False  # a table not yet closed: shown, not counted
    end: str = ""
    tally: Tally = Tally()  # the counts recorded with the close (``TableClosed.tallies``)


@dataclass(frozen=True)
class Standing:
    place: int
    player: str
    points: Fraction
    whists: int
    tours_won: int
    last_tour: int  # his whists in the last tour closed (the default third tie-break)
    tours: tuple[TourEntry, ...]
    status: str
    cards: int
    # The value of each of the tournament's tie-breaks, as ordered (fewer-first ones as
    # counted, not negated); the lot is the place in the draw, from 1.
    breaks: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Standings:
    tournament: str
    after_tour: int
    rows: tuple[Standing, ...]


def standings(state: TournamentState, live: Mapping[str, GameResult] | None = None) -> Standings:
    """The standings after the tours closed in ``state``; ``live`` gives the results
    (by game name) of tables still in play, shown as ``in_play`` entries."""
    segments = state.started.cutoff
    entries: dict[str, list[TourEntry]] = {p: [] for p in state.players}
    for tour in sorted(state.closed):
        for closed in state.closed[tour].tables:
            best = max(closed.whists.values())
            for player, whists in closed.whists.items():
                entries.setdefault(player, []).append(
                    TourEntry(tour, closed.table, whists, tour_points(whists, segments), whists == best, end=closed.end,
                              tally=closed.tallies.get(player, Tally()))
                )
    for tour, tables in sorted(state.seating.items()):
        if tour in state.closed or live is None:
            continue
        for table, players in sorted(tables.items()):
            result = live.get(table_game(state.name, tour, table))
            if result is None:
                continue
            best = max(result.whists.values())
            for player in players:
                whists = result.whists.get(player, 0)
                entries.setdefault(player, []).append(
                    TourEntry(tour, table, whists, tour_points(whists, segments), whists == best, True, result.status)
                )
    order = {p: i for i, p in enumerate(state.players)}
    breaks = {p: tie_break_values(state, p, [e for e in entries[p] if not e.in_play]) for p in state.players}

    def key(player: str) -> tuple[Any, ...]:
        counted = [e for e in entries[player] if not e.in_play]
        points = sum((e.points for e in counted), Fraction(0))
        ranked = tuple(-v if b in FEWER_FIRST or b == "lot" else v for b, v in breaks[player])
        return (state.stage(player), points, *ranked)

    keys = {p: key(p) for p in state.players}
    ranked = sorted(state.players, key=lambda p: (tuple(-k for k in keys[p]), order[p]))
    rows: list[Standing] = []
    for i, player in enumerate(ranked):
        place = rows[-1].place if rows and keys[ranked[i - 1]] == keys[player] else i + 1
        counted = [e for e in entries[player] if not e.in_play]
        values = dict(breaks[player])
        rows.append(
            Standing(
                place=place,
                player=player,
                points=sum((e.points for e in counted), Fraction(0)),
                whists=sum(e.whists for e in counted),
                tours_won=sum(1 for e in counted if e.won),
                last_tour=next((e.whists for e in counted if e.tour == state.last_closed), 0),
                tours=tuple(sorted(entries[player], key=lambda e: e.tour)),
                status=state.status(player),
                cards=len(state.cards.get(player, [])),
                breaks=tuple(values.items()),
            )
        )
    return Standings(state.name, state.last_closed, tuple(rows))


def tie_break_values(state: TournamentState, player: str, counted: Sequence[TourEntry]) -> tuple[tuple[str, int], ...]:
    """``player``'s value of each of the tournament's tie-breaks, in its order, from his
    tours ``counted`` (closed ones): sums over the tours, or his place in the lot."""
    player_tally = [sum(getattr(e.tally, b) for e in counted) for b in TALLIED]
    out = []
    for b in state.started.tie_breaks:
        if b == "whists":
            value = sum(e.whists for e in counted)
        elif b == "tours_won":
            value = sum(1 for e in counted if e.won)
        elif b == "last_tour":
            value = next((e.whists for e in counted if e.tour == state.last_closed), 0)
        elif b == "lot":
            value = state.lot_place(player)
        else:
            value = player_tally[TALLIED.index(b)]
        out.append((b, value))
    return tuple(out)


def standings_doc(s: Standings) -> dict[str, Any]:
    """The JSON of ``pulka tournament standings --json``: points as exact numbers where
    whole, else the nearest float (as ``result`` in event-log.md); a tournament that
    breaks ties by the Code's criteria or the lot shows each player's values of its
    tie-breaks (``tie_breaks``, in its order)."""
    return {
        "tournament": s.tournament,
        "after_tour": s.after_tour,
        "standings": [
            {
                "place": r.place,
                "player": r.player,
                "points": number(r.points),
                "whists": r.whists,
                "tours": [
                    {"tour": e.tour, "table": e.table, "whists": e.whists, "points": number(e.points)}
                    | ({"in_play": True, "status": e.end} if e.in_play else {})
                    for e in r.tours
                ],
                "status": r.status,
                "cards": r.cards,
                "tours_won": r.tours_won,
            } | ({"tie_breaks": dict(r.breaks)} if any(b not in DEFAULT_TIE_BREAKS for b, _ in r.breaks) else {})
            for r in s.rows
        ],
    }


def points_text(x: Fraction) -> str:
    """Points for people: a decimal when the fraction has one (23.8), else as ``fmt``."""
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return fmt(x)
    text = str(Decimal(x.numerator) / Decimal(x.denominator))
    return text if "." not in text else text.rstrip("0").rstrip(".")


# The tie-breaks as a person reads them (``--tie-breaks`` takes their keys).
_TIE_BREAKS = {"whists": N_("whists"), "tours_won": N_("tours_won"), "last_tour": N_("last_tour"),
               "raspasy_won": N_("raspasy_won"), "raspasy_tricks": N_("raspasy_tricks"), "remizes": N_("remizes"),
               "misere_tricks": N_("misere_tricks")}


def tie_breaks_text(started: TournamentStarted) -> str:
    """The tournament's tie-breaks in their order, the lot with its seed, in the reader's
    language."""
    return ", ".join(_("lot (seed {seed})").format(seed=started.lot_seed) if b == "lot"
                     else _(_TIE_BREAKS[b]) if b in _TIE_BREAKS else b for b in started.tie_breaks)


def render_standings(s: Standings, state: TournamentState, describe: str) -> str:
    closed = _("after tour {tour}").format(tour=s.after_tour) if s.after_tour else _("no tour closed yet")
    lines = [_("tournament {name}: standings {closed} ({point})").format(name=s.tournament, closed=closed,
                                                                         point=describe), ""]
    width = max(12, *(len(r.player) + 2 for r in s.rows))
    tours = sorted({e.tour for r in s.rows for e in r.tours})
    place, player, points, whists, won = _("place"), _("player"), _("points"), _("whists"), _("won")
    head = f"{place:<6}{player:<{width}}{points:>9}{whists:>8}{won:>5}" + "".join(
        f"{_('tour {tour}').format(tour=t):>16}" for t in tours) + "  " + _("status")
    lines.append(head)
    for r in s.rows:
        by_tour = {e.tour: e for e in r.tours}
        cells = ""
        for t in tours:
            e = by_tour.get(t)
            if e is None:
                cells += f"{'-':>16}"
            else:
                mark = "*" if e.in_play else ""
                cells += f"{points_text(e.points) + mark + ' (' + format(e.whists, '+d') + ')':>16}"
        status = _(r.status) + (", " + ngettext("{n} card", "{n} cards", r.cards).format(n=r.cards) if r.cards else "")
        lines.append(f"{r.place:<6}{r.player:<{width}}{points_text(r.points):>9}{r.whists:>+8}{r.tours_won:>5}{cells}  {status}")
    lines.append("")
    lines.append(_("Tour cells: points (whists). Points are the rounded tour result [Code 4.2.12] through the cut-off "
                   "function; ties are broken by {tie_breaks}.").format(tie_breaks=tie_breaks_text(state.started)))
    if any(e.in_play for r in s.rows for e in r.tours):
        lines.append(_("* a table still in play: its result as if abandoned now, not counted."))
    return "\n".join(lines) + "\n"
