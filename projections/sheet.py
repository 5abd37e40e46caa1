"""The pulka sheet: three columns per player, built from individual writes.

Every number on the sheet is the sum of ``Write``s, and every write names the
event that caused it and why, so that any total can be traced back (``pulka
explain``) and shown as running entries, the way a paper sheet is kept.
Pulya writes go through ``write_pulya``, which applies help and the write-off of
points nobody can take [Code 4.2.3, 4.1.1].

Amounts are exact integers in a fixed sub-unit: ``UNIT`` sub-units make one point or
one whist. The rules split points only in halves (a half-whist, the gentleman's whist,
half responsibility, a checked 10) and thirds (three players tied on a Rostov raspasy
with four at the table), so 6 sub-units make every write whole; integer sums are many
times faster than ``Fraction`` ones. ``exact`` turns sub-units back into a ``Fraction``
for printing and settlement.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

import msgspec

from ledger.vocabulary.rules import RuleSet
from ledger.vocabulary.wording import said
from projections.numbers import fmt

ColumnName = Literal["pulya", "gora", "whists"]
# The columns as players name them, in either language (``pulka explain Вера.пуля``, a
# correction's ``column=гора``): one table for every command that reads a column.
COLUMN_WORDS: dict[str, ColumnName] = {
    "pulya": "pulya", "пуля": "pulya", "пулю": "pulya",
    "gora": "gora", "гора": "gora", "гору": "gora",
    "whists": "whists", "whist": "whists", "висты": "whists", "вист": "whists",
}
UNIT = 6  # sub-units per point or whist
HELP_WHISTS = 10  # whists per helped point [Code 4.2.3]


def exact(amount: int) -> Fraction:
    """An amount in sub-units as the exact number it stands for."""
    return Fraction(amount, UNIT)


def shown(amount: int) -> str:
    """An amount in sub-units as people read it: ``fmt`` of its exact value."""
    whole, rest = divmod(amount, UNIT)
    return str(whole) if not rest else fmt(Fraction(amount, UNIT))


def share(amount: int, parts: int) -> int:
    """One of ``parts`` equal shares of an amount in sub-units (halves and thirds)."""
    each, rest = divmod(amount, parts)
    if rest:
        raise ValueError(f"{exact(amount)} does not split into {parts} equal shares of 1/{UNIT}")
    return each


class Write(msgspec.Struct, frozen=True, gc=False):
    """One number written on the sheet: by which event, in which deal, where, how much, why."""

    event: int  # the number of the event that caused it
    deal: int
    player: str  # whose column
    column: ColumnName
    amount: int  # in sub-units (see UNIT)
    on: str | None = None  # whists: on whom
    why: str = ""

    @property
    def exact(self) -> Fraction:
        return exact(self.amount)


class _History:
    """The writes of a sheet and of every sheet it was copied from, oldest first.

    Copying a sheet must not copy its history (a long pulka has thousands of writes
    and the game keeps a copy at the end of every deal), so the history is a chain of
    frozen chunks shared by all copies; each sheet appends to its own open chunk.
    """

    __slots__ = ("chunk", "previous")

    def __init__(self, chunk: tuple[Write, ...], previous: _History | None) -> None:
        self.chunk = chunk
        self.previous = previous

    def flatten(self) -> list[Write]:
        chunks: list[tuple[Write, ...]] = []
        node: _History | None = self
        while node is not None:
            chunks.append(node.chunk)
            node = node.previous
        out: list[Write] = []
        for chunk in reversed(chunks):
            out.extend(chunk)
        return out


class Sheet:
    """Totals per player (pulya, gora, whists on each opponent) and the writes behind them."""

    __slots__ = (
        "players", "seated", "target", "rules", "pulya", "gora", "whists", "bombs", "_target_units", "_history",
        "_own",
    )

    def __init__(self, players: tuple[str, ...], target: int, rules: RuleSet) -> None:
        # Everyone who has held a seat (a player who left keeps his columns [Code 5.4.18]),
        # and the seats at the table now, clockwise: help and the end follow those.
        self.players = players
        self.seated = players
        self.target = target
        self.rules = rules
        self._target_units = target * UNIT
        self.pulya: dict[str, int] = dict.fromkeys(players, 0)
        self.gora: dict[str, int] = dict.fromkeys(players, 0)
        self.whists: dict[str, dict[str, int]] = {p: {q: 0 for q in players if q != p} for p in players}
        # Bombs earned on dark raspasy, oldest first: each multiplies its holder's next
        # game, and a game made uses it up [Code 3.3.19 a, footnotes 29-30].
        self.bombs: dict[str, tuple[int, ...]] = {}
        self._history: _History | None = None
        self._own: list[Write] = []

    @property
    def writes(self) -> list[Write]:
        """Every write, oldest first."""
        old = self._history.flatten() if self._history is not None else []
        return old + self._own

    def chunks(self) -> tuple[list[_History], list[Write]]:
        """The writes as ``writes`` gives them, in their frozen chunks (the nodes of the
        history, oldest first: shared by the sheet's copies, so a reader may keep what it
        made of one by the node) and the sheet's own writes after them."""
        nodes: list[_History] = []
        node = self._history
        while node is not None:
            nodes.append(node)
            node = node.previous
        nodes.reverse()
        return nodes, self._own

    def copy(self) -> Sheet:
        """An independent sheet with the same numbers, sharing the history of writes."""
        if self._own:
            self._history = _History(tuple(self._own), self._history)
            self._own = []
        other = Sheet.__new__(Sheet)
        other.players = self.players
        other.seated = self.seated
        other.bombs = self.bombs.copy()
        other.target = self.target
        other.rules = self.rules
        other._target_units = self._target_units
        other.pulya = self.pulya.copy()
        other.gora = self.gora.copy()
        other.whists = {p: w.copy() for p, w in self.whists.items()}
        other._history = self._history
        other._own = []
        return other

    # -- the table changes [Code 3.1.2, 5.4.18] ------------------------------------------

    def seat(self, player: str, seated: tuple[str, ...]) -> None:
        """A new player on the sheet, with empty columns; ``seated`` is the table after."""
        if player not in self.players:
            self.players = self.players + (player,)
            self.pulya[player] = 0
            self.gora[player] = 0
            for p, w in self.whists.items():
                w[player] = 0
            self.whists[player] = {q: 0 for q in self.players if q != player}
        self.seated = seated

    # -- writing ---------------------------------------------------------------------

    def add(self, w: Write) -> None:
        if w.amount == 0:
            return
        if w.column == "pulya":
            self.pulya[w.player] += w.amount
        elif w.column == "gora":
            self.gora[w.player] += w.amount
        else:
            assert w.on is not None
            self.whists[w.player][w.on] += w.amount
        self._own.append(w)

    def write(
        self,
        event: int,
        deal: int,
        player: str,
        column: ColumnName,
        amount: int,
        on: str | None = None,
        why: str = "",
    ) -> None:
        """Write ``amount`` sub-units (through ``add``: every number of the sheet goes there)."""
        if amount:
            self.add(Write(event, deal, player, column, amount, on, why))

    def write_pulya(self, event: int, deal: int, player: str, amount: int, why: str) -> None:
        """Points for a contract, in sub-units: into the player's pulya, with help when he
        has closed. A pulya point is worth ``pulya_to_gora`` gora points everywhere: a
        helped point costs the helped player 10 whists per gora point, and points nobody
        can take come off the player's gora at the same rate [Code 4.2.3, 4.1.1]."""
        if not self.rules.help:
            self.write(event, deal, player, "pulya", amount, why=why)
            return
        target = self._target_units
        room = max(0, target - self.pulya[player])
        own = min(amount, room)
        self.write(event, deal, player, "pulya", own, why=why)
        rest = amount - own
        while rest > 0:
            helped = self.help_recipient(player)
            if helped is None:
                # Points nobody can take are written off the player's own gora [Code 4.1.1].
                self.write(event, deal, player, "gora", -rest * self.rules.pulya_to_gora,
                           why=said("{why}: points nobody can take", why=why))
                return
            give = min(rest, target - self.pulya[helped])
            self.write(event, deal, helped, "pulya", give, why=said("help from {player}", player=player))
            self.write(event, deal, player, "whists", give * HELP_WHISTS * self.rules.pulya_to_gora, on=helped,
                       why=said("help to {player}", player=helped))
            rest -= give

    def help_recipient(self, helper: str) -> str | None:
        """The opponent with the largest pulya below the target; tie: the nearer to the helper's left."""
        seated = self.seated
        if helper not in seated:
            return None
        i = seated.index(helper)
        n = len(seated)
        candidates = [seated[(i + k) % n] for k in range(1, n)]
        open_ = [p for p in candidates if self.pulya[p] < self._target_units]
        if not open_:
            return None
        best = max(self.pulya[p] for p in open_)
        return next(p for p in open_ if self.pulya[p] == best)

    # -- reading ---------------------------------------------------------------------

    def value(self, player: str, column: ColumnName, on: str | None = None) -> Fraction:
        """One number of the sheet, exact."""
        if column == "pulya":
            return exact(self.pulya[player])
        if column == "gora":
            return exact(self.gora[player])
        assert on is not None
        return exact(self.whists[player][on])

    def closed(self, player: str) -> bool:
        return self.pulya[player] >= self._target_units

    @property
    def finished(self) -> bool:
        """The end of the pulka: every pulya at the table at the target, or, without help,
        their pulyas together at players x target [Code 4.2.3, 4.2.3.3]."""
        if self.rules.help:
            return all(self.closed(p) for p in self.seated)
        return sum(self.pulya[p] for p in self.seated) >= self._target_units * len(self.seated)


# The numbers of a sheet by cell: (player, column, on whom for whists, else None), the
# cells ``projections.trail`` names ``Cell``. Here, beside the sheet, so that a command
# that only records (and says what it wrote) loads nothing of the audit.


def totals(sheet: Sheet) -> dict[tuple[str, str, str | None], Fraction]:
    """Every number of the sheet, exact."""
    return {cell: exact(v) for cell, v in cell_units(sheet).items()}


def cell_units(sheet: Sheet) -> dict[tuple[str, str, str | None], int]:
    """Every number of the sheet in its integer sub-units (what the audit compares
    event by event, converting only what changed)."""
    cells: dict[tuple[str, str, str | None], int] = {}
    for p in sheet.players:
        cells[(p, "pulya", None)] = sheet.pulya[p]
        cells[(p, "gora", None)] = sheet.gora[p]
        for q, v in sheet.whists[p].items():
            cells[(p, "whists", q)] = v
    return cells
