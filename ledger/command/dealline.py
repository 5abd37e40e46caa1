"""A whole deal in one line, the way a scorer calls it at the table.

    pulka deal GAME "6S pass pass | 6S | whist pass | 6 3 1"

Sections are separated by ``|``: the bids in turn order, the contract, the defence
calls in their order (``whist:open`` for an open whist), and the tricks of the
players in the deal in turn order from the forehand. On raspasy the line is bids,
then tricks (``pass pass pass | 2 3 5``; with 4 players the dealer's talon tricks
may come last). A misère has no calls: ``misere pass pass | misere | 0``. After two
passes the third hand may give a contract without bidding:
``pass pass | 7S | whist pass | 7 2 1``. Who speaks is never typed: the auction
decides it, which is the point. The words may be the table's (``6♠``, ``пас``,
``вист``, ``полвиста``, ``мизер``, ``здесь``; ``words``); the log stores the canonical ones.

With four players the dealer who whists names the defender whose cards he plays:
``pass half_whist pass whist@Boris`` [Code 3.8.8]; his tricks then stand in that
defender's place in the tricks section. Where dark bids are agreed a bid is marked
``pass:dark``, ``6S:dark``, ``misere:dark`` [Code 3.3.19]; a misère shared with the
dealer is declared ``misere:shared`` [Code 3.6.9].

``deal_events`` yields the events of a line one at a time; whoever consumes it (the
judging loop, ``judging.judge_events``) judges each and folds it into the state before
asking for the next, so that each event is worked out from the state it will be
applied to: a section at a time (``_bids``, ``_contract``, ``_defence``, ``_tricks``). Every
event carries ``by`` when the line was typed by a named recorder (a scorer).
"""

from __future__ import annotations

from collections.abc import Iterator

from ledger.command.words import bid_word, call_word, contract_word, player_word
from ledger.vocabulary.events import AnyEvent, Bid, Contract, Defence, Tricks
from ledger.vocabulary.refusal import Refused
from projections.deal import DealState
from projections.game import GameState


def deal_events(state: GameState, line: str, by: str | None = None) -> Iterator[AnyEvent]:
    """The events a deal line stands for, each made once the one before it has been
    judged and folded into ``state``."""
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
    """The bids in turn order: who says each is the auction's turn [Code 3.3.13]."""
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
    """The deal whose bids the line gave, once its auction is over (or the third hand
    may take the talon without bidding [Code 3.3.15])."""
    deal = state.current
    if deal is None:
        raise Refused("3.3.1", "a deal line begins with the bids", '"6S pass pass | 6S | whist pass | 6 3 1"')
    turn = deal.turn()
    if deal.bidding_closed_at is None and not (turn is not None and deal.third_hand_may_take_talon(turn)):
        raise Refused("3.3.13", f"the auction of deal {deal.number} is not over", "more bids")
    return deal


def _contract(deal: DealState, words: list[str], by: str | None) -> AnyEvent:
    """The declarer's contract; ``misere:shared`` shares a misère with the dealer [Code 3.6.9]."""
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
    """The defence calls in their order: who says each is the defence's turn [Code 3.8.1];
    ``whist@NAME`` names the hand a four-player dealer plays [Code 3.8.8]."""
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
    """The tricks of the players in the deal, in turn order from the forehand [Code 3.2.8]."""
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
    """Whose tricks the counts are: the players in the deal; on raspasy with four players
    everyone from the forehand, the dealer's talon tricks last; a misère's declarer alone."""
    if deal.raspasy and len(counts) == deal.n_players and len(deal.active) < deal.n_players:
        everyone = list(range(deal.n_players))
        return everyone[deal.dealer + 1:] + everyone[: deal.dealer + 1]
    if deal.contract is not None and deal.contract.is_misere and len(counts) == 1:
        assert deal.declarer is not None
        return [deal.declarer]
    return list(deal.playing) if not deal.raspasy else list(deal.active)
