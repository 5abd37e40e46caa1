"""The club's register: a stream of its own that says which written names are one
person, and which model rates the club.

Names that ``names.name_key`` keeps apart ("Anna P." and "Anna") are joined by an
explicit ``PlayerAliased`` event, recorded once and kept like every other event; the
archive groups a player's pulkas under the name he is an alias of from the time the
alias was recorded. The club's rating model and its parameters are chosen by a
``RatingModelChosen`` (``projections.rating_models``; none recorded: the default), so
that a change of model is an event of the log like any other, and the rating before
and after it can be compared. The register is the stream ``@club`` (a name no game may
take).
"""

# No ``from __future__ import annotations`` here: msgspec reads the events' annotations
# as objects, not strings to evaluate one by one when it builds the decoder of the
# events' union (a third of the decoder's making, on every command's start).

from ledger.vocabulary.stream import ForeignEvent, StreamStart

CLUB_STREAM = "@club"
RESERVED_PREFIX = "@"  # stream names of the ledger's own; no game or tournament may begin with it


class ClubStarted(StreamStart, ForeignEvent, frozen=True, tag="club_started"):
    """The first event of the register (``game`` is ``@club``)."""


class PlayerAliased(ForeignEvent, frozen=True, tag="player_aliased"):
    """``name`` is written for the player ``same_as`` (compared by ``names.name_key``)."""

    name: str
    same_as: str


class RatingModelChosen(ForeignEvent, frozen=True, tag="rating_model_chosen"):
    """From now on the club is rated by ``model`` (``projections.rating_models.MODELS``)
    with ``parameters`` (each as a decimal number's text; the others at the model's
    defaults); ``reason``: why, as the arbiter says it."""

    model: str
    parameters: dict[str, str] = {}
    reason: str | None = None
