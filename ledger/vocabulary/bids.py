"""The ladder of bids and the price table [Code 2.2.2, 3.3].

Bids are written ``6S 6C 6D 6H 6NT ... 10NT``, ``misere``, ``pass``, ``here``.
A ``Level`` is a bid that can win the auction or be declared: a suit contract or
the misère; its ``rank`` orders the ladder.
"""

# No ``from __future__ import annotations`` here: typing makes a NamedTuple's fields'
# annotations, given as strings, into references it compiles one by one as the class is
# made, on every command's start; as objects they cost nothing more.

from typing import NamedTuple

from ledger.vocabulary import language
from ledger.vocabulary.language import N_

_ = language._  # every text a person reads, in the language in effect

SUITS = ("S", "C", "D", "H", "NT")
MISERE = "misere"
PASS = "pass"
HERE = "here"

# price p, tricks needed L, defenders' obligation O [Code 2.2.2, 3.8.2]
PRICE = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
OBLIGATION = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}
MISERE_PRICE = 10


class Level(NamedTuple):
    """A rung of the ladder: ``level`` 6-10 and a suit, or the misère (level 0). Only the
    ladder makes them (``rung``): what follows from the first three is worked out once
    there, as the judge and the scoring read it for every bid and deal."""

    rank: int
    level: int
    suit: str
    is_misere: bool
    price: int  # p [Code 2.2.2]
    needed: int  # tricks the declarer needs, L
    obligation: int  # the defenders' obligation, O [Code 3.8.2]
    text: str  # as the log writes it: ``6S``, ``misere``

    def __str__(self) -> str:
        return self.text


def rung(rank: int, level: int, suit: str) -> Level:
    """The ``Level`` of ``rank``: ``level`` and ``suit`` (0 and "" for the misère)."""
    if level == 0:
        return Level(rank, 0, "", True, MISERE_PRICE, 0, 0, MISERE)
    return Level(rank, level, suit, False, PRICE[level], level, OBLIGATION[level], f"{level}{suit}")


def _ladder() -> dict[str, Level]:
    ladder: dict[str, Level] = {}
    rank = 0
    for level in (6, 7, 8):
        for suit in SUITS:
            ladder[f"{level}{suit}"] = rung(rank, level, suit)
            rank += 1
    ladder[MISERE] = rung(rank, 0, "")
    rank += 1
    for level in (9, 10):
        for suit in SUITS:
            ladder[f"{level}{suit}"] = rung(rank, level, suit)
            rank += 1
    return ladder


LADDER = _ladder()
BY_RANK = sorted(LADDER.values())
LEVELS_TEXT = "6S 6C 6D 6H 6NT ... 10NT, misere"


def parse_level(text: str) -> Level | None:
    """The ladder rung for a bid or contract, accepting any case; None if not one."""
    found = LADDER.get(text)  # as the log writes it: nothing to normalise
    if found is not None:
        return found
    key = text.strip()
    key = key.lower() if key.lower() in (MISERE, "misère") else key.upper()
    if key == "MISÈRE" or key == "misère":
        key = MISERE
    return LADDER.get(key)


def lowest(min_level: int) -> Level:
    return LADDER[f"{min_level}S"]


def next_step(level: Level) -> Level | None:
    """The next rung above, skipping the misère (which is never a step of the ladder)."""
    for candidate in BY_RANK[level.rank + 1 :]:
        if not candidate.is_misere:
            return candidate
    return None


# The log's words of the auction and the defence as players say them (пас, вист, мизер);
# the log keeps its own, and a deal line typed back is written in those.
_SPOKEN = {
    "pass": N_("pass"), "whist": N_("whist"), "half_whist": N_("half_whist"), "misere": N_("misere"),
    "here": N_("here"), "open": N_("open"), "dark": N_("dark"), "shared": N_("shared"),
}


# A contract as players write it: the log's ``6S``, ``9NT`` in English, ``6♠``, ``9БК``
# in Russian (as the scorer's buttons say it, and as a deal line takes it back).
_CONTRACTS = {"S": N_("{level}S"), "C": N_("{level}C"), "D": N_("{level}D"), "H": N_("{level}H"),
              "NT": N_("{level}NT")}


def spoken(word: str) -> str:
    """A word of the log (``pass``, ``whist:open``, ``6S:dark``) in the language in effect,
    a contract's level in the players' notation (``6♠``, ``9БК`` in Russian)."""
    parts = word.split(":")
    return ":".join(_(_SPOKEN[part]) if part in _SPOKEN else spoken_contract(part) for part in parts)


def spoken_contract(text: str) -> str:
    """A contract of the log (``6S``) in the players' notation of the language in
    effect; anything else as it is."""
    level = LADDER.get(text)
    if level is None or level.is_misere:
        return text
    return _(_CONTRACTS[level.suit]).format(level=level.level)
