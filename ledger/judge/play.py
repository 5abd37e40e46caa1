"""Judging the events of play: which judgement each event goes to.

``judge_play(state, event)`` returns the event as it will be stored, its recorder and
its deal filled in, or raises ``Refused`` naming the rule [Code x.y] that forbids it and
what would be allowed. Each judgement has a room of its own:

- the auction and the contract: ``auction``;
- the defence: ``defence``;
- the result in tricks: ``result``;
- the records by hand (entries, the talon's writes): ``by_hand``;
- the arbiter's penalties and the rulings on a deal: ``arbiter``;
- around the table (a deal out of turn, an annulment, a newcomer, a leaver, a
  substitute, the end of the pulka): ``around_table``;

with what they share (a player's seat in a deal, what a deal waits for) in ``checks``.
Corrections and objections are judged in ``corrections``; the dispatch over all events
is in ``pulka``. The projections apply what was judged here without judging it again.
"""

from __future__ import annotations

from typing import TypeGuard, assert_never

from ledger.judge.auction import judge_bid, judge_contract
from ledger.judge.checks import filled, is_official, person_of
from ledger.judge.checks import waiting_for as waiting_for  # what a deal waits for, as the scorer is told
from ledger.judge.defence import judge_defence
from ledger.judge.result import judge_tricks
from ledger.vocabulary.events import (
    Abandoned,
    Annulled,
    AnyEvent,
    Bid,
    Contract,
    Dealt,
    Defence,
    Entry,
    Joined,
    Left,
    PencilDown,
    Penalty,
    Ruling,
    Substituted,
    Talon,
    Tricks,
)
from projections.game import GameState

PlayEvent = (
    Bid | Contract | Defence | Tricks | Entry | Penalty | PencilDown | Abandoned | Annulled | Dealt | Ruling | Joined
    | Left | Substituted | Talon
)
PLAY_EVENTS = (
    Bid, Contract, Defence, Tricks, Entry, Penalty, PencilDown, Abandoned, Annulled, Dealt, Ruling, Joined, Left,
    Substituted, Talon,
)


def is_play(event: AnyEvent) -> TypeGuard[PlayEvent]:
    """An event of play (judged here), not a game_started, correction, objection or withdrawal."""
    return isinstance(event, PLAY_EVENTS)


def of_play_type(event: AnyEvent) -> TypeGuard[PlayEvent]:
    """An event whose type is one of the events of play itself: ``is_play`` by one look-up."""
    return type(event) in _PLAY_TYPES


_PLAY_TYPES: frozenset[type] = frozenset(PLAY_EVENTS)


def judge_play(state: GameState, event: PlayEvent) -> AnyEvent:
    """Judge one event of play against ``state``; return it as it will be stored. The
    rooms of the records by hand, the arbiter and around the table are imported when an
    event of theirs comes: a deal line's events never go there."""
    match event:
        case Bid():
            return judge_bid(state, event)
        case Contract():
            return judge_contract(state, event)
        case Defence():
            return judge_defence(state, event)
        case Tricks():
            return judge_tricks(state, event)
        case Entry():
            from ledger.judge.by_hand import judge_entry

            return judge_entry(state, event)
        case Penalty():
            from ledger.judge.arbiter import judge_penalty

            return judge_penalty(state, event)
        case PencilDown():
            if not is_official(event.player):
                person_of(state, event.player)
            return filled(state, event, by=event.by or event.player)
        case Abandoned():
            from ledger.judge.around_table import judge_abandoned

            return judge_abandoned(state, event)
        case Annulled():
            from ledger.judge.around_table import judge_annulled

            return judge_annulled(state, event)
        case Dealt():
            from ledger.judge.around_table import judge_dealt

            return judge_dealt(state, event)
        case Ruling():
            from ledger.judge.arbiter import judge_ruling

            return judge_ruling(state, event)
        case Joined():
            from ledger.judge.around_table import judge_joined

            return judge_joined(state, event)
        case Left():
            from ledger.judge.around_table import judge_left

            return judge_left(state, event)
        case Substituted():
            from ledger.judge.around_table import judge_substituted

            return judge_substituted(state, event)
        case Talon():
            from ledger.judge.by_hand import judge_talon

            return judge_talon(state, event)
        case _:
            assert_never(event)
