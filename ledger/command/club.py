"""The club's register: recording that two written names are one player.

``alias`` judges and stores a ``PlayerAliased`` in the register stream ``@club`` (made
with its first alias): one load, one decision, one save. An alias joins keys that
``names.name_key`` keeps apart; it is refused when it joins a name to itself, makes a
circle, renames a name already joined to another, or would make one person of two
players who sat at the same table.
"""

from __future__ import annotations

from collections.abc import Sequence

from ledger.command.admission import admit
from ledger.command.checks import is_arbiter
from ledger.command.store import Store, StoredEvent
from ledger.command.views import ensure_views
from ledger.vocabulary.club import CLUB_STREAM, ClubStarted, PlayerAliased
from ledger.vocabulary.names import name_key
from ledger.vocabulary.refusal import Refused
from projections.archive import Alias, PulkaRow, identities


def judge_alias(name: str, same_as: str, aliases: Sequence[Alias], rows: Sequence[PulkaRow]) -> None:
    """Refuse an alias that cannot be: see the module's docstring."""
    if not name.strip() or not same_as.strip():
        raise Refused("club.alias", "both names are needed", "NAME SAME_AS")
    key, other = name_key(name), name_key(same_as)
    if key == other:
        raise Refused("club.alias", f"{name!r} and {same_as!r} are one player already "
                      "(names are compared after Unicode case folding)")
    who = identities(rows, aliases)
    joined = next((a for a in aliases if name_key(a.name) == key), None)
    if joined is not None:
        raise Refused("club.alias", f"{name!r} is written for {joined.same_as!r} already", "another name")
    if who.key(same_as) == key:
        raise Refused("club.alias", f"{same_as!r} is written for {name!r}: the alias would go in a circle")
    mine, theirs = who.key(name), who.key(same_as)
    for row in rows:
        keys = [who.key(p) for p in row.everyone]
        if mine in keys and theirs in keys:
            raise Refused("club.alias", f"{name!r} and {same_as!r} both sat at {row.game}: "
                          "they cannot be one player")


def alias(store: Store, name: str, same_as: str, aliases: Sequence[Alias], rows: Sequence[PulkaRow],
          at: str, by: str | None = None) -> list[StoredEvent]:
    """Record that ``name`` is written for ``same_as``; ``aliases`` and ``rows`` are the
    archive as the command found it (caught up)."""
    event = PlayerAliased(name=name.strip(), same_as=same_as.strip(), at=at, by=by)
    admit(event)
    if by is not None and not is_arbiter(by):
        raise Refused("club.alias", f"the register is kept by an arbiter, not {by!r}", "arbiter:NAME")
    judge_alias(name, same_as, aliases, rows)
    count = store.count(CLUB_STREAM)
    if count:
        return store.append(CLUB_STREAM, [event], expected=count)
    ensure_views(store)
    return store.append(CLUB_STREAM, [ClubStarted(game=CLUB_STREAM, at=at, by=by), event], expected=0)
