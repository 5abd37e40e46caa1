"""What the event store gives and refuses, beside the store itself
(``ledger.store.event_store``): a stream's id (``game_id``), an event as stored, a
reading with the first problem of its chain, a stream's check, an append to make; and
the store's refusals of a stream: changed by someone else since it was read, a hash
chain that does not hold, a row that no longer decodes.
"""

# No ``from __future__ import annotations`` here: typing makes a NamedTuple's fields'
# annotations, given as strings, into references it compiles one by one as the class is
# made, on every command's start; as objects they cost nothing more.

from collections.abc import Sequence
from typing import Literal, NamedTuple
from uuid import UUID

import msgspec

from ledger.store.backend import StoreError
from ledger.vocabulary import language
from ledger.vocabulary.chain import ChainProblem
from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.hashes import uuid5

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_

# Fixed for ever: a game's stream id is derived from its name with it.
NAMESPACE = UUID("0b5a3f3e-6d0c-4f2e-9a55-2f1c6c0a7e11")


def game_id(game: str) -> UUID:
    """The id of a game's event stream."""
    return uuid5(NAMESPACE, game)


class Append(NamedTuple):
    """Events to store in one stream as its numbers ``expected + 1``...; ``previous``: the
    digest of event ``expected`` when the caller has just read it (else the store reads
    it). ``judged``: the ledger has judged every event of the stream up to these, so its
    judged mark is written with them (``Store.read``, ``marked``)."""

    game: str
    events: Sequence[AnyEvent]
    expected: int
    previous: str | None = None
    judged: bool = False


class StoredEvent(NamedTuple):
    """An event as the store holds it: its number in the game, the event, its digest."""

    number: int
    event: AnyEvent
    digest: str


class Reading(msgspec.Struct, frozen=True):
    """Events read for a reading command, and the first problem of their hash chain
    (None when every event read is where it was recorded and unchanged); ``refused``:
    the first event read, its chain intact, that the ledger would not have recorded
    (its judge, ``Ledger.read``, says; the store knows no rules). ``judged``: how many
    of the first events read the stream's judged mark vouches for (0: none; see
    ``Store.read``)."""

    stored: list[StoredEvent]
    problem: ChainProblem | None
    refused: ChainProblem | None = None
    judged: int = 0

    @property
    def events(self) -> list[AnyEvent]:
        return [s.event for s in self.stored]


class Verified(NamedTuple):
    """The check of one stream: the game (or the stream, when no game owns it), how
    many events it holds, and the first problem of its chain (None when intact)."""

    name: str
    events: int
    problem: ChainProblem | None


class UnreadableEventError(StoreError):
    """A stored event no longer decodes (the database was edited); see ``Store.verify``."""


class ConcurrentWriteError(Exception):
    """Someone else appended to a stream (a game, a tournament) after the caller read it:
    to the one the caller writes (``written``), or to one it read to decide."""

    def __init__(self, game: str, expected: int, found: int, *, written: bool = True) -> None:
        self.game = game
        self.expected = expected
        self.found = found
        self.written = written
        super().__init__(_(
            "{game} was changed by someone else: expected {expected} stored "
            "event(s), found {found}; reload it and try again"
        ).format(game=repr(game), expected=expected, found=found))


# The kinds of stream a broken chain's message names, and its message for each.
StreamKind = Literal["game", "tournament", "club register", "accounts"]
BROKEN: dict[StreamKind, str] = {
    "game": N_("the hash chain of game {game} is broken: {problem}; see `pulka verify {name}`"),
    "tournament": N_("the hash chain of tournament {game} is broken: {problem}; see `pulka verify {name}`"),
    "club register": N_("the hash chain of club register {game} is broken: {problem}; see `pulka verify {name}`"),
    "accounts": N_("the hash chain of the accounts' log {game} is broken: {problem}; see `pulka verify {name}`"),
}


class BrokenChainError(Exception):
    """A stream whose hash chain does not check out: nothing is recorded onto it, nor
    judged by it, and reading it needs the reader's explicit consent. ``what`` names its
    kind in the message (a game, a tournament, the club register)."""

    def __init__(self, game: str, problem: ChainProblem, what: StreamKind = "game") -> None:
        self.game = game
        self.problem = problem
        # the problem itself stays in English: it is what the views store (``archive_broken.reason``)
        super().__init__(_(BROKEN[what]).format(game=repr(game), problem=problem, name=game))
