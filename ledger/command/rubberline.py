"""A deal of bridge in one line, the way it is called at the table.

    pulka bridge deal RUBBER "4S X N 10"      4 spades doubled by North, 10 tricks
    pulka bridge deal RUBBER "3NT S -1"       3 no trump by South, one down
    pulka bridge deal RUBBER "4H W = hon E 100"   made exactly; East held 4 honours
    pulka bridge deal RUBBER "pass"           passed out

Words in order: the contract (``4S``, ``3NT``; ``4SX`` and ``4SXX`` also read), then
``X`` or ``XX`` when it was doubled or redoubled, the declarer (a seat, N E S W, or a
player's name), and the result: the tricks the declarer's side took (0-13), or ``=``,
``+N``, ``-N`` against the contract. Honours follow as ``hon SEAT POINTS`` (``honours``
also reads). The line only reads; ``ledger.command.rubber`` judges the event it makes.
"""

from __future__ import annotations

from ledger.vocabulary.bridge import SEATS, BridgeDeal, ContractError, Honours, PassedOut, contract_text, needed
from ledger.vocabulary.bridge import parse_contract
from ledger.command.words import player_word
from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.refusal import Refused

EXAMPLES = '"4S X N 10", "3NT S -1", "4H W = hon E 100", "pass"'
PASSED = ("pass", "passed", "passed-out", "-")


def player_of(players: tuple[str, ...], word: str) -> str:
    """A seat letter (N, E, S, W) or a player's name in any case, as the player's name."""
    if word.upper() in SEATS:
        return players[SEATS.index(word.upper())]
    try:
        return player_word(players, word)
    except Refused:
        raise Refused("event-log", f"{word!r} is neither a seat nor a player",
                      "N, E, S, W or " + ", ".join(players)) from None


def rubber_deal(players: tuple[str, ...], line: str) -> AnyEvent:
    """The event a deal line stands for."""
    words = line.split()
    if not words:
        raise Refused("event-log", "an empty deal line", EXAMPLES)
    if len(words) == 1 and words[0].lower() in PASSED:
        return PassedOut()
    first = words.pop(0)
    double: str | None = None
    upper = first.upper()
    for suffix in ("XX", "X"):
        if upper.endswith(suffix) and len(upper) > len(suffix):
            first, double = first[: -len(suffix)], suffix
            break
    try:
        level, denomination = parse_contract(first)
    except ContractError as exc:
        raise Refused("Law 18", str(exc), EXAMPLES) from None
    if words and words[0].upper() in ("X", "XX"):
        if double is not None:
            raise Refused("event-log", f"doubled twice in {line!r}", "X or XX once")
        double = words.pop(0).upper()
    if len(words) < 2:
        raise Refused("event-log", f"{line!r} needs the declarer and the result", EXAMPLES)
    declarer = player_of(players, words.pop(0))
    tricks = _result(words.pop(0), needed(level))
    honours = None
    if words and words[0].lower() in ("hon", "honours", "honors"):
        words.pop(0)
        if len(words) < 2 or not words[1].isdigit():
            raise Refused("event-log", "honours are written hon SEAT POINTS", "e.g. hon E 100")
        honours = Honours(player=player_of(players, words.pop(0)), points=int(words.pop(0)))
    if words:
        raise Refused("event-log", f"unexpected {' '.join(words)!r} after the deal", EXAMPLES)
    return BridgeDeal(declarer=declarer, contract=contract_text(level, denomination),
                      double=double, tricks=tricks, honours=honours)  # type: ignore[arg-type]


def _result(word: str, need: int) -> int:
    if word == "=":
        return need
    if word[:1] in "+-" and word[1:].isdigit():
        return need + int(word)
    if word.isdigit():
        return int(word)
    raise Refused("event-log", f"{word!r} is not a result", "the tricks taken (0-13), or =, +N, -N")
