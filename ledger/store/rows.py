"""A stream's rows as the store makes and checks them: each event's row made and chained
after the one before it (``made_rows``), and the topic that an event's number fixes
checked (``topic_problem``, ``topics_intact``), the one column the chain's digests do
not cover; a stream's events kept as its chain is checked page by page
(``chained_events``), and the first problem of a chain that fails named by number
(``named_problem``); a page of a pulka's rows decoded by the decoder of a pulka's events
alone (``pulka_rows``); the game that owns a stream, by its first row (``stream_owner``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from uuid import UUID

import msgspec

from ledger.store.backend import OPENED_TOPIC, RECORDED_TOPIC, STATE_JSON, NewRow, RawRow, State, decode_state, \
    pulka_state_decoder, topic_of
from ledger.store.stored import StoredEvent, game_id
from ledger.vocabulary import language
from ledger.vocabulary.chain import GENESIS, ChainProblem, Unreadable, chain_step, intact_from, link_of, verify_chain
from ledger.vocabulary.events import AnyEvent, StreamStart, encode_event

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
    digest_of = chain_step(game, len(events))
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


def pulka_rows(rows: Sequence[RawRow]) -> list[tuple[int, str, State]] | None:
    """A page of a pulka's rows decoded by the decoder of a pulka's events alone
    (``backend.pulka_state_decoder``), each row's state a ``State`` (a ``PulkaState``) with
    the fields ``decode_state`` gives it; None for a page of another stream, or with a row
    that does not decode, which ``decode_state`` reads (and refuses, naming the row)."""
    quick = pulka_state_decoder()
    try:
        return [(number, topic, quick(state)) for number, topic, state in rows]
    except msgspec.DecodeError:
        return None


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


def chained_events(game: str, pages: Iterable[Sequence[tuple[int, str, State]]]) -> list[AnyEvent] | None:
    """The events of a stream's rows, decoded and read a page at a time, when its chain
    holds (``chain.intact_from`` and ``topics_intact`` on each page as it comes): the
    events alone are kept. None at the first page where it does not hold."""
    events: list[AnyEvent] = []
    previous, count = GENESIS, 0
    for page in pages:
        walked = intact_from(game, page, previous, count + 1)
        if walked is None or not topics_intact(page, count + 1):
            return None
        previous, count = walked, count + len(page)
        events += [state.event for _, _, state in page]
    return events


def named_problem(game: str, rows: Iterable[RawRow]) -> ChainProblem | None:
    """The first problem of a stream's raw rows (all of them, in number order), named by
    event number: a row that no longer decodes, a gap, an insertion, a reordering, a
    digest or a link that does not hold, a topic changed. What ``verify`` says of a
    chain whose quick pass failed."""
    decoded: list[tuple[int, AnyEvent | Unreadable, str]] = []
    topics: list[tuple[int, str]] = []
    links: dict[int, str] = {}
    for number, topic, state in rows:
        topics.append((number, topic))
        try:
            row = decode_state(state)
        except msgspec.DecodeError as exc:
            decoded.append((number, Unreadable(str(exc)), ""))
        else:
            decoded.append((number, row.event, row.digest))
            if row.link is not None:
                links[number] = row.link
    return first_problem(verify_chain(game, decoded, links), topic_problem(topics))


def stream_owner(stream: UUID | str, first: bytes | None,
                 kind: type[StreamStart] | tuple[type[StreamStart], ...] = StreamStart) -> str | None:
    """The game that owns ``stream``, by its row numbered 1 (``first``): a start (of
    ``kind``) in the stream's own id; None when there is none (no such row, one that no
    longer decodes, or one that sits in another stream's id), which ``verify`` names."""
    if first is None or not isinstance(stream, UUID):
        return None
    try:
        event = decode_state(first).event
    except msgspec.DecodeError:
        return None
    return event.game if isinstance(event, kind) and game_id(event.game) == stream else None
