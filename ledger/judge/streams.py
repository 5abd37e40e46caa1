"""Judging a file of several streams, storing nothing: a tournament with its tables'
games (``pulka tournament export``), the whole club (``pulka export --club``: the
club's register, the tournaments, every other game), or several games.

The streams are judged in the order of the tournament (``_plan``): each tour's games
just before the close of that tour, whose recorded results must match them; the games
of tours still open and every other game after; and last the club's register, whose
aliases are judged against every game before them. A refusal names the line of the
file. The desk (``ledger.desks.streams``) stores what is judged here; ``verify``
judges a stored tournament with its tables the same way (``judge_in_order``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.judge.kinds import judge_log, judging_of
from ledger.judge.register import judge_register, rows_of
from ledger.judge.tables import judge_table
from ledger.judge.tournament import TableGame, decide_tournament, judge_tournament_start
from ledger.vocabulary import language
from ledger.vocabulary.club import ClubStarted
from ledger.vocabulary.events import AnyEvent, StreamStart
from ledger.vocabulary.logfile import LogLine, check_export
from ledger.vocabulary.refusal import Refused, excerpt
from ledger.vocabulary.times import now_iso
from ledger.vocabulary.tournament_events import TournamentStarted, TourClosed, parse_table_game
from projections.game import GameState
from projections.tournament_state import TournamentState

_ = language._  # every text a person reads, in the language in effect


@dataclass(frozen=True)
class JudgedStreams:
    """A file of several streams judged: each stream's events as they would be stored,
    the tournament first, then the games in the order of the tournament; and each game's
    state after them."""

    events: dict[str, list[AnyEvent]]
    states: dict[str, Any]


def judge_streams(streams: Sequence[Sequence[LogLine]], clock: Callable[[], str] = now_iso) -> JudgedStreams:
    """Judge a file of several streams as ``import_streams`` would, storing nothing."""
    seen: dict[str, int] = {}
    for stream in streams:
        check_export(stream)
        name = stream_name(stream)
        if name in seen:
            refused = Refused("event-log", _("{stream} begins twice in the file (line {line} and here)").format(
                stream=excerpt(name), line=seen[name]), _("each stream once, as pulka export writes it"))
            refused.line = stream[0].line
            raise refused
        seen[name] = stream[0].line
    return judge_in_order(streams, clock)


def judge_in_order(streams: Sequence[Sequence[LogLine]], clock: Callable[[], str] = now_iso) -> JudgedStreams:
    """Judge streams whose lines are known to be as stored (a stored tournament and its
    tables, read again by ``verify``) in the order of the tournament, storing nothing."""
    return _judge_plan(_plan(streams), clock)


def stream_name(stream: Sequence[LogLine]) -> str:
    """The name of the stream that ``stream`` (lines of a file) is, from its first event;
    a refusal naming the line when it begins with no start."""
    first = stream[0].event
    if not isinstance(first, StreamStart):
        refused = Refused("event-log", _("a stream must begin with its first event (game_started or "
                                         "tournament_started)"), _("the file as pulka export wrote it"))
        refused.line = stream[0].line
        raise refused
    return first.game


@dataclass(frozen=True)
class _TournamentPart:
    name: str
    lines: list[LogLine]


@dataclass(frozen=True)
class _GamePart:
    name: str
    lines: list[LogLine]


@dataclass(frozen=True)
class _RegisterPart:
    name: str
    lines: list[LogLine]


Part = _TournamentPart | _GamePart | _RegisterPart


def _plan(streams: Sequence[Sequence[LogLine]]) -> list[Part]:
    """The order to store a file's streams in: each tournament's events, each tour's
    games just before the close of that tour, then the games of tours still open and
    every other game, and last the club's register, whose aliases are judged against
    every game before them (``register.judge_register``)."""
    tournaments = [list(s) for s in streams if isinstance(s[0].event, TournamentStarted)]
    registers = [_RegisterPart(stream_name(s), list(s)) for s in streams if isinstance(s[0].event, ClubStarted)]
    games = {stream_name(s): list(s) for s in streams if not isinstance(s[0].event, TournamentStarted | ClubStarted)}
    plan: list[Part] = []
    for tournament in tournaments:
        name = stream_name(tournament)
        part: list[LogLine] = []
        for line in tournament:
            if isinstance(line.event, TourClosed):
                if part:
                    plan.append(_TournamentPart(name, part))
                    part = []
                tour = line.event.tour
                for game in [g for g in games if (parse_table_game(g) or ("", 0, 0))[:2] == (name, tour)]:
                    plan.append(_GamePart(game, games.pop(game)))
            part.append(line)
        if part:
            plan.append(_TournamentPart(name, part))
    return plan + [_GamePart(g, lines) for g, lines in games.items()] + registers


def _judge_plan(plan: Sequence[Part], clock: Callable[[], str]) -> JudgedStreams:
    """Judge the whole plan in memory, so that a refusal stores nothing; what would be
    stored."""
    tournaments: dict[str, TournamentState] = {}
    games: dict[str, TableGame] = {}
    out = JudgedStreams({}, {})
    for step in plan:
        if isinstance(step, _RegisterPart):
            try:
                out.events[step.name] = judge_register([(line.line, line.event) for line in step.lines],
                                                       rows_of(out.states), clock)
            except Refused as exc:
                exc.line = exc.line or step.lines[0].line
                raise
            continue
        if isinstance(step, _TournamentPart):
            kept = out.events.setdefault(step.name, [])
            for line in step.lines:
                try:
                    state = tournaments.get(step.name)
                    if state is None:
                        if not isinstance(line.event, TournamentStarted):
                            raise Refused("event-log", _("a tournament's stream begins with its tournament_started"))
                        started = judge_tournament_start(line.event)
                        tournaments[step.name] = TournamentState.start(started)
                        kept.append(started)
                    else:
                        judged = decide_tournament(state, line.event, games)
                        state.apply(judged)
                        kept.append(judged)
                except Refused as exc:
                    exc.line = line.line
                    raise
            continue
        judged_log = judge_log([(line.line, line.event) for line in step.lines], clock)
        game_state = judging_of(judged_log[0]).fold(judged_log)
        out.events[step.name] = judged_log
        out.states[step.name] = game_state
        if not isinstance(game_state, GameState):
            continue  # a rubber: a game of no tournament
        state = tournaments.get((parse_table_game(step.name) or ("",))[0])
        if state is not None:
            try:
                judge_table(state, step.name, game_state, judged_log, {n: g.state for n, g in games.items()})
            except Refused as exc:
                exc.line = step.lines[0].line
                raise
        digests = [line.digest for line in step.lines]
        games[step.name] = TableGame(game_state, len(judged_log), digests[-1] or "")
    return out
