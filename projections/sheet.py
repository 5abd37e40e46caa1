"""The pulka sheet: three columns per player, built from individual writes.

Every number on the sheet is the sum of ``Write``s, and every write names the
event that caused it and why, so that any total can be traced back (``pulka
explain``) and shown as running entries, the way a paper sheet is kept.
Pulya writes go through ``write_pulya``, which applies help and the write-off of
points nobody can take [Code 4.2.3, 4.1.1].
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from ledger.vocabulary.rules import RuleSet

ColumnName = Literal["pulya", "gora", "whists"]
HELP_WHISTS = 10  # whists per helped point [Code 4.2.3]


@dataclass(frozen=True)
class Write:
    event: int  # the number of the event that caused it
    deal: int
    player: str  # whose column
    column: ColumnName
    amount: Fraction
    on: str | None = None  # whists: on whom
    why: str = ""


@dataclass
class Sheet:
    players: tuple[str, ...]
    target: int
    rules: RuleSet
    pulya: dict[str, Fraction] = field(default_factory=dict)
    gora: dict[str, Fraction] = field(default_factory=dict)
    whists: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    # The writes are the committed sheet's list up to a length, then this sheet's own:
    # copying a sheet to score the deal in progress must not copy the whole history.
    _shared: list[Write] = field(default_factory=list)
    _shared_len: int = 0
    _own: list[Write] = field(default_factory=list)

    def __post_init__(self) -> None:
        for p in self.players:
            self.pulya.setdefault(p, Fraction(0))
            self.gora.setdefault(p, Fraction(0))
            self.whists.setdefault(p, {q: Fraction(0) for q in self.players if q != p})

    @property
    def writes(self) -> list[Write]:
        """Every write, oldest first."""
        return self._shared[: self._shared_len] + self._own

    def copy(self) -> Sheet:
        """An independent sheet with the same numbers, sharing the history of writes."""
        if self._shared_len == 0:
            shared, length = self._own, len(self._own)
        elif not self._own:
            shared, length = self._shared, self._shared_len
        else:
            shared = self.writes
            length = len(shared)
        return Sheet(
            players=self.players,
            target=self.target,
            rules=self.rules,
            pulya=dict(self.pulya),
            gora=dict(self.gora),
            whists={p: dict(w) for p, w in self.whists.items()},
            _shared=shared,
            _shared_len=length,
        )

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
        amount: Fraction | int,
        on: str | None = None,
        why: str = "",
    ) -> None:
        self.add(Write(event, deal, player, column, Fraction(amount), on, why))

    def write_pulya(self, event: int, deal: int, player: str, amount: Fraction | int, why: str) -> None:
        """Points for a contract: into the player's pulya, with help when he has closed."""
        amount = Fraction(amount)
        if not self.rules.help:
            self.write(event, deal, player, "pulya", amount, why=why)
            return
        room = max(Fraction(0), self.target - self.pulya[player])
        own = min(amount, room)
        self.write(event, deal, player, "pulya", own, why=why)
        rest = amount - own
        while rest > 0:
            helped = self.help_recipient(player)
            if helped is None:
                # Points nobody can take are written off the player's own gora [Code 4.1.1].
                self.write(event, deal, player, "gora", -rest, why=f"{why}: points nobody can take")
                return
            give = min(rest, self.target - self.pulya[helped])
            self.write(event, deal, helped, "pulya", give, why=f"help from {player}")
            self.write(event, deal, player, "whists", give * HELP_WHISTS, on=helped, why=f"help to {helped}")
            rest -= give

    def help_recipient(self, helper: str) -> str | None:
        """The opponent with the largest pulya below the target; tie: the nearer to the helper's left."""
        i = self.players.index(helper)
        n = len(self.players)
        candidates = [self.players[(i + k) % n] for k in range(1, n)]
        open_ = [p for p in candidates if self.pulya[p] < self.target]
        if not open_:
            return None
        best = max(self.pulya[p] for p in open_)
        return next(p for p in open_ if self.pulya[p] == best)

    # -- reading ---------------------------------------------------------------------

    def closed(self, player: str) -> bool:
        return self.pulya[player] >= self.target

    @property
    def finished(self) -> bool:
        """The end of the pulka: every pulya at the target, or, without help, the
        pulyas together at players x target [Code 4.2.3, 4.2.3.3]."""
        if self.rules.help:
            return all(self.closed(p) for p in self.players)
        return sum(self.pulya.values()) >= self.target * len(self.players)
