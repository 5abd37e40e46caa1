"""The store's rows as eventsourcing's own application sees them, for readers that follow
the whole store through eventsourcing's machinery (the views' projection runner).

The ledger's own commands never come here: they read and write through the recorders
(``event_store``, ``sqlite``, ``postgres``), without a domain-event object or a
mapper per row. This module gives eventsourcing what its ``Application`` needs to read
the same rows: ``LedgerApplication`` (named "Pulka", so that its PostgreSQL table is
``pulka_events``), ``Recorded`` and ``Opened`` (the domain events, one per topic), and
``MsgspecMapper`` (eventsourcing 9.5.6 has no msgspec mapper), selected by the
``MAPPER_TOPIC`` in a store's ``env``.
"""

from __future__ import annotations

from uuid import UUID

import msgspec
from eventsourcing.application import Application
from eventsourcing.domain import DomainEventProtocol
from eventsourcing.persistence import Mapper, MapperDeserialisationError
from eventsourcing.persistence import StoredEvent as Row
from eventsourcing.utils import Environment, EnvType

from ledger.store.backend import OPENED_TOPIC, RECORDED_TOPIC, State, decode_state, encode_state
from ledger.vocabulary.events import AnyEvent

__all__ = ["LedgerApplication", "MsgspecMapper", "Opened", "Recorded"]


class Recorded(msgspec.Struct, frozen=True, kw_only=True):
    """One event of a game as an eventsourcing domain event: stream id, number, digest,
    and the link to the digest before it (absent from old rows)."""

    originator_id: UUID
    originator_version: int
    event: AnyEvent
    digest: str
    link: str | None = None


class Opened(Recorded, frozen=True, kw_only=True):
    """The first record of a game (its start): a class of its own for its topic."""


# A fixed table of topics, not resolve_topic(): a topic read from the database must
# never make us import whatever module it names.
_RECORD_TYPES: dict[str, type[Recorded]] = {RECORDED_TOPIC: Recorded, OPENED_TOPIC: Opened}
_TOPICS: dict[type[Recorded], str] = {cls: topic for topic, cls in _RECORD_TYPES.items()}


class MsgspecMapper(Mapper[UUID]):
    """Maps ``Recorded`` structs to stored events and back with the store's msgspec JSON.

    eventsourcing's own Mapper reads ``vars(event)``, which msgspec structs don't have.
    The transcoder it is given is not used; a configured compressor or cipher is.
    """

    def to_stored_event(self, domain_event: DomainEventProtocol[UUID]) -> Row:
        if not isinstance(domain_event, Recorded):
            raise TypeError(f"not a pulka record: {domain_event!r}")
        state = encode_state(State(domain_event.event, domain_event.digest, domain_event.link))
        if self.compressor:
            state = self.compressor.compress(state)
        if self.cipher:
            state = self.cipher.encrypt(state)
        return Row(
            originator_id=domain_event.originator_id,
            originator_version=domain_event.originator_version,
            topic=_TOPICS[type(domain_event)],
            state=state,
        )

    def to_domain_event(self, stored_event: Row) -> Recorded:
        cls = _RECORD_TYPES.get(stored_event.topic)
        if cls is None:
            raise MapperDeserialisationError(f"unknown topic {stored_event.topic!r}")
        try:
            state = stored_event.state
            if self.cipher:
                state = self.cipher.decrypt(state)
            if self.compressor:
                state = self.compressor.decompress(state)
            decoded = decode_state(state)
        except Exception as exc:  # any undecodable bytes, whatever raised it
            raise MapperDeserialisationError(str(exc)) from exc
        originator_id = stored_event.originator_id
        return cls(
            originator_id=originator_id if isinstance(originator_id, UUID) else UUID(originator_id),
            originator_version=stored_event.originator_version,
            event=decoded.event,
            digest=decoded.digest,
            link=decoded.link,
        )


class LedgerApplication(Application[UUID]):
    # The name prefixes eventsourcing's PostgreSQL table: "pulka_events".
    name = "Pulka"

    def construct_env(self, name: str, env: EnvType | None = None) -> Environment:
        # Configured by the store's env alone: eventsourcing would also read
        # os.environ, where a stray PERSISTENCE_MODULE or POSTGRES_* would silently
        # send the ledger to another database.
        return Environment(name, dict(env or {}))
