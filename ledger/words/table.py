"""The words of the table, as a scorer types them, turned into the log's canonical words.

A scorer writes ``6♠`` or ``6s`` or ``6 пик`` for the log's ``6S``, ``пас`` for ``pass``,
``вист``, ``полвиста``, ``мизер``, ``здесь``, and a player's name in any case. These
functions take such a word and return the canonical one that is stored, or refuse it
naming what is allowed. They are used where the command side parses what was typed
(``deal_line`` and the scorer's desks, ``ledger.desks.pulka`` and ``ledger.desks.rubber``); a log file is read
as it is written, in the canonical words of docs/event-log.md.

The short forms players write are words too: ``p``, ``-`` and ``п`` for a pass, ``w`` and
``в`` for a whist, ``hw`` and ``пв`` for a half-whist, ``miz`` and ``миз`` for the misère,
``rasp`` and ``расп`` for raspasy (``RASPASY_WORDS``). In a deal line a player may be
named by the beginning of his name when no other player's begins so (``player_named``).

Beside single words: trick counts ``Anna=6 boris=3``, penalty tricks ``Anna=1@3.4.9``,
whists written on an offender ``Boris=52``, lists of names ``Anna,Boris``, a value as
JSON or a bare word (``parse_value``), what a correction corrects (``target_word``: an
event number, or ``deal:5``, ``deal:5.tricks``, ``deal:5.contract``) and what it changes,
in the table's words (``replacement_of``: ``Boris=6 Vera=3``, ``6H``, ``pass``, ``5``,
``FIELD=VALUE``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
import msgspec

from ledger.vocabulary.wording import digits
from typing import Any

from ledger.vocabulary import language
from ledger.vocabulary.bids import HERE, LEVELS_TEXT, MISERE, PASS, parse_level
from ledger.vocabulary.events import TOO_DEEP, AnyEvent, Annulled, Bid, Contract, Defence, Entry, Penalty, \
    PenaltyTrick, Tricks, event_type
from ledger.vocabulary.language import N_
from ledger.vocabulary.refusal import Refused, UnreadableInput, excerpt
from projections.audit import describe
from projections.game import GameState
from projections.recording import CORRECTABLE
from projections.sheet import COLUMN_WORDS

_ = language._  # every text a person reads, in the language in effect

# Suits as written at the table: symbols, letters in any case, Russian abbreviations.
SUIT_WORDS: dict[str, str] = {
    "♠": "S", "♤": "S", "s": "S", "п": "S", "пик": "S", "пики": "S",
    "♣": "C", "♧": "C", "c": "C", "т": "C", "треф": "C", "трефы": "C", "к": "C", "крести": "C",
    "♦": "D", "♢": "D", "d": "D", "б": "D", "бубен": "D", "бубны": "D",
    "♥": "H", "♡": "H", "h": "H", "ч": "H", "черв": "H", "черви": "H",
    "nt": "NT", "бк": "NT", "б/к": "NT", "бескозырка": "NT",
}
PASS_WORDS = {"pass", "пас", "p", "-", "п"}
HERE_WORDS = {"here", "здесь"}
MISERE_WORDS = {"misere", "misère", "мизер", "miz", "mis", "миз"}
CALL_WORDS: dict[str, str] = {
    "whist": "whist", "вист": "whist", "w": "whist", "в": "whist",
    "pass": "pass", "пас": "pass", "p": "pass", "-": "pass", "п": "pass",
    "half_whist": "half_whist", "half-whist": "half_whist", "halfwhist": "half_whist", "hw": "half_whist",
    "полвиста": "half_whist", "пол-виста": "half_whist", "пв": "half_whist",
}
OPEN_WORDS = {"open", "открыто", "открытый", "откр", "o", "о"}
# A deal line that begins so is a raspasy: everyone passed [Code 3.7.1].
RASPASY_WORDS = {"raspasy", "rasp", "распасы", "распас", "расп"}

BID_TEXT = N_("pass (p, -, пас, п), here (здесь), 6S 6C 6D 6H 6NT ... 10NT, misere (miz, мизер); suits S C D H NT, "
              "♠ ♣ ♦ ♥, or п т б ч бк")
CALL_TEXT = N_("whist (w, вист, в), pass (p, -, пас, п), half_whist (hw, полвиста, пв); whist:open (w:o) for an "
               "open whist")


def level_word(text: str) -> str | None:
    """``6♠``, ``6s``, ``6 пик``, ``7бк``, ``мизер`` -> ``6S``, ``6S``, ``6S``, ``7NT``,
    ``misere``; None when the text is not a level of the ladder."""
    word = "".join(text.split()).lower()
    if word in MISERE_WORDS:
        return MISERE
    if word[:2] == "10":
        level, suit = word[:2], word[2:]
    else:
        level, suit = word[:1], word[1:]
    canonical = SUIT_WORDS.get(suit)
    if not digits(level) or canonical is None:
        return None
    found = parse_level(level + canonical)
    return str(found) if found is not None else None


def bid_word(text: str) -> str:
    """A bid as the log writes it, or a refusal listing the bids."""
    word = text.strip().lower()
    if word in PASS_WORDS:
        return PASS
    if word in HERE_WORDS:
        return HERE
    level = level_word(text)
    if level is None:
        raise Refused("2.2.2", _("{text} is not a bid").format(text=repr(text)), _(BID_TEXT))
    return level


def contract_word(text: str) -> str:
    """A contract as the log writes it (a level of the ladder, or the misère)."""
    level = level_word(text)
    if level is None:
        raise Refused("2.2.2", _("{text} is not a contract").format(text=repr(text)),
                      _("{levels} (мизер); suits S C D H NT or ♠ ♣ ♦ ♥").format(levels=LEVELS_TEXT))
    return level


def call_word(text: str) -> tuple[str, bool]:
    """A defence call and whether it is open: ``вист:открыто`` -> (``whist``, True)."""
    word, _sep, flag = text.strip().lower().partition(":")
    call = CALL_WORDS.get(word)
    if call is None or (flag and flag not in OPEN_WORDS):
        raise Refused("3.8.1", _("{text} is not a defence call").format(text=repr(text)), _(CALL_TEXT))
    return call, bool(flag)


def column_word(text: str) -> str:
    column = COLUMN_WORDS.get(text.strip().lower())
    if column is None:
        raise Refused("4.2.1", _("{text} is not a column of the sheet").format(text=repr(text)),
                      _("pulya (пуля), gora (гора), whists (висты)"))
    return column


def player_word(players: tuple[str, ...], text: str) -> str:
    """A player of the game named in any case, or a refusal listing the players."""
    if text in players:
        return text
    word = text.strip().casefold()
    found = [p for p in players if p.casefold() == word]
    if len(found) != 1:
        raise Refused("event-log", _("unknown player {text}").format(text=repr(text)), ", ".join(players))
    return found[0]


def player_named(players: tuple[str, ...], text: str) -> str | None:
    """The player a deal line names: his name in any case, or its beginning when no other
    player's name begins so (``v`` for Vera); None when the word names nobody, a refusal
    when it could be several."""
    word = text.strip().casefold()
    if not word:
        return None
    exact = [p for p in players if p.casefold() == word]
    if exact:
        return exact[0]
    found = [p for p in players if p.casefold().startswith(word)]
    if len(found) > 1:
        raise Refused("event-log", _("{text} could be {players}").format(text=repr(text), players=_(" or ").join(found)),
                      _("more of the name"))
    return found[0] if found else None


def opens_with_declarer(players: tuple[str, ...], text: str) -> bool:
    """Whether ``text`` reads as a deal line that opens with its declarer: a first word
    that names one of ``players`` (his whole name, or a beginning only he has: ``q`` for
    Quinn, ``в`` for Вера), then a contract (``6S``, ``7♥``, ``мизер``). The scorer's
    session reads such a line as a deal, though its first word is also one of its own
    (``q`` ends it, ``u`` undoes, ``h`` helps) or a command's name (``log`` for Logan)."""
    words = text.split()
    if len(words) < 2 or level_word(words[1]) is None:
        return False
    try:
        return player_named(players, words[0]) is not None
    except Refused:  # the beginning of two names: not a declarer, whatever else it is
        return False


def recorder_word(players: tuple[str, ...], text: str | None) -> str | None:
    """Who records: a player in any case, or ``arbiter:NAME`` or ``scorer:NAME`` as
    written (the blanks around it trimmed)."""
    if text is None:
        return None
    text = text.strip()
    if text.startswith(("arbiter:", "scorer:")):
        return text
    try:
        return player_word(players, text)
    except Refused:
        raise Refused("event-log", _("unknown recorder {by}").format(by=repr(text)),
                      _("a player ({players}), scorer:NAME or arbiter:NAME").format(players=", ".join(players))) \
            from None


def names_in(players: tuple[str, ...], text: str | None) -> tuple[str, ...]:
    """``Anna,boris`` as players of the game, names in any case; () for nothing."""
    return tuple(player_word(players, p.strip()) for p in text.split(",")) if text else ()


def trick_counts(players: tuple[str, ...], items: Iterable[str]) -> dict[str, int]:
    """``Anna=6 boris=3`` as trick counts by player, names in any case [Code 3.5]."""
    result: dict[str, int] = {}
    for item in items:
        name, sep, n = item.partition("=")
        if not sep or not digits(n.strip()):
            raise Refused("3.5", _("{item} is not NAME=N (a player and a number of tricks)").format(item=repr(item)),
                          " ".join(f"{p}=N" for p in players))
        result[player_word(players, name)] = int(n)
    return result


def penalty_tricks(players: tuple[str, ...], items: Iterable[str]) -> tuple[PenaltyTrick, ...]:
    """``Anna=1@3.4.9`` as penalty tricks: a player, how many, the rule of the Code
    [Code 3.9.12]."""
    out = []
    for item in items:
        what, sep, rule = item.partition("@")
        name, eq, n = what.partition("=")
        if not sep or not eq or not digits(n.strip()):
            raise Refused("3.9.12", _("{item} is not NAME=N@RULE").format(item=repr(item)), _("e.g. Anna=1@3.4.9"))
        out.append(PenaltyTrick(player=player_word(players, name), tricks=int(n), rule=rule.strip()))
    return tuple(out)


def whists_of(players: tuple[str, ...], items: Iterable[str], rule: str = "3.3.16.3") -> dict[str, int] | None:
    """``Boris=52`` as the whists each wronged player writes on the offender (3.3.16.3),
    or each dissenter on the planner (3.8.5.1); None for none."""
    out: dict[str, int] = {}
    for item in items:
        name, sep, n = item.partition("=")
        if not sep or not digits(n.strip()):
            raise Refused(rule, _("{item} is not NAME=N").format(item=repr(item)), _("e.g. --whists Boris=52"))
        out[player_word(players, name)] = int(n)
    return out or None


def parse_value(text: str) -> Any:
    """A value as JSON when it is JSON (7, true, [1,2,3], "price"), else the bare word;
    ``1,2,3`` is a list."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        if "," in text:
            return [parse_value(part) for part in text.split(",")]
        return text
    except RecursionError:
        raise UnreadableInput(f"{excerpt(text)}: {_(TOO_DEEP)}") from None


# -- a correction in the table's words [Code 4.2.7-4.2.9] ------------------------------------

PARTS = ("tricks", "contract")  # what ``deal:K.PART`` may name


class DealPart(msgspec.Struct, frozen=True):
    """A record named by its deal, as the scorer sees it on the sheet: ``deal:5`` (the
    change says which record), ``deal:5.tricks``, ``deal:5.contract``."""

    deal: int
    part: str | None
    text: str


def target_word(text: str | int) -> int | DealPart:
    """What a correction corrects: an event number (``35``), or a record of a deal
    (``deal:5``, ``deal:5.tricks``, ``deal:5.contract``)."""
    if isinstance(text, int):
        return text
    word = text.strip()
    if digits(word.removeprefix("-")):
        return int(word)
    kind, colon, rest = word.partition(":")
    number, dot, part = rest.partition(".")
    if kind.casefold() in ("deal", "сдача") and colon and digits(number) and (not dot or part.casefold() in PARTS):
        return DealPart(int(number), part.casefold() if dot else None, word)
    raise Refused("4.2.7", _("{text} names no record").format(text=repr(text)),
                  _("an event number (pulka log shows them), or deal:K, deal:K.tricks, deal:K.contract"))


def replacement_of(state: GameState, target: int, changes: Iterable[str]) -> dict[str, Any]:
    """What a correction changes, from the table's words: trick counts ``Boris=6 Vera=3``
    (a player left out keeps his count, or takes what makes 10 when he is the only
    one), a bid or contract ``6H``, a call ``pass``, an amount ``5`` or ``-4``, or any
    ``FIELD=VALUE``. A target that may not be corrected gives {}: the judge refuses it,
    saying what may be corrected."""
    if not 2 <= target <= state.folded or event_type(state.events[target - 1]) not in CORRECTABLE:
        return {}
    old = state.content(target)
    names = {p.casefold() for p in state.players}
    out: dict[str, Any] = {}
    counts: dict[str, int] = {}
    words: list[str] = []
    for item in changes:
        key, sep, value = item.partition("=")
        named = bool(sep) and key.strip().casefold() in names
        if named and not isinstance(old, Tricks):
            kind = event_type(old)
            raise Refused("4.2.7", _("{item} is a trick count, but event {target} is a {kind} ({what}), not a deal's "
                                     "tricks").format(item=item, target=target, kind=kind, what=describe(old)),
                          _("a change of its {fields}; `pulka log` shows each event's number").format(
                              fields=_(" or ").join(CORRECTABLE[kind])))
        if named:
            counts.update(trick_counts(state.players, [item]))
        elif sep:
            out[key.strip()] = field_value(state.players, key.strip(), value)
        else:
            words.append(item)
    if counts:
        assert isinstance(old, Tricks)
        out["tricks"] = to_ten({**old.tricks, **counts}, [p for p in old.tricks if p not in counts])
    if words:
        out.update(bare_change(old, " ".join(words)))
    return out


def to_ten(tricks: dict[str, int], unnamed: list[str]) -> dict[str, int]:
    """Trick counts where the one player a correction left out takes what makes 10."""
    total = sum(tricks.values())
    if len(unnamed) == 1 and total != 10 and 0 <= 10 - (total - tricks[unnamed[0]]) <= 10:
        tricks[unnamed[0]] = 10 - (total - tricks[unnamed[0]])
    return tricks


def field_value(players: tuple[str, ...], key: str, value: str) -> Any:
    """The value of one FIELD=VALUE of a correction, in the table's words."""
    match key:
        case "bid":
            return bid_word(value)
        case "contract":
            return contract_word(value)
        case "call":
            return call_word(value)[0]
        case "column":
            return column_word(value)
        case "on":
            return player_word(players, value)
        case "amount":
            return _amount(value)
        case "open":
            return value.strip().lower() in ("true", "yes", "1", "open")
        case "reason":
            return value
        case "tricks":
            parsed = parse_value(value)
            if not isinstance(parsed, dict):
                raise Refused("4.2.7", _("trick counts are written NAME=N"), " ".join(f"{p}=N" for p in players))
            return trick_counts(players, [f"{k}={v}" for k, v in parsed.items()])
        case _:
            return parse_value(value)


def _amount(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise Refused("4.2.7", _("amount={value} is not a whole number").format(value=value),
                      _("e.g. amount=5 or amount=-4")) from None


def bare_change(old: AnyEvent, word: str) -> dict[str, Any]:
    """A correction given as one word: what it means depends on the corrected event."""
    match old:
        case Bid():
            return {"bid": bid_word(word)}
        case Contract():
            return {"contract": contract_word(word)}
        case Defence():
            call, is_open = call_word(word)
            return {"call": call, "open": True} if is_open else {"call": call}
        case Entry() | Penalty():
            try:
                return {"amount": int(word)}
            except ValueError:
                return {"column": column_word(word)}
        case Annulled():
            return {"reason": word}
        case _:
            raise Refused("4.2.7", _("{word} says nothing a correction of this event could change").format(
                word=repr(word)), _("NAME=N for trick counts, a bid or contract, a call, an amount, or FIELD=VALUE"))
