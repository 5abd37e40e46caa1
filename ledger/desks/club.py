"""The club register's desk: recording that two written names are one player, and the
club's choice of its rating's model.

``record_alias`` judges (``ledger.judge.register.judge_alias``) and stores a ``PlayerAliased``
in the register stream ``@club`` (made with its first event, and the archive's views
with it): one load, one decision, one save. ``record_model`` does the same for a
``RatingModelChosen`` (``judge_model``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.judge.admission import admit
from ledger.judge.checks import is_arbiter
from ledger.judge.register import judge_alias, judge_model
from ledger.store.event_store import Store
from ledger.store.stored import StoredEvent
from ledger.views.archive import ensure_views
from ledger.vocabulary import language
from ledger.vocabulary.club import CLUB_STREAM, ClubStarted, PlayerAliased, RatingModelChosen
from ledger.vocabulary.events import AnyEvent
from ledger.vocabulary.refusal import Refused
from projections.archive import Alias, PulkaRow

_ = language._  # every text a person reads, in the language in effect


def record_alias(store: Store, name: str, same_as: str, aliases: Sequence[Alias], rows: Sequence[PulkaRow],
                 at: str, by: str | None = None) -> list[StoredEvent]:
    """Record that ``name`` is written for ``same_as``; ``aliases`` and ``rows`` are the
    archive as the command found it (caught up)."""
    event = PlayerAliased(name=name.strip(), same_as=same_as.strip(), at=at, by=by)
    admit(event)
    if by is not None and not is_arbiter(by):
        raise Refused("club.alias", _("the register is kept by an arbiter, not {by}").format(by=repr(by)),
                      "arbiter:NAME")
    judge_alias(name, same_as, aliases, rows)
    return _stored(store, event, at, by)


def record_model(store: Store, model: str, parameters: dict[str, str], reason: str | None, at: str,
                 by: str | None = None) -> list[StoredEvent]:
    """Record that the club is rated by ``model`` with ``parameters`` from now on."""
    event = RatingModelChosen(model=model.strip(), parameters=parameters, reason=reason, at=at, by=by)
    admit(event)
    judge_model(event)
    return _stored(store, event, at, by)


def _stored(store: Store, event: AnyEvent, at: str, by: str | None) -> list[StoredEvent]:
    """``event`` appended to the register, which its first event makes."""
    count = store.count(CLUB_STREAM)
    if count:
        return store.append(CLUB_STREAM, [event], expected=count)
    ensure_views(store)  # made with the first stream: the register's
    return store.append(CLUB_STREAM, [ClubStarted(game=CLUB_STREAM, at=at, by=by), event], expected=0)
