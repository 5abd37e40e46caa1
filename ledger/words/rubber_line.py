"""A deal of bridge in one line, the way it is called at the table.

    pulka bridge deal RUBBER "4S X N 10"      4 spades by North doubled, 10 tricks
    pulka bridge deal RUBBER "4S X@E N 10"    the same, East doubled
    pulka bridge deal RUBBER "2H X@N XX@W W 8"    North doubled, West redoubled
    pulka bridge deal RUBBER "3NT S -1"       3 no trump by South, one down
    pulka bridge deal RUBBER "4H W = hon E 100"   made exactly; East held 4 honours
    pulka bridge deal RUBBER "pass"           passed out (also "пас", "p", "-")
    pulka bridge deal RUBBER "3БК N 9"        the table's words: 3 no trump by North, 9 tricks

Words in order: the contract (``4S``, ``3NT``; ``4SX`` and ``4SXX`` also read; the suit
also as a pulka's deal lines take it, ``4♠``, ``3БК``, ``2ч``), then
``X`` or ``XX`` when it was doubled or redoubled, each with ``@SEAT`` (or ``@NAME``)
naming who doubled or redoubled when that is recorded [Law 19] (the double written
once: on the contract, ``4SX``, or after it, ``4S X XX``; ``4SX XX`` is refused), the declarer (a seat,
N E S W, or a player's name), and the result: the tricks the declarer's side took
(0-13), or ``=``, ``+N``, ``-N`` against the contract. Honours follow as ``hon SEAT
POINTS`` (``honours`` also reads). The contract is written in its canonical form
(``3NT``). The line only reads; ``ledger.judge.rubber`` judges the event it makes.
"""

from __future__ import annotations

from ledger.vocabulary.wording import digits
from typing import Any

from ledger.vocabulary.bridge import SEATS, BridgeDeal, ContractError, Honours, PassedOut, contract_text, needed
from ledger.vocabulary.bridge import canonical_contract, parse_contract
from ledger.words.table import PASS_WORDS, SUIT_WORDS, player_word
from ledger.vocabulary import language
from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.refusal import Refused

_ = language._  # every text a person reads, in the language in effect

EXAMPLES = '"4S X N 10", "4S X@E N 10", "3NT S -1", "4H W = hon E 100", "pass"'
PASSED = ("pass", "passed", "passed-out", "-")


def player_of(players: tuple[str, ...], word: str) -> str:
    """A seat letter (N, E, S, W) or a player's name in any case, as the player's name."""
    if word.upper() in SEATS:
        return players[SEATS.index(word.upper())]
    try:
        return player_word(players, word)
    except Refused:
        raise Refused("event-log", _("{word} is neither a seat nor a player").format(word=repr(word)),
                      _("N, E, S, W or {players}").format(players=", ".join(players))) from None


def table_contract(text: str) -> str:
    """A contract with its suit in the words a pulka's deal lines take (``SUIT_WORDS``:
    ``4♠``, ``3БК``, ``2ч``, ``5бубны``) in the log's letters (``4S``, ``3NT``); other
    text as it is, for ``parse_contract`` to read or refuse."""
    word = "".join(text.split())
    suit = SUIT_WORDS.get(word[1:].lower())
    return f"{word[0]}{suit}" if digits(word[:1]) and suit is not None else text


def rubber_deal(players: tuple[str, ...], line: str) -> AnyEvent:
    """The event a deal line stands for."""
    words = line.split()
    if not words:
        raise Refused("event-log", _("an empty deal line"), EXAMPLES)
    if len(words) == 1 and words[0].lower() in PASSED + tuple(PASS_WORDS):
        return PassedOut()
    first, _sep, suffix_by = words.pop(0).partition("@")
    doubles: list[str] = []
    upper = first.upper()
    for suffix in ("XX", "X"):
        if upper.endswith(suffix) and len(upper) > len(suffix):
            first = first[: -len(suffix)]
            doubles.append(suffix + ("@" + suffix_by if suffix_by else ""))
            break
    else:
        if suffix_by:
            raise Refused("event-log", _("{word}: @ names who doubled or redoubled, after X or XX").format(
                word=f"{first}@{suffix_by}"), _("e.g. 4S X@E N 10"))
    try:
        level, denomination = parse_contract(table_contract(first))
    except ContractError as exc:
        raise Refused("Law 18", str(exc), _("{examples}; the suit also ♠ ♥ ♦ ♣, п ч б т, БК (e.g. 4♠ N =, 3БК N 9)")
                      .format(examples=EXAMPLES)) from None
    on_contract = bool(doubles)
    while words and words[0].partition("@")[0].upper() in ("X", "XX"):
        if on_contract:
            # "4SX XX": the contract's double written on the contract and again as a
            # word of its own; read either way, it would be stored as one of them.
            raise Refused("Law 19", _("{line} writes the double twice: on the contract ({contract}) and as {call}"
                                      ).format(line=repr(line), contract=f"{first}{doubles[0]}", call=words[0]),
                          _("the double once: on the contract (4SX, 4SXX) or after it (4S X, 4S X XX, 4S X@E XX@S)"))
        doubles.append(words.pop(0))
    double, by = _doubles(players, doubles, line)
    if len(words) < 2:
        raise Refused("event-log", _("{line} needs the declarer and the result").format(line=repr(line)), EXAMPLES)
    declarer = player_of(players, words.pop(0))
    tricks = _result(words.pop(0), needed(level))
    honours = None
    if words and words[0].lower() in ("hon", "honours", "honors"):
        words.pop(0)
        if len(words) < 2 or not digits(words[1]):
            raise Refused("event-log", _("honours are written hon SEAT POINTS"), _("e.g. hon E 100"))
        honours = Honours(player=player_of(players, words.pop(0)), points=int(words.pop(0)))
    if words:
        raise Refused("event-log", _("unexpected {text} after the deal").format(text=repr(" ".join(words))), EXAMPLES)
    return BridgeDeal(declarer=declarer, contract=contract_text(level, denomination), double=double,  # type: ignore[arg-type]
                      tricks=tricks, honours=honours, doubled_by=by.get("X"), redoubled_by=by.get("XX"))


def _doubles(players: tuple[str, ...], words: list[str], line: str) -> tuple[str | None, dict[str, str]]:
    """``X``, ``XX``, ``X@E XX@S``...: the double of the contract and who made each call."""
    by: dict[str, str] = {}
    calls: list[str] = []
    for word in words:
        call, at, who = word.partition("@")
        call = call.upper()
        if call in calls or (call == "X" and "XX" in calls):
            raise Refused("event-log", _("doubled twice in {line}").format(line=repr(line)),
                          _("X, XX, or X@SEAT XX@SEAT once each"))
        if at and not who:
            raise Refused("event-log", _("{word} names nobody after @").format(word=repr(word)),
                          _("X@SEAT or XX@SEAT, e.g. X@E"))
        calls.append(call)
        if who:
            by[call] = player_of(players, who)
    return ("XX" if "XX" in calls else "X" if calls else None), by


NONE_WORDS = ("none", "null", "-")


def correction_words(players: tuple[str, ...], fields: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``pulka bridge correct`` as the log writes them: a seat or a name in
    any case for ``declarer``, ``doubled_by``, ``redoubled_by`` and the holder of
    ``honours`` (``honours=E:100``, or the log's ``{"player": "Egor", "points": 100}``),
    ``x``/``xx`` for the double, ``none`` for a field that is taken away, the contract in
    its canonical form. What is not read is left as typed, for the judge to refuse."""
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if isinstance(value, str) and value.strip().lower() in NONE_WORDS and key in _OPTIONAL:
            value = None
        elif key in ("declarer", "doubled_by", "redoubled_by") and isinstance(value, str):
            value = player_of(players, value)
        elif key == "double" and isinstance(value, str):
            value = value.strip().upper()
        elif key == "contract" and isinstance(value, str):
            try:
                value = canonical_contract(table_contract(value))
            except ContractError:
                pass
        elif key == "honours":
            value = _honours(players, value)
        out[key] = value
    return out


_OPTIONAL = ("double", "doubled_by", "redoubled_by", "honours")


def _honours(players: tuple[str, ...], value: Any) -> Any:
    if isinstance(value, str):
        holder, sep, points = value.partition(":")
        if not sep or not digits(points.strip()):
            raise Refused("event-log", _("honours={value}: honours are written SEAT:POINTS").format(value=repr(value)),
                          _("e.g. honours=E:100"))
        return {"player": player_of(players, holder.strip()), "points": int(points)}
    if isinstance(value, dict) and isinstance(value.get("player"), str):
        return {**value, "player": player_of(players, value["player"])}
    return value


def _result(word: str, need: int) -> int:
    if word == "=":
        return need
    if word[:1] in "+-" and digits(word[1:]):
        return need + int(word)
    if digits(word):
        return int(word)
    raise Refused("event-log", _("{word} is not a result").format(word=repr(word)),
                  _("the tricks taken (0-13), or =, +N, -N"))
