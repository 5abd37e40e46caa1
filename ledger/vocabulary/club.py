"""The club's register of players: a stream of its own that says which written names
are one person.

Names that ``names.name_key`` keeps apart ("Anna P." and "Anna") are joined by an
explicit ``PlayerAliased`` event, recorded once and kept like every other event; the
archive groups a player's pulkas under the name he is an alias of from the time the
alias was recorded. The register is the stream ``@club`` (a name no game may take).
"""

from __future__ import annotations

from ledger.vocabulary.stream import ForeignEvent, StreamStart

CLUB_STREAM = "@club"
RESERVED_PREFIX = "@"  # stream names of the ledger's own; no game or tournament may begin with it


class ClubStarted(StreamStart, ForeignEvent, frozen=True, tag="club_started"):
    """The first event of the register (``game`` is ``@club``)."""


class PlayerAliased(ForeignEvent, frozen=True, tag="player_aliased"):
    """``name`` is written for the player ``same_as`` (compared by ``names.name_key``)."""

    name: str
    same_as: str
