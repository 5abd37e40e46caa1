"""A stream's rows as the store makes and checks them: each event's row made and chained
after the one before it (``made_rows``), and the topic that an event's number fixes
checked (``topic_problem``, ``topics_intact``), the one column the chain's digests do
not cover.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import msgspec

from ledger.store.backend import OPENED_TOPIC, RECORDED_TOPIC, STATE_JSON, NewRow, topic_of
from ledger.store.stored import StoredEvent
from ledger.vocabulary import language
from ledger.vocabulary.chain import ChainProblem, chain_step, link_of
from ledger.vocabulary.events import AnyEvent, encode_event

_ = language._  # every text a person reads, in the language in effect


def made_rows(game: str, events: Sequence[AnyEvent], expected: int, previous: str,
               stored: list[StoredEvent]) -> Iterator[NewRow]:
    """The rows of ``events``, numbered from ``expected`` + 1 and chained after the
    digest ``previous``, one at a time (a large import holds no list of its rows), each
    event's ``StoredEvent`` added to ``stored`` as its row is made. Each event is encoded
    once: its bytes are hashed for its digest and stored."""
    new = tuple.__new__  # StoredEvent(...) without its Python-level __new__
    keep = stored.append
    state = STATE_JSON
    digest_of = chain_step(game)
    # The first link is JSON-encoded (a digest passed in or read back may be anything);
    # the rest are hex digits of the digests just computed.
    link = msgspec.json.encode(link_of(previous))
    for number, event in enumerate(events, start=expected + 1):
        event_json = encode_event(event)
        digest = digest_of(previous, number, event_json)
        keep(new(StoredEvent, (number, event, digest)))
        yield number, topic_of(number), state % (event_json, digest.encode(), link)
        link = b'"%b"' % link_of(digest).encode()
        previous = digest


def topic_problem(rows: Iterable[tuple[int, str]]) -> ChainProblem | None:
    """The first row whose topic is not the one its number fixes: the topic column,
    which the chain's digests do not cover, is checked here."""
    for number, topic in rows:
        if topic != topic_of(number):
            return ChainProblem(
                number, _("event {number}: its topic was changed to {topic} (edited?)").format(
                    number=number, topic=repr(topic))
            )
    return None


def topics_intact(rows: Sequence[tuple[int, str, object]], first: int = 1) -> bool:
    """Whether ``topic_problem`` finds nothing wrong with rows numbered ``first``,
    ``first`` + 1, ... (the quick pass of a read, with ``chain.intact_from``, which checks
    the numbers)."""
    if not rows:
        return True
    if first == 1 and rows[0][1] != OPENED_TOPIC:
        return False
    recorded = RECORDED_TOPIC
    return all(topic == recorded for _, topic, _ in (rows[1:] if first == 1 else rows))


def first_problem(*problems: ChainProblem | None) -> ChainProblem | None:
    """The problem at the earliest event (the chain's, when both are at one event)."""
    found = [p for p in problems if p is not None]
    return min(found, key=lambda p: p.number) if found else None
