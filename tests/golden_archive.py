"""The club archive worked out again in the tests, for the golden club file
(``fixtures/club``), without the ledger's archive, rating and statistics code.

From the file's own streams (each pulka judged, so that its events carry the deal
numbers the judge gives them, which ``independent_scorer`` checks) and the documented
rules (docs/conventions.md, "Tournaments and the club archive" and "The club rating
and a player's statistics"):

- ``pulka``: how a pulka stands (finished when every pulya has reached the target
  [Code 4.2.3], abandoned by its ``abandoned``, capped at a tournament's deal cap
  [Code 4.2.15], else in play), its rounded results [Code 4.2.12] and its money;
- ``totals``: each player's totals over the pulkas over, names joined by the register's
  aliases and by the name key (case, width and blanks do not tell players apart);
- ``rating``: the club rating (``whists-per-deal``) worked again in exact fractions
  (``rating_worked``) from the documented parameters, every pulka over a match in the
  order it came to be over (then by its start, then by its name);
- ``Counter``: a player's statistics counted from the deals themselves, what each deal
  brought him from the independent scorer's exact results [Code 4.2.14].

Plain and slow, and enough for the few pulkas of a fixture: no corrections, objections,
penalties, newcomers or substitutes (a counter for those is ``tests/club_archive.py``).
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from fractions import Fraction
from typing import Any

import rating_worked
from independent_scorer import score
from ledger.vocabulary.events import (
    Abandoned,
    AnyEvent,
    Bid,
    Contract,
    Defence,
    GameStarted,
    Tricks,
)

# docs/conventions.md, "The conventions": a Leningrad pulka doubles whists and gora.
WHISTS_DOUBLED = {"leningrad": 2}


def key(name: str) -> str:
    """One player whatever the case, the width or the blanks (NFKC, case folded)."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


@dataclass(frozen=True)
class Pulka:
    game: str
    started_at: str
    convention: str
    players: tuple[str, ...]
    status: str
    deals: int
    whists: dict[str, int]
    exact: dict[str, Fraction]
    money: dict[str, str] | None
    over_at: str | None  # the time of the event at which it came to be over
    events: list[AnyEvent]

    @property
    def over(self) -> bool:
        return self.status != "playing"


def pulka(events: list[AnyEvent], cap: int | None) -> Pulka:
    """One judged pulka as the archive must count it."""
    first = events[0]
    assert isinstance(first, GameStarted) and first.at is not None
    scored = score(events)
    assert not scored.mismatches, scored.mismatches
    ends = _deal_ends(events)
    status, over_at = "playing", None
    for i in range(2, len(events) + 1):  # every prefix: the last time it came to be over counts
        now = _status(events[:i], cap)
        if now == "playing":
            over_at = None
        elif status == "playing":
            over_at = events[i - 1].at
        status = now
    rounded = dict(scored.settled.rounded)
    money = None
    if first.stake is not None:
        money = {p: str(Decimal(first.stake) * w) for p, w in rounded.items()}
    return Pulka(first.game, first.at, first.convention, first.players, status, len(ends), rounded,
                 dict(scored.settled.result), money, over_at, events)


def _status(events: list[AnyEvent], cap: int | None) -> str:
    """How a pulka stands after ``events``: abandoned [Code 4.2.3]; finished when every
    pulya is closed (help given) [Code 4.2.3], or without help when the pulyas together
    reach players x target [Code 4.2.3.3]; capped at a tournament's deal cap [Code
    4.2.15]; else in play."""
    first = events[0]
    assert isinstance(first, GameStarted)
    if any(isinstance(e, Abandoned) for e in events):
        return "abandoned"
    cells = score(events).cells
    pulya = [cells[(p, "pulya", None)] for p in first.players]
    target = first.pulya
    if first.convention == "leningrad":
        finished = sum(pulya) >= len(first.players) * target
    else:
        finished = all(v >= target for v in pulya)
    if finished:
        return "finished"
    if cap is not None and len(_deal_ends(events)) >= cap:
        return "capped"
    return "playing"


def _deal_ends(events: list[AnyEvent]) -> dict[int, int]:
    """Each deal played to its result: the index of the event that resolved it (its
    tricks; or, for a contract that needs none, the call that settled it: both
    defenders passed, or a half-whist stands [Code 3.8.7, 4.2.3.2])."""
    out: dict[int, int] = {}
    by_deal: dict[int, list[tuple[int, AnyEvent]]] = {}
    for i, e in enumerate(events):
        if e.deal is not None:
            by_deal.setdefault(e.deal, []).append((i, e))
    for k, deal in by_deal.items():
        tricks = [i for i, e in deal if isinstance(e, Tricks)]
        calls = [(i, e.call) for i, e in deal if isinstance(e, Defence)]
        said = [c for _, c in calls]
        if tricks:
            out[k] = tricks[-1]
        elif any(isinstance(e, Contract) for _, e in deal) and "whist" not in said and \
                (said.count("pass") >= 2 or "half_whist" in said):
            out[k] = calls[-1][0]
    return out


# -- the register -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Club:
    pulkas: list[Pulka]
    aliases: list[tuple[str, str]]

    def who(self, name: str) -> str:
        """The key of the player a name is, through the aliases."""
        k = key(name)
        joined = {key(a): key(b) for a, b in self.aliases}
        seen = {k}
        while k in joined and joined[k] not in seen:
            k = joined[k]
            seen.add(k)
        return k

    def shown(self, who: str) -> str:
        """An alias's canonical spelling, else the one of his latest pulka."""
        for _, same_as in self.aliases:
            if self.who(same_as) == who:
                return same_as
        latest = max((p for p in self.pulkas if any(self.who(n) == who for n in p.players)),
                     key=lambda p: (p.started_at, p.game))
        return next(n for n in latest.players if self.who(n) == who)

    def totals(self) -> list[dict[str, Any]]:
        """Every player's totals, the most whists first."""
        per: dict[str, list[tuple[Pulka, str]]] = {}
        for p in self.pulkas:
            for name in p.players:
                per.setdefault(self.who(name), []).append((p, name))
        out = []
        for who, mine in per.items():
            over = [(p, n) for p, n in mine if p.over]
            results = [p.whists[n] for p, n in over]
            money = [Decimal(p.money[n]) for p, n in over if p.money is not None]
            out.append({"player": self.shown(who), "pulkas": len(over),
                        "finished": sum(1 for p, _ in over if p.status == "finished"),
                        "abandoned": sum(1 for p, _ in over if p.status != "finished"),
                        "in_play": len(mine) - len(over), "whists": sum(results),
                        "money": str(sum(money, Decimal(0))) if money else None,
                        "best": max(results, default=None), "worst": min(results, default=None)})
        return sorted(out, key=lambda s: (-s["whists"], key(s["player"])))

    def matches(self) -> list[Pulka]:
        """Every pulka over, in the order it came to be over (then by its start, then by name)."""
        return sorted((p for p in self.pulkas if p.over),
                      key=lambda p: (_utc(p.over_at or ""), _utc(p.started_at), p.game))

    def rating(self, now: str | None = None) -> dict[str, tuple[float, float, int]]:
        """The club rating over the matches (``rating_worked``): each player's mu, sigma
        (grown by his absence to ``now``, by default the last match's end) and matches."""
        pulkas = [rating_worked.Pulka(p.game, _utc(p.started_at), _utc(p.over_at or ""), p.deals,
                                      WHISTS_DOUBLED.get(p.convention, 1),
                                      tuple((self.who(n), p.whists[n]) for n in p.players))
                  for p in self.matches()]
        folded = rating_worked.fold(pulkas, None if now is None else _utc(now))
        return {self.shown(k): (float(mu), math.sqrt(variance), n) for k, (mu, variance, n) in folded.items()}


def _utc(at: str) -> int:
    return round(datetime.fromisoformat(at).astimezone(timezone.utc).timestamp()) * 10**6


# -- a player's statistics -----------------------------------------------------------------------


@dataclass
class Count:
    count: int = 0
    whists: Fraction | None = None

    def add(self, whists: Fraction | None) -> None:
        self.count += 1
        if whists is not None:
            self.whists = (self.whists or Fraction(0)) + whists


@dataclass
class Counter:
    """A player's numbers counted from the deals (docs/conventions.md, "a player's
    statistics"), each with what it brought him."""

    club: Club
    who: str
    numbers: dict[str, Count] = field(default_factory=dict)

    def add(self, name: str, whists: Fraction | None = None) -> None:
        self.numbers.setdefault(name, Count()).add(whists)

    def count(self) -> dict[str, Count]:
        for p in sorted(self.club.pulkas, key=lambda p: (p.started_at, p.game)):
            mine = [n for n in p.players if self.club.who(n) == self.who]
            if mine:
                self._pulka(p, mine[0])
                self._deals(p, mine[0])
        return self.numbers

    def _pulka(self, p: Pulka, me: str) -> None:
        whists = Fraction(p.whists[me])
        if not p.over:
            self.add("pulkas.in_play", whists)
            return
        self.add("pulkas", whists)
        self.add("pulkas.finished" if p.status == "finished" else "pulkas.abandoned", whists)
        if p.whists[me] == max(p.whists.values()):
            self.add("pulkas.first", whists)
        for other in p.players:
            if other != me:
                diff = p.whists[me] - p.whists[other]
                base = f"vs.{self.club.shown(self.club.who(other))}"
                self.add(base, Fraction(diff))
                self.add(f"{base}.{'ahead' if diff > 0 else 'behind' if diff < 0 else 'level'}", Fraction(diff))

    def _deals(self, p: Pulka, me: str) -> None:
        ends = _deal_ends(p.events)
        before, gora_before = Fraction(0), Fraction(0)
        for k in sorted(ends):
            scored = score(p.events[: ends[k] + 1])
            now, gora = scored.settled.result[me], scored.cells[(me, "gora", None)]
            brought = now - before
            deal = [e for e in p.events if e.deal == k]
            self._deal(deal, me, brought, gora > gora_before, len(p.players))
            before, gora_before = now, gora

    def _deal(self, deal: list[AnyEvent], me: str, brought: Fraction, gora_written: bool, seats: int) -> None:
        bids = [e for e in deal if isinstance(e, Bid)]
        bidders = [b.player for b in bids]
        if me not in bidders and seats == 4:
            self.add("deals", brought)  # the sitting-out dealer: the deal is his too
            whisted = any(isinstance(e, Defence) and e.player == me and e.call == "whist" for e in deal)
            if whisted:
                self.add("defence.whist", brought)
            return
        self.add("deals", brought)
        contract = next((e for e in reversed(deal) if isinstance(e, Contract)), None)
        tricks = next((e for e in reversed(deal) if isinstance(e, Tricks)), None)
        if contract is None:
            assert tricks is not None and all(b.bid == "pass" for b in bids)
            self.add("raspasy", brought)
            if tricks.tricks.get(me, 0) == 0:
                self.add("raspasy.clean", brought)
            return
        if contract.player == me:
            self._declared(contract.contract, tricks.tricks.get(me, 0) if tricks else None, brought)
            return
        if contract.contract == "misere":
            return  # a misère has no defence
        calls = [e.call for e in deal if isinstance(e, Defence) and e.player == me]
        call = calls[-1]
        if call == "half_whist" and any(isinstance(e, Defence) and e.call == "whist" and e.player != me for e in deal):
            call = "pass"  # a returned half-whist is the pass it became [Code 3.8.8]
        self.add(f"defence.{call}", brought)
        if call == "whist" and gora_written:
            self.add("remizes.whist", brought)

    def _declared(self, contract: str, taken: int | None, brought: Fraction) -> None:
        if contract == "misere":
            self.add("misere", brought)
            made = not taken
            self.add("misere.made" if made else "misere.failed", brought)
            if not made:
                self.add("remizes.declarer", brought)
            return
        made = taken is None or taken >= int(contract[0])  # unplayed: made [Code 4.2.3.2]
        for name in ("contracts", f"contracts.{contract[0]}", f"contracts.{contract}"):
            self.add(name, brought)
            self.add(f"{name}.{'made' if made else 'remiz'}", brought)
        if not made:
            self.add("remizes.declarer", brought)

    def totals(self) -> dict[str, Count]:
        """The counts with the sums the statistics show (remizes of both kinds)."""
        numbers = self.count()
        remizes = Count()
        for part in ("remizes.declarer", "remizes.whist"):
            found = numbers.get(part)
            if found is not None:
                remizes.count += found.count
                if found.whists is not None:
                    remizes.whists = (remizes.whists or Fraction(0)) + found.whists
        if remizes.count:
            numbers["remizes"] = remizes
        return numbers
