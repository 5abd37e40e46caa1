"""The command side's judgement of a pulka: every event is judged against the game so
far before it is stored, and stored as judged (with its recorder and deal filled in).

- ``start`` judges a ``game_started`` and records the complete rule set in it;
- ``decide`` judges any later event: play (``play``), corrections and objections
  (``corrections``), after the checks all events share (``checks``);
- ``same_start`` says whether a file that appends begins with the stored game's start.

A batch of events, of a pulka or of any kind, is judged by the one loop of
``judging.judge_events`` with the kind's ``decide`` (``kinds``); the projections apply
stored events without judging them, so an old log always replays.
"""

from __future__ import annotations

import msgspec

from ledger.vocabulary import language
from ledger.vocabulary.refusal import Refused, excerpt
from ledger.judge.checks import STAKE_TEXT, check_recorder, check_time, is_official, is_stake
from ledger.judge.play import judge_play, of_play_type
from ledger.vocabulary.events import AnyEvent, Correction, ForeignEvent, GameStarted, Objection, Withdrawn, event_type
from ledger.vocabulary.stream import StreamStart
from ledger.vocabulary.rules import RuleSetError, resolve
from ledger.vocabulary.rules import check as check_rules
from projections.game import GameState

_ = language._  # every text a person reads, in the language in effect


def start(event: AnyEvent) -> GameStarted:
    """Judge a ``game_started`` and return it with the resolved rule set recorded."""
    if not isinstance(event, GameStarted):
        raise Refused("event-log", _("a log must begin with game_started, not {kind}").format(
            kind=type(event).__name__), _("a game_started line first"))
    players = event.players
    if len(players) not in (3, 4):
        raise Refused("1.2", _("a pulka is played by 3 or 4 players, not {n}").format(n=len(players)))
    # Names (distinct as players, not empty, no blanks around them) were admitted
    # before the judge: ``admission``.
    if any(p.startswith(("arbiter:", "scorer:")) for p in players):
        raise Refused("event-log", _("a player's name may not begin with 'arbiter:' or 'scorer:'"))
    if not event.game.strip():
        raise Refused("event-log", _("the game needs a name"))
    if event.pulya < 1:
        raise Refused("4.2.2", _("the pulya target must be a positive number of points, not {n}").format(n=event.pulya))
    if event.first_dealer is not None and event.first_dealer not in players:
        raise Refused("event-log", _("first_dealer {name} is not a player").format(name=repr(event.first_dealer)),
                      ", ".join(players))
    if event.stake is not None and not is_stake(event.stake):
        raise Refused("4.2.13", _("the stake {stake} is not money per whist").format(stake=excerpt(event.stake)),
                      _(STAKE_TEXT))
    try:
        resolved = resolve(event.convention, event.rules)
        if event.rule_set is not None and event.rule_set != resolved:
            # An exported game carries its full rule set; it is what replay uses.
            check_rules(event.rule_set)
            resolved = event.rule_set
    except RuleSetError as exc:
        raise Refused("rules.md §9", str(exc)) from None
    if event.by is not None and event.by not in players and not is_official(event.by):
        raise Refused("event-log", _("unknown recorder {name}").format(name=repr(event.by)),
                      _("a player ({players}), arbiter:NAME or scorer:NAME").format(players=", ".join(players)))
    fd = event.first_dealer if event.first_dealer is not None else players[-1]
    return msgspec.structs.replace(
        event, rule_set=resolved, first_dealer=fd, by=event.by or fd, deal=None
    )


def same_start(a: StreamStart, b: StreamStart) -> bool:
    """A file that appends must begin with the stored game's own game_started (both are
    game_started lines: the caller has checked their type)."""
    keys = ("game", "players", "pulya", "stake", "first_dealer", "rule_set")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


def decide(state: GameState, event: AnyEvent) -> AnyEvent:
    """Judge one event against ``state`` and return it as it will be stored."""
    # The checks of time and recorder, called only when their quick answer is not yes:
    # the time of the event before, a recorder at the table.
    at = event.at
    if at is not None and at != state.last_time:
        check_time(state, event)
    by = event.by
    if by is not None and by not in state.players:
        check_recorder(state, by)
    if of_play_type(event):
        return judge_play(state, event)
    if isinstance(event, GameStarted):
        raise Refused("event-log", _("a game has only one game_started line"))
    if isinstance(event, ForeignEvent):
        raise Refused("event-log", _("a {kind} event is not an event of a pulka").format(kind=event_type(event)),
                      _("the events of a pulka (see the README, \"The log format\")"))
    # Corrections, objections and withdrawals: their room is imported when one comes.
    if isinstance(event, Correction):
        from ledger.judge.corrections import judge_correction

        return judge_correction(state, event)
    if isinstance(event, Objection):
        from ledger.judge.corrections import judge_objection

        return judge_objection(state, event)
    if isinstance(event, Withdrawn):
        from ledger.judge.corrections import judge_withdrawal

        return judge_withdrawal(state, event)
    return judge_play(state, event)
