"""The sheet of a pulka, kept as a checkpoint at the end of every deal.

``sheets[k]`` is the sheet after the records before deal 1 and deals 1..k, computed
lazily and each deal scored once; the deal in progress is scored on a copy. An event
that changes deal k (its result, a record of it by hand, a late record) drops the
checkpoints from k on. Checkpointed sheets are never changed after they are stored, so
that a fork of the game (``projections.forks``) can share them.

Here too is how each record by hand writes on the sheet: an entry, an arbiter's
penalty [Code 4.2.16], the talon's writes [Code 3.2.21, 3.4.10, 3.4.11], a newcomer's
mean pulya and gora [Code 3.1.2], a correction's penalty writes [Code 4.2.7].
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from copy import copy
from typing import TYPE_CHECKING, Protocol

from ledger.vocabulary.events import AnyEvent, Correction, Entry, GameStarted, Joined, Left, Penalty, Ruling, Talon, Tricks
from ledger.vocabulary.rules import RuleSet
from ledger.vocabulary.wording import said
from projections.deadlines import is_forgotten
from projections.deal_state import DealState
from projections.recording import Effect
from projections.scoring import score_compensation, score_deal
from projections.seats import TableSeats
from projections.sheet import UNIT, Sheet, Write


if TYPE_CHECKING:  # a type for mypy alone: no class made as a command starts

    class Scored(Protocol):
        """What the checkpoints read of the game they score (``projections.game.GameState``)."""

        @property
        def started(self) -> GameStarted: ...

        @property
        def rules(self) -> RuleSet: ...

        @property
        def table(self) -> TableSeats: ...

        @property
        def events(self) -> Sequence[AnyEvent]: ...

        @property
        def folded(self) -> int: ...

        @property
        def deals(self) -> Sequence[DealState]: ...

        @property
        def items(self) -> Sequence[Sequence[int]]: ...

        @property
        def penalties(self) -> Mapping[int, list[Write]]: ...

        @property
        def effects(self) -> Mapping[int, Effect]: ...

        def content(self, number: int) -> AnyEvent: ...


class Checkpoints:
    """The sheets at the end of each deal of a game, and the sheet now. The game is
    passed to each method that reads it (not kept: a game and its checkpoints would hold
    each other, and a replayed game would wait for the garbage collector)."""

    def __init__(self) -> None:
        self.sheets: list[Sheet] = []
        self.cache: tuple[int, Sheet] | None = None  # the sheet now, as of which event

    def sheet(self, game: Scored) -> Sheet:
        """The sheet now: the checkpoints, and the deal in progress on a copy. Read it
        before the next event is applied, and never write on it."""
        cache = self.cache
        if cache is not None and cache[0] == game.folded:
            return cache[1]
        settled = _settled_count(game.deals)
        sheet = self.at(game, settled)
        if settled < len(game.deals):
            sheet = sheet.copy()
            self._score(game, sheet, game.deals[-1])
        self.cache = (game.folded, sheet)
        return sheet

    def at(self, game: Scored, k: int) -> Sheet:
        """The sheet after deal k (0: after the records before deal 1), computed once."""
        sheets = self.sheets
        if not sheets:
            first = Sheet(game.started.players, game.started.pulya, game.rules)
            for number in game.items[0]:
                self.write(game, first, number, 0)
            sheets.append(first)
        while len(sheets) <= k:
            deal = game.deals[len(sheets) - 1]
            nxt = sheets[-1].copy()
            self._score(game, nxt, deal)
            sheets.append(nxt)
        return sheets[k]

    def fork(self) -> Checkpoints:
        """The checkpoints of a fork of the game (``GameState.fork``): the stored sheets
        shared, as they are never changed."""
        other = Checkpoints()
        other.sheets = list(self.sheets)
        other.cache = self.cache
        return other

    def drop_from(self, k: int) -> None:
        """Deal k (0: the records before the first deal) changed: its checkpoint and later ones go."""
        self.cache = None
        if len(self.sheets) > k:
            del self.sheets[k:]

    def item_added(self, game: Scored, number: int, k: int) -> None:
        """A record by hand (event ``number``) was added at the end of deal k so far."""
        if k == len(game.deals) and len(self.sheets) == k + 1:
            # The last checkpoint is of this deal, settled: the new write comes after
            # everything on it, so it is written there instead of scoring the deal again,
            # on a copy (a fork of the game may share the stored one).
            sheet = self.sheets[k].copy()
            self.write(game, sheet, number, k)
            self.sheets[k] = sheet
            self.cache = None
        else:
            self.drop_from(k)

    def rewind(self, game: Scored, deal: int) -> None:
        """Back to just before deal ``deal`` began (0: before any record). The sheets of the
        deals kept are made first, from the game as it stands, as its own sheet makes them:
        a late record of one of them may name a person whom the table rewound has not
        seated yet (a penalty on a substitute, written in the seat he took [Code 5.4.18])."""
        kept = deal if deal > 0 else 0
        if kept:
            self.at(game, min(kept - 1, _settled_count(game.deals)))
        del self.sheets[kept:]
        self.cache = None

    def _score(self, game: Scored, sheet: Sheet, deal: DealState) -> None:
        """The deal's result at the event that resolved it, its records by hand at theirs."""
        resolved_at = deal.resolved_at if deal.resolved else deal.annulled_at if deal.passes_on else None
        scored = False
        all_items = game.items
        items = all_items[deal.number] if deal.number < len(all_items) else ()
        for number in items:
            if resolved_at is not None and not scored and number > resolved_at:
                score_deal(sheet, deal)
                scored = True
            self.write(game, sheet, number, deal.number)
        if resolved_at is not None and not scored:
            score_deal(sheet, deal)

    def write(self, game: Scored, sheet: Sheet, number: int, deal: int) -> None:
        """What record by hand ``number`` of deal ``deal`` writes on ``sheet``."""
        event = game.content(number)
        key = game.table.key
        match event:
            case Correction():
                for w in game.penalties.get(number, ()):
                    sheet.add(w)
            case Entry():
                on = key(event.on) if event.on is not None else None
                sheet.write(number, deal, key(event.player), event.column, event.amount * UNIT, on, "entry")
            case Penalty():
                _penalty(game, sheet, number, deal, event)
            case Talon():
                _talon(game, sheet, number, deal, event)
            case Joined():
                _newcomer(game, sheet, number, deal, event)
            case Left():
                sheet.seated = game.table.table_after[number]
            case Ruling():
                score_compensation(sheet, game.deals[deal - 1])
            case _:
                raise AssertionError(f"event {number} is not a record by hand")

    # -- what a record without effect would have written ------------------------------------

    def unwritten(self, game: Scored, number: int) -> list[Write]:
        """What record ``number``, which has no effect (``void``: too late, objected to,
        withdrawn), would have written: where ``explain`` names it. Only records that
        write numbers: entries, penalties and the talon's (as written), and the forgotten
        tricks of a deal (the deal scored on the sheet before it, as if they were its
        result; tricks withdrawn with their deal belong to no deal that stands)."""
        event = game.content(number)
        k = event.deal or 0
        forgotten_tricks = (isinstance(event, Tricks) and 1 <= k <= len(game.deals)
                            and is_forgotten(game.events, game.effects, number))
        if not (isinstance(event, (Entry, Penalty, Talon)) or forgotten_tricks):
            return []
        if isinstance(event, Tricks):
            # The deal scored on the sheet as it stood before it (help follows the pulyas).
            before = self.at(game, k - 1)
            scratch = before.copy()
            deal = copy(game.deals[k - 1])
            game.table.tricks_into(deal, number, event)
            score_deal(scratch, deal)
            return _moved(before, scratch, number, k)
        sheet = self.sheet(game)
        scratch = Sheet(sheet.players, game.started.pulya, game.rules)
        scratch.seated = sheet.seated
        self.write(game, scratch, number, k)
        return scratch.writes


def _penalty(game: Scored, sheet: Sheet, number: int, deal: int, event: Penalty) -> None:
    """An arbiter's penalty never benefits the penalised player [Code 4.2.16]: in
    whists the wronged player writes it on him (a log older than ``wronged`` names the
    penalised player in ``on`` and the writer in ``player``)."""
    key = game.table.key
    why = f"penalty: {event.reason}"
    if event.column == "whists" and event.wronged is not None:
        sheet.write(number, deal, key(event.wronged), "whists", event.amount * UNIT, key(event.player), why)
        return
    on = key(event.on) if event.on is not None else None
    sheet.write(number, deal, key(event.player), event.column, event.amount * UNIT, on, why)


def _talon(game: Scored, sheet: Sheet, number: int, k: int, event: Talon) -> None:
    """The talon's writes: a look before it was bought [Code 3.2.21], its refusal [3.4.10],
    the dealer's premium [3.4.11]."""
    rules = game.rules
    deal = game.deals[k - 1] if k >= 1 else None
    player = game.table.key(event.player)
    if event.kind == "peek":
        sheet.write(number, k, player, "gora", rules.talon_peek_gora * UNIT,
                    why=said("looked at the talon before it was bought [Code 3.2.21]"))
    elif deal is not None and event.kind == "refused":
        sheet.write(number, k, deal.names[deal.dealer], "gora", rules.talon_refusal_gora * UNIT,
                    why=said("{player} refused the talon: the dealer pays the agreed points [Code 3.4.10]",
                             player=event.player))
    elif deal is not None and deal.contract is not None and deal.declarer is not None:
        price = deal.contract.price * rules.gora_whist_multiplier * UNIT
        sheet.write(number, k, deal.names[deal.dealer], "whists", event.tricks * price,
                    on=deal.names[deal.declarer],
                    why=said("premium for {n} trick(s) in the talon [Code 3.4.11]", n=event.tricks))


def _newcomer(game: Scored, sheet: Sheet, number: int, k: int, event: Joined) -> None:
    """The newcomer writes the mean pulya and gora of the players, rounded to whole
    points against him: the pulya down, the gora up [Code 3.1.2]."""
    seated = sheet.seated
    n = len(seated)
    pulya = sum(sheet.pulya[p] for p in seated)
    gora = sum(sheet.gora[p] for p in seated)
    sheet.seat(event.player, game.table.table_after[number])
    point = UNIT * n
    sheet.write(number, k, event.player, "pulya", (pulya // point) * UNIT,
                why=said("newcomer: the mean pulya, rounded down [Code 3.1.2]"))
    sheet.write(number, k, event.player, "gora", -((-gora) // point) * UNIT,
                why=said("newcomer: the mean gora, rounded up [Code 3.1.2]"))


def _settled_count(deals: Sequence[DealState]) -> int:
    """How many deals can be checkpointed: all but a last one that has no result yet."""
    if not deals:
        return 0
    last = deals[-1]
    return len(deals) if last.annulled_at is not None or last.resolved else len(deals) - 1


def _moved(before: Sheet, after: Sheet, number: int, k: int) -> list[Write]:
    """What changed from one sheet to the other, as writes of event ``number`` in deal k."""
    out = []
    for p in after.players:
        if after.pulya[p] != before.pulya.get(p, 0):
            out.append(Write(number, k, p, "pulya", after.pulya[p] - before.pulya.get(p, 0)))
        if after.gora[p] != before.gora.get(p, 0):
            out.append(Write(number, k, p, "gora", after.gora[p] - before.gora.get(p, 0)))
        for q, v in after.whists[p].items():
            moved = v - before.whists.get(p, {}).get(q, 0)
            if moved:
                out.append(Write(number, k, p, "whists", moved, q))
    return out
