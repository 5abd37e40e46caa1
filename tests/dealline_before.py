"""The deal line's parser as it was before issue 20 (commit 10d023c), kept frozen: the
compatibility test (``test_dealline_compat``) reads every deal line of the tests,
fixtures, README and demo through it and through today's ``ledger.words.deal_line``,
and the events must be the same. Copied verbatim (``deal_events`` and the table's
words it used); never edit it to make that test pass.
"""

from __future__ import annotations

from collections.abc import Iterator

from ledger.vocabulary.bids import HERE, LEVELS_TEXT, MISERE, PASS, parse_level
from ledger.vocabulary.events import AnyEvent, Bid, Contract, Defence, Tricks
from ledger.vocabulary.refusal import Refused
from projections.deal_state import DealState
from projections.game import GameState

# -- words.py as it was ------------------------------------------------------------------------

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
BID_TEXT = f"pass (пас), here (здесь), {LEVELS_TEXT} (мизер); suits S C D H NT, ♠ ♣ ♦ ♥, or п т б ч бк"


def level_word(text: str) -> str | None:
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
    level = level_word(text)
    if level is None:
        raise Refused("2.2.2", f"{text!r} is not a contract", f"{LEVELS_TEXT} (мизер); suits S C D H NT or ♠ ♣ ♦ ♥")
    return level


def call_word(text: str) -> tuple[str, bool]:
    word, _, flag = text.strip().lower().partition(":")
    call = CALL_WORDS.get(word)
    if call is None or (flag and flag not in OPEN_WORDS):
        raise Refused("3.8.1", f"{text!r} is not a defence call",
                      "whist (вист), pass (пас), half_whist (полвиста); whist:open for an open whist")
    return call, bool(flag)


def player_word(players: tuple[str, ...], text: str) -> str:
    if text in players:
        return text
    word = text.strip().casefold()
    found = [p for p in players if p.casefold() == word]
    if len(found) != 1:
        raise Refused("event-log", f"unknown player {text!r}", ", ".join(players))
    return found[0]


# -- dealline.py as it was ---------------------------------------------------------------------


def deal_events(state: GameState, line: str, by: str | None = None) -> Iterator[AnyEvent]:
    sections = [s.split() for s in line.split("|")]
    yield from _bids(state, sections.pop(0), by)
    deal = _auction_over(state)
    if not deal.raspasy:
        yield _contract(deal, sections.pop(0) if sections else [], by)
        if not (state.current is not None and state.current.no_defence):
            yield from _defence(state, deal, sections.pop(0) if sections else [], by)
    if sections:
        yield _tricks(state, sections.pop(0), by)
    if sections:
        raise Refused("event-log", f"unexpected text after the deal: {' | '.join(' '.join(s) for s in sections)!r}")


def _bids(state: GameState, tokens: list[str], by: str | None) -> Iterator[AnyEvent]:
    for token in tokens:
        deal = state.in_auction or state.next_deal()
        turn = deal.turn()
        if turn is None:
            raise Refused("3.3.13", f"the auction is over; {token!r} has nobody to bid it")
        word, _, flag = token.partition(":")
        if flag not in ("", "dark"):
            raise Refused("3.3.19", f"{token!r}: a bid's only mark is :dark", "e.g. pass:dark, 6S:dark")
        yield Bid(player=deal.persons[turn], bid=bid_word(word), dark=flag == "dark", by=by)


def _auction_over(state: GameState) -> DealState:
    deal = state.current
    if deal is None:
        raise Refused("3.3.1", "a deal line begins with the bids", '"6S pass pass | 6S | whist pass | 6 3 1"')
    turn = deal.turn()
    if deal.bidding_closed_at is None and not (turn is not None and deal.third_hand_may_take_talon(turn)):
        raise Refused("3.3.13", f"the auction of deal {deal.number} is not over", "more bids")
    return deal


def _contract(deal: DealState, words: list[str], by: str | None) -> AnyEvent:
    if not words:
        raise Refused("3.4.1", "the second section is the contract", "e.g. 6S or misere")
    declarer = deal.declarer if deal.declarer is not None else deal.turn()
    assert declarer is not None
    text, _, flag = " ".join(words).partition(":")
    if flag not in ("", "shared"):
        raise Refused("3.6.9", f"{' '.join(words)!r}: a contract's only mark is :shared (a misère with the "
                      "dealer)")
    shared = deal.persons[deal.dealer] if flag == "shared" else None
    return Contract(player=deal.persons[declarer], contract=contract_word(text), shared_with=shared, by=by)


def _defence(state: GameState, deal: DealState, tokens: list[str], by: str | None) -> Iterator[AnyEvent]:
    for token in tokens:
        head, _, flag = token.partition(":")
        word, _, hand = head.partition("@")
        call, is_open = call_word(f"{word}:{flag}" if flag else word)
        expect = state.current.defence().expect if state.current else None
        if expect is None:
            raise Refused("3.8.1", f"no defence call is expected here, got {token!r}")
        yield Defence(player=deal.persons[expect[0]], call=call, open=True if is_open else None,  # type: ignore[arg-type]
                      hand=player_word(deal.persons, hand) if hand else None, by=by)


def _tricks(state: GameState, counts: list[str], by: str | None) -> AnyEvent:
    deal = state.current
    assert deal is not None
    seats = _trick_seats(deal, counts)
    if len(counts) != len(seats):
        raise Refused("3.2.8", f"expected {len(seats)} trick counts, for {', '.join(deal.persons[s] for s in seats)}")
    try:
        tricks = {deal.persons[s]: int(c) for s, c in zip(seats, counts)}
    except ValueError:
        raise Refused("3.2.8", f"trick counts are whole numbers, not {' '.join(counts)!r}") from None
    return Tricks(tricks=tricks, by=by)


def _trick_seats(deal: DealState, counts: list[str]) -> list[int]:
    if deal.raspasy and len(counts) == deal.n_players and len(deal.active) < deal.n_players:
        everyone = list(range(deal.n_players))
        return everyone[deal.dealer + 1:] + everyone[: deal.dealer + 1]
    if deal.contract is not None and deal.contract.is_misere and len(counts) == 1:
        assert deal.declarer is not None
        return [deal.declarer]
    return list(deal.playing) if not deal.raspasy else list(deal.active)
