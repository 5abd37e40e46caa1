"""A tournament's standings worked out again in the tests, for the golden tournament
fixtures (``fixtures/tournaments``), without the ledger's tournament code.

From the fixture's own lines (its ``tournament_started`` as written, its seatings and
the arbiter's cards) and each table's pulka scored by ``independent_scorer``, this
module follows the rules docs/conventions.md gives under "Tournaments" and the Code's
principle that the whists decide [Code 4.1.3]:

- a tour result is the rounded settlement [Code 4.2.12] of the player's table; tour
  points are that result through the cut-off segments (odd: a loss goes through the
  same segments); a player "won" a tour when no one at his table did better;
- a table is over when finished, abandoned, or at the deal cap [Code 4.2.15];
- the close of a tour cards every result below ``removal_below``; the card that reaches
  ``cards_to_disqualify`` disqualifies, any other sits the player out of the next tour
  (after the last tour a card only); then a cut (or the cut to the final table after
  the last tour but one) keeps the first M of the standings who may sit in the next
  tour;
- standings order by the stage reached (cuts passed; the disqualified last), points,
  then the tie-breaks in the tournament's order (``whists``, ``tours_won``,
  ``last_tour``, the Code's criteria counted from the deals [Code 3.7.2.2, 3.7.6.1,
  3.4.4, 3.6.1], the lot from its seed); equal on all of them share a place, listed in
  the order of entry;
- seating: the lot (``test_tournament_rules.redrawn``), Swiss by the standings, and
  the final table of the finalists in the order of the standings.

Only the vocabulary (the event types) and the judge's bookkeeping of the tables' logs
(deal numbers, which ``independent_scorer`` checks) are taken from the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from independent_scorer import score
from ledger.vocabulary.events import Abandoned, AnyEvent, Bid, Contract, Defence, GameStarted, Tricks
from test_tournament_rules import redrawn

DEFAULT_TIE_BREAKS = ("whists", "tours_won", "last_tour")
CRITERIA = ("raspasy_won", "raspasy_tricks", "remizes", "misere_tricks")
FEWER_FIRST = {"raspasy_tricks", "remizes", "misere_tricks"}


# -- one table ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A table's pulka as the close of its tour records it, worked out here."""

    game: str
    players: tuple[str, ...]
    end: str  # finished, abandoned, capped, or playing
    deals: int
    whists: dict[str, int]
    tallies: dict[str, dict[str, int]]


def table(events: list[AnyEvent], cap: int | None) -> Table:
    """The table of a judged log (the events as stored): its result by the independent
    scorer, how it ended, and the Code's criteria counted from its deals."""
    first = events[0]
    assert isinstance(first, GameStarted)
    scored = score(events)
    assert not scored.mismatches, scored.mismatches
    by_deal: dict[int, list[AnyEvent]] = {}
    for e in events[1:]:
        if e.deal is not None:
            by_deal.setdefault(e.deal, []).append(e)
    deals = len([k for k, evs in by_deal.items() if _resolved(evs)])
    pulya = {p: scored.cells[(p, "pulya", None)] for p in first.players}
    if any(isinstance(e, Abandoned) for e in events):
        end = "abandoned"
    elif all(v >= first.pulya for v in pulya.values()):  # every pulya closed, help given [Code 4.2.3]
        end = "finished"
    elif cap is not None and deals >= cap:
        end = "capped"
    else:
        end = "playing"
    return Table(first.game, first.players, end, deals, dict(scored.settled.rounded),
                 _tallies(first.players, by_deal))


def _resolved(events: list[AnyEvent]) -> bool:
    """A deal played to its result: tricks, or a contract both defenders passed."""
    if any(isinstance(e, Tricks) for e in events):
        return True
    return any(isinstance(e, Contract) for e in events) and \
        sum(1 for e in events if isinstance(e, Defence) and e.call == "pass") >= 2


def _tallies(players: tuple[str, ...], by_deal: dict[int, list[AnyEvent]]) -> dict[str, dict[str, int]]:
    """The Code's criteria [Code 4.1.3] as docs/conventions.md counts them: a raspasy is
    won by each bidder who took no more tricks than another bidder [Code 3.7.2.2], every
    trick on raspasy counts, the four-player dealer's talon tricks too [Code 3.7.6.1]; a
    contract declared and not made is a remiz; a misère's tricks are its declarer's."""
    out = {p: dict.fromkeys(CRITERIA, 0) for p in players}
    for events in by_deal.values():
        bids = [e for e in events if isinstance(e, Bid)]
        contract = next((e for e in reversed(events) if isinstance(e, Contract)), None)
        tricks = next((e for e in reversed(events) if isinstance(e, Tricks)), None)
        if contract is None and bids and all(b.bid == "pass" for b in bids):
            assert tricks is not None
            bidders = {b.player for b in bids}
            fewest = min(n for p, n in tricks.tricks.items() if p in bidders)
            for p, n in tricks.tricks.items():
                out[p]["raspasy_tricks"] += n
                out[p]["raspasy_won"] += int(p in bidders and n == fewest)
            continue
        if contract is None or tricks is None:
            continue  # unplayed: both defenders passed [Code 4.2.3.2]
        taken = tricks.tricks.get(contract.player, 0)
        if contract.contract == "misere":
            out[contract.player]["misere_tricks"] += taken
            out[contract.player]["remizes"] += int(taken > 0)
        else:
            out[contract.player]["remizes"] += int(taken < int(contract.contract[0]))
    return out


# -- the tournament ------------------------------------------------------------------------------


def tour_points(whists: int, cutoff: list[dict[str, Any]]) -> Fraction:
    """Marginal segments: the whists up to each bound at its rate; odd."""
    if not cutoff:
        return Fraction(whists)
    rest, lower, total = abs(whists), 0, Fraction(0)
    for segment in cutoff:
        upper = segment["upto"]
        top = rest if upper is None else min(rest, upper)
        total += max(0, top - lower) * Fraction(segment["rate"])
        if upper is None or rest <= upper:
            break
        lower = upper
    return total if whists >= 0 else -total


@dataclass
class Tournament:
    """The tournament as the rules make it, tour by tour."""

    started: dict[str, Any]
    tables: dict[int, list[Table]] = field(default_factory=dict)  # closed tours
    cards: dict[str, int] = field(default_factory=dict)
    removed: dict[int, set[str]] = field(default_factory=dict)  # tour sat out -> players
    disqualified: set[str] = field(default_factory=set)
    cuts: list[tuple[int, list[str]]] = field(default_factory=list)  # (after tour, kept)

    @property
    def players(self) -> list[str]:
        return list(self.started["players"])

    @property
    def tours(self) -> int | None:
        tours: int | None = self.started.get("tours")
        return tours

    @property
    def tie_breaks(self) -> tuple[str, ...]:
        return tuple(self.started.get("tie_breaks", DEFAULT_TIE_BREAKS))

    @property
    def final_tour(self) -> int | None:
        return self.tours if self.started.get("final_table") and self.tours else None

    def stage(self, player: str) -> int:
        if player in self.disqualified:
            return -1
        passed = 0
        for _, kept in self.cuts:
            if player not in kept:
                break
            passed += 1
        return passed

    def is_cut(self, player: str) -> bool:
        return any(player not in kept for _, kept in self.cuts)

    def eligible(self, tour: int) -> list[str]:
        return [p for p in self.players if p not in self.disqualified and not self.is_cut(p)
                and p not in self.removed.get(tour, set())]

    def card(self, player: str, tour: int) -> list[dict[str, Any]]:
        """An arbiter's card: the last one disqualifies."""
        self.cards[player] = self.cards.get(player, 0) + 1
        out: list[dict[str, Any]] = [{"type": "yellow_card", "player": player, "tour": tour}]
        if self.cards[player] >= self.started.get("cards_to_disqualify", 2):
            self.disqualified.add(player)
            out.append({"type": "disqualified", "player": player, "tour": tour})
        return out

    def close(self, tour: int, tables: list[Table]) -> list[dict[str, Any]]:
        """The close of ``tour`` on its tables: what follows from it, as events."""
        self.tables[tour] = tables
        out: list[dict[str, Any]] = []
        threshold = self.started.get("removal_below")
        if threshold is not None:
            for t in tables:
                for player in t.players:
                    if t.whists[player] >= threshold or player in self.disqualified:
                        continue
                    self.cards[player] = self.cards.get(player, 0) + 1
                    out.append({"type": "yellow_card", "player": player, "tour": tour, "at_close": True})
                    if self.cards[player] >= self.started.get("cards_to_disqualify", 2):
                        self.disqualified.add(player)
                        out.append({"type": "disqualified", "player": player, "tour": tour, "at_close": True})
                    elif self.tours is None or tour < self.tours:
                        self.removed.setdefault(tour + 1, set()).add(player)
                        out.append({"type": "removed", "player": player, "tour": tour + 1, "at_close": True})
        keep = next((c["keep"] for c in self.started.get("cuts", ()) if c["after_tour"] == tour), None)
        if self.final_tour is not None and tour == self.final_tour - 1:
            keep = self.started["final_table"]
        if keep is not None:
            eligible = set(self.eligible(tour + 1))
            kept = [row["player"] for row in self.standings() if row["player"] in eligible][:keep]
            self.cuts.append((tour, kept))
            out.append({"type": "cut_made", "after_tour": tour, "kept": kept})
        return out

    def status(self, player: str) -> str:
        if player in self.disqualified:
            return "disqualified"
        if self.is_cut(player):
            return "cut"
        last = max(self.tables, default=0)
        if self.tours is not None and last >= self.tours:
            return "finished"
        if player in self.removed.get(last + 1, set()):
            return "removed"
        if self.final_tour is not None and self.cuts and self.cuts[-1][0] == self.final_tour - 1:
            return "final"
        return "playing"

    def entries(self, player: str) -> list[dict[str, Any]]:
        out = []
        for tour, tables in sorted(self.tables.items()):
            for number, t in enumerate(tables, start=1):
                if player in t.whists:
                    whists = t.whists[player]
                    out.append({"tour": tour, "table": number, "whists": whists,
                                "points": tour_points(whists, self.started.get("cutoff", [])),
                                "won": whists == max(t.whists.values()), "tally": t.tallies[player]})
        return out

    def breaks(self, player: str) -> dict[str, int]:
        mine = self.entries(player)
        last = max(self.tables, default=0)
        values = {}
        for b in self.tie_breaks:
            if b == "whists":
                values[b] = sum(e["whists"] for e in mine)
            elif b == "tours_won":
                values[b] = sum(1 for e in mine if e["won"])
            elif b == "last_tour":
                values[b] = next((e["whists"] for e in mine if e["tour"] == last), 0)
            elif b == "lot":
                values[b] = redrawn(self.started["lot_seed"], self.players).index(player) + 1
            else:
                values[b] = sum(e["tally"][b] for e in mine)
        return values

    def standings(self) -> list[dict[str, Any]]:
        """Every player's row, in the order of the standings, with his place."""
        def key(player: str) -> tuple[Any, ...]:
            points = sum((e["points"] for e in self.entries(player)), Fraction(0))
            ranked = [-v if b in FEWER_FIRST or b == "lot" else v for b, v in self.breaks(player).items()]
            return (self.stage(player), points, *ranked)

        order = sorted(self.players, key=lambda p: (tuple(-k for k in key(p)), self.players.index(p)))
        rows: list[dict[str, Any]] = []
        for i, player in enumerate(order):
            mine = self.entries(player)
            shared = i > 0 and key(order[i - 1]) == key(player)
            rows.append({
                "place": rows[-1]["place"] if shared else i + 1,
                "player": player,
                "points": sum((e["points"] for e in mine), Fraction(0)),
                "whists": sum(e["whists"] for e in mine),
                "tours_won": sum(1 for e in mine if e["won"]),
                "last_tour": next((e["whists"] for e in mine if e["tour"] == max(self.tables, default=0)), 0),
                "status": self.status(player),
                "cards": self.cards.get(player, 0),
                "tours": [[e["tour"], e["table"], e["whists"], e["points"]] for e in mine],
                "tie_breaks": self.breaks(player),
            })
        return rows

    # -- seating ---------------------------------------------------------------------------

    def seating(self, tour: int, method: str, seed: str | None = None) -> list[list[str]]:
        """The tables ``seat --auto`` must give ``tour`` by ``method``."""
        players = self.eligible(tour)
        if method == "final":
            return [[row["player"] for row in self.standings() if row["player"] in players]]
        sizes = table_sizes(len(players), self.started.get("table_size", 4))
        if method == "lot":
            assert seed is not None
            drawn = redrawn(seed, players)
            return [drawn[sum(sizes[:i]):sum(sizes[:i + 1])] for i in range(len(sizes))]
        assert method == "swiss"
        order = [row["player"] for row in self.standings() if row["player"] in players]
        met = {frozenset((a, b)) for tables in self.tables.values() for t in tables
               for a in t.players for b in t.players if a != b}
        return swiss(order, met, sizes)


def table_sizes(players: int, usual: int) -> list[int]:
    """Tables of the usual size, the other size only where the count demands [Code 1.2]."""
    other = 7 - usual
    for tables in range(1, players + 1):
        for odd in range(tables + 1):
            if usual * (tables - odd) + other * odd == players:
                return [usual] * (tables - odd) + [other] * odd
    raise AssertionError(f"{players} players cannot be seated")


def swiss(order: list[str], met: set[frozenset[str]], sizes: list[int]) -> list[list[str]]:
    """docs/conventions.md: each table takes the best-placed player left, then one by one
    the best-placed who has met the fewest of those seated; then swaps between tables
    while one lowers the count of pairs meeting again; tables by their best-placed."""
    def again(t: list[str]) -> int:
        return sum(1 for i, a in enumerate(t) for b in t[i + 1:] if frozenset((a, b)) in met)

    left = list(order)
    tables: list[list[str]] = []
    for size in sizes:
        t = [left.pop(0)]
        while len(t) < size:
            pick = min(left, key=lambda p: (sum(1 for q in t if frozenset((p, q)) in met), order.index(p)))
            left.remove(pick)
            t.append(pick)
        tables.append(t)
    swapped = True
    while swapped:
        swapped = False
        for a, b in ((a, b) for a in range(len(tables)) for b in range(a + 1, len(tables))):
            for i in range(len(tables[a])):
                for j in range(len(tables[b])):
                    x, y = tables[a][:], tables[b][:]
                    x[i], y[j] = y[j], x[i]
                    if again(x) + again(y) < again(tables[a]) + again(tables[b]):
                        tables[a], tables[b], swapped = x, y, True
    seated = [sorted(t, key=order.index) for t in tables]
    return sorted(seated, key=lambda t: order.index(t[0]))
