"""A stored stream judged again, each event as it was on its way in: what a command
that reads or records onto a stored game does first (``judged_fold``, by batches), what
``import`` and ``verify --file`` do to a log without a store (``judge_stream``), and
what a reading command does to name the first stored event that cannot be replayed
(``pinpointed``, by halving). An event the judge refuses, or records otherwise than it
is stored, is named by number (``ChainProblem``): one the ledger would not have
recorded, written with its digests computed anew.

Also the refusals of a command on a stream of the wrong kind: a rubber's command on a
pulka (``kind_checked``), a game's on a tournament or the club register (``a_game``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ledger.judge.judging import judge_events
from ledger.judge.kinds import Judging, Start, State, StreamState, judging_of, start_stream
from ledger.vocabulary import language
from ledger.vocabulary.chain import ChainProblem
from ledger.vocabulary.club import ClubStarted
from ledger.vocabulary.events import AnyEvent, encode_event
from ledger.vocabulary.refusal import Refused
from ledger.vocabulary.times import now_iso
from ledger.vocabulary.tournament_events import TournamentStarted

if TYPE_CHECKING:  # a log's lines: an import's (``cli.importing`` reads them)
    from ledger.vocabulary.logfile import LogLine

_ = language._  # every text a person reads, in the language in effect

S = TypeVar("S", bound=StreamState)
T = TypeVar("T")


class ImpossibleEventError(Exception):
    """A stored event that the projections cannot take (eleven tricks, an unknown
    player): one the ledger would never have recorded, so it was written around it."""

    def __init__(self, game: str, number: int, cause: Exception) -> None:
        self.game = game
        self.number = number
        super().__init__(_(
            "event {number} of game {game} cannot be replayed ({kind}: {why}): the store "
            "holds an event the ledger would not have recorded (written outside pulka? see `pulka verify`)"
        ).format(number=number, game=repr(game), kind=type(cause).__name__, why=cause))


class RefusedEventError(Exception):
    """A stored event, its chain intact, that the ledger would not have recorded (written
    with its digests computed anew: eleven tricks, a bid out of turn): nothing is
    recorded onto its game, and a reading command shows it only with the reader's
    consent. ``problem`` names it by number, as ``verify`` does."""

    def __init__(self, game: str, problem: ChainProblem) -> None:
        self.game = game
        self.problem = problem
        super().__init__(_("{problem}; see `pulka verify {game}`").format(problem=problem, game=game))


# How many stored events a judging of a stream takes at a time (what it keeps of them).
JUDGE_BATCH = 1000
FoldedSoFar = Callable[[int], None] | None  # told how many events of a stream are folded so far


def judge_stream(first: LogLine, rest: Iterable[tuple[int, AnyEvent]], clock: Callable[[], str] = now_iso) -> int:
    """Judge a log of one game, read a line at a time, as ``import`` judges it, without a
    store: how many lines after the first it holds. A refusal names its line. What it
    keeps is the game's fold, nothing of the log."""
    judging, started = start_stream(first.line, first.event, clock)
    return judging.run(_judged_count, started, rest, clock)


def _judged_count(judging: Judging[S], started: Start, rest: Iterable[tuple[int, AnyEvent]],
                  clock: Callable[[], str]) -> int:
    return len(judge_events(judging.fold([started]), judging.decide, rest, clock))


def judged_fold(game: str, events: Sequence[AnyEvent], clock: Callable[[], str], trusted: int = 0,
                progress: FoldedSoFar = None) -> tuple[State | None, ChainProblem | None]:
    """A game's stored events judged again, each as it was on its way in (admitted, then
    judged by its kind's judge on the game before it), and folded: the game after them
    and None; or, at the first event that its judge refuses or records otherwise than it
    is stored, what is wrong with it (the state is then of no use). Every stored event
    carries its time, so the clock decides nothing here.

    The events are judged a batch at a time (``JUDGE_BATCH``) and each batch compared with
    what is stored, so judging keeps no second copy of the game: what it costs in memory
    is the fold's own. Judging is the fold with the judge's checks: a command that
    records folds the stored game so, and pays only for the checks.

    ``trusted``: how many first events the ledger judged before, as its judged mark
    vouches (``Store.read``): folded without the checks, and only the rest judged onto
    them, so that a read costs one fold. 0 (what ``verify`` gives): every event judged.
    ``progress(done)`` is told how many events are folded, a batch at a time."""
    if trusted >= 1:
        return judging_of(events[0]).run(_judged_after, game, events, trusted, clock, progress)
    try:
        judging, started = start_stream(1, events[0], clock)
    except Refused as exc:
        return None, _would_be_refused(game, exc)
    if started != events[0]:
        return None, _stored_otherwise(game, 1, events[0], started)
    return judging.run(_judged_from, started, game, events, clock, progress)


def _judged_from(judging: Judging[S], started: Start, game: str, events: Sequence[AnyEvent],
                 clock: Callable[[], str], progress: FoldedSoFar) -> tuple[S | None, ChainProblem | None]:
    """``judged_fold`` of the events after the start, a batch at a time."""
    return _judged_onto_fold(judging, judging.fold([started]), game, events, 1, clock, progress)


def _judged_after(judging: Judging[S], game: str, events: Sequence[AnyEvent], trusted: int,
                  clock: Callable[[], str], progress: FoldedSoFar) -> tuple[S | None, ChainProblem | None]:
    """``judged_fold`` of events whose first ``trusted`` were judged before: those folded
    (a batch at a time, for ``progress``), the rest judged onto them."""
    state = judging.fold([events[0]])
    for begin in range(1, trusted, JUDGE_BATCH):
        for event in events[begin:min(begin + JUDGE_BATCH, trusted)]:
            state.apply(event)
        if progress is not None:
            progress(min(begin + JUDGE_BATCH, trusted))
    return _judged_onto_fold(judging, state, game, events, trusted, clock, progress)


def _judged_onto_fold(judging: Judging[S], state: S, game: str, events: Sequence[AnyEvent], done: int,
                      clock: Callable[[], str], progress: FoldedSoFar) -> tuple[S | None, ChainProblem | None]:
    """Events ``done + 1``.. judged onto ``state`` (the game after the first ``done``), a
    batch at a time."""
    for begin in range(done, len(events), JUDGE_BATCH):
        batch = [(n, events[n - 1]) for n in range(begin + 1, min(begin + JUDGE_BATCH, len(events)) + 1)]
        problem = judged_onto(judging, state, game, batch, clock)
        if problem is not None:
            return None, problem
        if progress is not None:
            progress(batch[-1][0])
    return state, None


def judged_onto(judging: Judging[S], folded: StreamState, game: str, batch: list[tuple[int, AnyEvent]],
                 clock: Callable[[], str]) -> ChainProblem | None:
    """Judge stored events (numbered) onto ``folded``, the game before them (of the kind
    ``judging``), folding each in: the first that its judge refuses or records otherwise
    than it is stored, or None."""
    state = cast(S, folded)
    try:
        again = judge_events(state, judging.decide, batch, clock)
    except Refused as exc:
        return _would_be_refused(game, exc)
    for (number, stored), judged in zip(batch, again, strict=True):
        if stored != judged:
            return _stored_otherwise(game, number, stored, judged)
    return None


def _would_be_refused(game: str, exc: Refused) -> ChainProblem:
    number = exc.line or 1
    return ChainProblem(number, _("event {number} of game {game} would be refused: {why} (the store holds an "
                                  "event the ledger would not have recorded: written outside pulka?)").format(
        number=number, game=repr(game), why=exc.message))


def _stored_otherwise(game: str, number: int, stored: AnyEvent, judged: AnyEvent) -> ChainProblem:
    return ChainProblem(number, _("event {number} of game {game} is stored otherwise than the ledger records it "
                                  "(written outside pulka?): stored {stored}, recorded {recorded}").format(
        number=number, game=repr(game), stored=encode_event(stored).decode(), recorded=encode_event(judged).decode()))


def kind_checked(game: str, stored: Judging[Any], kind: Judging[S]) -> None:
    """Refuse a command for one kind of stream on a game of another."""
    if stored.kind is not kind.kind:
        raise Refused("event-log", _("{game} is {stored}, not {kind}").format(
            game=repr(game), stored=_(stored.kind.noun), kind=_(kind.kind.noun)),
                      _("the commands of a rubber: pulka bridge ...") if stored.name == "rubber"
                      else _("the commands of a pulka"))


def replayed_as(judging: Judging[S], game: str, events: list[AnyEvent]) -> S:
    """The game after ``events``, folded by its kind ``judging`` (``pinpointed``)."""
    return pinpointed(game, events, judging.fold)


def a_game(name: str, first: AnyEvent) -> None:
    """Refuse a stream that is not a game (a tournament, the club register) where a
    game is meant."""
    if isinstance(first, TournamentStarted | ClubStarted):
        if isinstance(first, TournamentStarted):
            raise Refused("event-log", _("{name} is a tournament, not a game").format(name=repr(name)),
                          _("pulka tournament … for a tournament"))
        raise Refused("event-log", _("{name} is the club register, not a game").format(name=repr(name)),
                      _("a game's name"))


def pinpointed(game: str, events: list[AnyEvent], show: Callable[[list[AnyEvent]], T]) -> T:
    """``show(events)``; when that fails, and replaying some first events of the game
    fails too, the event that makes it fail is refused by number (found by halving,
    only on that path). Any other failure is raised as it is."""
    try:
        return show(events)
    except Exception as exc:
        number = _first_failing(events)
        if number is None:
            raise
        raise ImpossibleEventError(game, number, exc) from exc


def _replays(events: list[AnyEvent]) -> bool:
    """Whether the events fold, by their kind, into a state whose sheet can be read."""
    try:
        judging_of(events[0]).totals(events)
    except Exception:
        return False
    return True


def _first_failing(events: list[AnyEvent]) -> int | None:
    """The number of the first event after which the game no longer replays; None when
    it replays whole (or its first event starts no game)."""
    if not events or _replays(events):
        return None
    try:
        judging_of(events[0])
    except Refused:
        return None
    low, high = 1, len(events)  # the first ``high`` events do not replay
    while low < high:
        middle = (low + high) // 2
        if _replays(events[:middle]):
            low = middle + 1
        else:
            high = middle
    return low
