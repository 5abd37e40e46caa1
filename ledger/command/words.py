"""The words of the table, as a scorer types them, turned into the log's canonical words.

A scorer writes ``6♠`` or ``6s`` or ``6 пик`` for the log's ``6S``, ``пас`` for ``pass``,
``вист``, ``полвиста``, ``мизер``, ``здесь``, and a player's name in any case. These
functions take such a word and return the canonical one that is stored, or refuse it
naming what is allowed. They are used where the command side parses what was typed
(``dealline`` and the table commands of the command line); a log file is read as it
is written, in the canonical words of docs/event-log.md.
"""

from __future__ import annotations

from ledger.vocabulary.bids import HERE, LEVELS_TEXT, MISERE, PASS, parse_level
from ledger.vocabulary.refusal import Refused

# Suits as written at the table: symbols, letters in any case, Russian abbreviations.
SUIT_WORDS: dict[str, str] = {
    "♠": "S", "♤": "S", "s": "S", "п": "S", "пик": "S", "пики": "S",
    "♣": "C", "♧": "C", "c": "C", "т": "C", "треф": "C", "трефы": "C", "к": "C", "крести": "C",
    "♦": "D", "♢": "D", "d": "D", "б": "D", "бубен": "D", "бубны": "D",
    "♥": "H", "♡": "H", "h": "H", "ч": "H", "черв": "H", "черви": "H",
    "nt": "NT", "бк": "NT", "б/к": "NT", "бескозырка": "NT",
}
PASS_WORDS = {"pass", "пас"}
HERE_WORDS = {"here", "здесь"}
MISERE_WORDS = {"misere", "misère", "мизер"}
CALL_WORDS: dict[str, str] = {
    "whist": "whist", "вист": "whist",
    "pass": "pass", "пас": "pass",
    "half_whist": "half_whist", "half-whist": "half_whist", "halfwhist": "half_whist",
    "полвиста": "half_whist", "пол-виста": "half_whist",
}
OPEN_WORDS = {"open", "открыто", "открытый", "откр"}
COLUMN_WORDS: dict[str, str] = {
    "pulya": "pulya", "пуля": "pulya", "пулю": "pulya",
    "gora": "gora", "гора": "gora", "гору": "gora",
    "whists": "whists", "whist": "whists", "висты": "whists", "вист": "whists",
}

BID_TEXT = f"pass (пас), here (здесь), {LEVELS_TEXT} (мизер); suits S C D H NT, ♠ ♣ ♦ ♥, or п т б ч бк"


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
    if not level.isdigit() or canonical is None:
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
        raise Refused("2.2.2", f"{text!r} is not a bid", BID_TEXT)
    return level


def contract_word(text: str) -> str:
    """A contract as the log writes it (a level of the ladder, or the misère)."""
    level = level_word(text)
    if level is None:
        raise Refused("2.2.2", f"{text!r} is not a contract", f"{LEVELS_TEXT} (мизер); suits S C D H NT or ♠ ♣ ♦ ♥")
    return level


def call_word(text: str) -> tuple[str, bool]:
    """A defence call and whether it is open: ``вист:открыто`` -> (``whist``, True)."""
    word, _, flag = text.strip().lower().partition(":")
    call = CALL_WORDS.get(word)
    if call is None or (flag and flag not in OPEN_WORDS):
        raise Refused("3.8.1", f"{text!r} is not a defence call",
                      "whist (вист), pass (пас), half_whist (полвиста); whist:open for an open whist")
    return call, bool(flag)


def column_word(text: str) -> str:
    column = COLUMN_WORDS.get(text.strip().lower())
    if column is None:
        raise Refused("4.2.1", f"{text!r} is not a column of the sheet", "pulya (пуля), gora (гора), whists (висты)")
    return column


def player_word(players: tuple[str, ...], text: str) -> str:
    """A player of the game named in any case, or a refusal listing the players."""
    if text in players:
        return text
    word = text.strip().casefold()
    found = [p for p in players if p.casefold() == word]
    if len(found) != 1:
        raise Refused("event-log", f"unknown player {text!r}", ", ".join(players))
    return found[0]


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
        raise Refused("event-log", f"unknown recorder {text!r}",
                      f"a player ({', '.join(players)}), scorer:NAME or arbiter:NAME") from None
