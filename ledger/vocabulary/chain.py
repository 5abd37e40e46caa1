"""Tamper evidence for a pulka: the SHA-256 hash chain over a game's events, and its verifier.

Every stored event carries a digest chained to the one before it in the same game::

    digest_0 = "0" * 64
    digest_n = sha256(digest_{n-1} "\\n" n "\\n" json(game) "\\n" canonical(event_n)).hexdigest()

where ``n`` is the event number in decimal, ``json(game)`` the game name as a JSON
string and ``canonical`` is ``ledger.vocabulary.events.encode_event`` (deterministic msgspec JSON).
No part holds a raw newline, so the hashed bytes split one way only. Binding the number
catches reordering and renumbering, binding the game catches an event spliced in from
another game, and chaining catches an edit, a deletion or an insertion anywhere before
the last event.

Each stored event also records the first ``LINK_LENGTH`` hex digits of the digest it
was chained to (its *link*). The link is not part of any digest: it only says who is
to blame when an event's digest was recomputed after an edit. Without it, such an
edit shows as a break at the *next* event (whose digest was chained to the old one);
with it, the next event is seen to be intact and chained to something else, and the
edited one is named. Changing a link by hand is itself reported.

What the chain cannot catch alone: anyone who can write the database can recompute
every digest after an edit, and can drop events from the end. A game is
tamper-evident against that only against an anchor kept elsewhere: its *head*
(``head_token``: the number of its last event and the start of that event's digest,
short enough to print or photograph) or a saved export. ``compare_head_to`` and
``compare_saved`` name the first difference from such an anchor.

Problems are data (``ChainProblem``), not exceptions, naming the first event that fails.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple, Protocol

import msgspec

from ledger.vocabulary.events import AnyEvent, StreamStart, encode_event
from ledger.vocabulary.hashes import BULK, sha256_for

GENESIS = "0" * 64
LINK_LENGTH = 16  # hex digits of the previous digest an event records (64 bits)
HEAD_LENGTH = 16  # hex digits of the last digest in a head token

# Working out *how* a chain was broken (which event moved where) tries every stored
# digest as the predecessor of every number: quadratic, and only run once a check has
# already failed. Past this many events the verifier names the event and skips the guess.
_DIAGNOSE_LIMIT = 1000


class ChainProblem(NamedTuple):
    """The first event of a game whose place in the hash chain does not check out."""

    number: int
    reason: str

    def __str__(self) -> str:
        return self.reason


class Unreadable(msgspec.Struct, frozen=True):
    """A stored event that could not be decoded; ``error`` says why."""

    error: str


# What an event's digest hashes: the digest before it (hashed as ASCII, "?" for anything
# else: a digest read from a file may be anything), its number, the game's name and the
# event, each as JSON where it is one, a line each. ``linker`` computes it for one event;
# ``chain_encoded`` and ``intact_from``, which walk whole chains, in line.
HASHED = b"%b\n%d\n%b\n%b"


def link(previous: str, game: str, number: int, event: AnyEvent) -> str:
    """The digest of event ``number`` of ``game``, given the digest of the event before it."""
    return linker(game)(previous, number, event)


def linker(game: str, count: int = 1) -> Callable[[str, int, AnyEvent], str]:
    """``link`` for one game, its name encoded once: what a walk along a chain calls
    (of ``count`` events: ``hashes.sha256_for``)."""
    name = msgspec.json.encode(game)
    sha256 = sha256_for(count)

    def link_in_game(previous: str, number: int, event: AnyEvent) -> str:
        hashed = HASHED % (previous.encode("ascii", "replace"), number, name, encode_event(event))
        return sha256(hashed).hexdigest()

    return link_in_game


def link_of(previous: str) -> str:
    """What an event records of the digest it is chained to."""
    return previous[:LINK_LENGTH]


def chain_digests(
    game: str,
    events: Sequence[AnyEvent],
    start_digest: str = GENESIS,
    start_number: int = 1,
) -> list[str]:
    """The digests of ``events``, numbered from ``start_number``, after ``start_digest``.

    To append to a stored game, pass the digest of its last event and its count + 1.
    """
    return chain_encoded(game, [encode_event(event) for event in events], start_digest, start_number)


def chain_encoded(
    game: str,
    encoded: Sequence[bytes],
    start_digest: str = GENESIS,
    start_number: int = 1,
) -> list[str]:
    """``chain_digests`` of events given as their ``encode_event`` bytes: what a writer
    that stores those bytes too hashes, without encoding each event twice."""
    return list(chained(game, encoded, start_digest, start_number))


def chained(
    game: str,
    encoded: Iterable[bytes],
    start_digest: str = GENESIS,
    start_number: int = 1,
) -> Iterator[str]:
    """``chain_encoded`` one event at a time."""
    if start_number < 1:
        raise ValueError(f"event numbers start at 1, not {start_number}")
    step = chain_step(game)
    previous = start_digest
    for number, event in enumerate(encoded, start=start_number):
        previous = step(previous, number, event)
        yield previous


def chain_step(game: str, count: int = BULK) -> Callable[[str, int, bytes], str]:
    """The digest of one event of ``game`` given as its ``encode_event`` bytes, after the
    digest ``previous``: what a writer that stores each row as soon as it is made calls,
    for ``count`` events (``hashes.sha256_for``; many, when the writer does not know)."""
    name = msgspec.json.encode(game)
    sha256 = sha256_for(count)

    def step(previous: str, number: int, event: bytes) -> str:
        return sha256(HASHED % (previous.encode("ascii", "replace"), number, name, event)).hexdigest()

    return step


Row = tuple[int, AnyEvent | Unreadable, str]


def verify_chain(
    game: str, stored: Sequence[Row], links: Mapping[int, str] | None = None
) -> ChainProblem | None:
    """Check a game's events as stored, ``(number, event, digest)`` in stored order,
    and, where given, the link each event records (``links``: number -> link).

    Returns None when every event is where it was recorded and unchanged, else the
    first event that fails and why: edited (digest mismatch; the edited event even
    when its own digest was recomputed, if the event after it records its link),
    unreadable, deleted (a gap in the numbers, or the chain continuing past a missing
    link), inserted, or reordered. An empty sequence verifies clean.
    """
    rows = list(stored)
    links = links or {}
    link_in_game = linker(game, len(rows))
    previous = GENESIS
    expected = 1
    for index, (number, event, digest) in enumerate(rows):
        if number != expected:
            return _misnumbered(number, expected)
        if isinstance(event, Unreadable):
            return ChainProblem(number, f"event {number} cannot be read (edited?): {event.error}")
        if link_in_game(previous, number, event) != digest:
            return _diagnose(game, rows, index, previous, links)
        if number == 1 and not (isinstance(event, StreamStart) and event.game == game):
            # The digest checks out, so the chain was rebuilt around a forged start.
            return ChainProblem(1, f"event 1 is not the start of {game!r} (forged?)")
        recorded = links.get(number)
        if recorded is not None and recorded != link_of(previous):
            return ChainProblem(number, f"event {number}: the link it records to the event before it "
                                        "was changed (edited?)")
        previous = digest
        expected += 1
    return None


class Chained(Protocol):
    """A stored event as its row keeps it: the event, its digest, and the link it
    records to the digest before it (None where none was recorded)."""

    @property
    def event(self) -> AnyEvent: ...

    @property
    def digest(self) -> str: ...

    @property
    def link(self) -> str | None: ...


def intact_from(game: str, rows: Sequence[tuple[int, object, Chained]], previous: str = GENESIS,
                expected: int = 1) -> str | None:
    """Whether ``verify_chain`` finds nothing wrong with a run of a game's rows, given
    as ``(number, anything, stored)`` in stored order, that goes on from event
    ``expected`` - 1, whose digest is ``previous``: the one quick pass a read makes over
    what it read (a page at a time, each page so). It checks what ``verify_chain``
    checks (numbers 1, 2, ... without a gap, the game's start first, every digest, every
    recorded link) and says only whether all of it holds: the digest of its last row
    (``previous`` for no rows), else None; ``verify_chain`` names the first problem of a
    chain that fails. The digests are ``linker``'s, computed in line."""
    if rows and expected == 1:
        first = rows[0][2].event
        if not (isinstance(first, StreamStart) and first.game == game):
            return None
    name = msgspec.json.encode(game)
    encode = encode_event
    sha256 = sha256_for(len(rows))
    for number, _, stored in rows:
        chained = stored.digest
        recorded = stored.link
        if (
            number != expected
            # ``linker``'s digest, in line: this loop runs once for every event read
            or sha256(HASHED % (previous.encode("ascii", "replace"), number, name,
                                encode(stored.event))).hexdigest() != chained
            or (recorded is not None and recorded != previous[:LINK_LENGTH])
        ):
            return None
        previous = chained
        expected += 1
    return previous


# -- anchors: a head digest or a saved export ---------------------------------------------


class Head(NamedTuple):
    """A game's head as a club keeps it: the number of its last event and the start
    of that event's digest (or all of it)."""

    number: int
    digest: str

    def __str__(self) -> str:
        return f"{self.number}:{self.digest}"


_HEAD = r"(\d+):([0-9a-f]{16,64})"


def head_token(number: int, digest: str) -> Head:
    """The head of a game whose last event is ``number`` with ``digest``."""
    return Head(number, digest[:HEAD_LENGTH])


def parse_head(text: str) -> Head | None:
    """``N:HEX`` (16 to 64 hex digits) as a Head; None when the text is not one."""
    found = re.fullmatch(_HEAD, text.strip().lower())
    if found is None:
        return None
    return Head(int(found.group(1)), found.group(2))


def compare_head_to(count: int, digest: str | None, head: Head) -> ChainProblem | None:
    """The first difference between a game of ``count`` events (its stored chain
    intact) whose event ``head.number`` has ``digest`` (None when it has no such event)
    and a head kept elsewhere; None when the store still holds that head: what a store
    can say without reading the game."""
    if head.number < 1:
        return ChainProblem(1, f"{head} is not a head: events are numbered from 1")
    if count < head.number or digest is None:
        missing = f"event {head.number} is" if count + 1 == head.number else f"events {count + 1}-{head.number} are"
        return ChainProblem(count + 1, f"the store has {count} events, the head is event {head.number}: "
                                       f"{missing} missing (truncated?)")
    if not digest.startswith(head.digest):
        return ChainProblem(head.number, f"event {head.number}'s digest is {digest[:len(head.digest)]}, not "
                                         f"{head.digest}: the history up to event {head.number} was changed and "
                                         "chained anew (compare with a saved export to find the event)")
    return None


def compare_saved(
    stored: Iterable[tuple[int, AnyEvent, str]], saved: Iterable[tuple[int, AnyEvent, str]]
) -> ChainProblem | None:
    """The first difference between a game's (intact) stored chain and an (intact)
    saved export of it; None when the store holds every saved event unchanged. Both are
    taken one event at a time (neither need be held whole)."""
    stored_rows = iter(stored)
    held = 0
    last = 0
    for number, event, digest in saved:
        last = number
        stored_row = next(stored_rows, None)
        if stored_row is None:
            continue
        held += 1
        if encode_event(stored_row[1]) != encode_event(event):
            return ChainProblem(number, f"event {number} differs from the saved copy: saved "
                                        f"{encode_event(event).decode()}, stored "
                                        f"{encode_event(stored_row[1]).decode()} (changed?)")
        if stored_row[2] != digest:
            return ChainProblem(number, f"event {number}'s digest differs from the saved copy (chained anew?)")
    if held < last:
        first = held + 1
        missing = f"event {first} is" if first == last else f"events {first}-{last} are"
        return ChainProblem(first, f"the saved copy has {last} events, the store {held}: "
                                   f"{missing} missing (truncated?)")
    return None


def _misnumbered(number: int, expected: int) -> ChainProblem:
    if number > expected:
        if number == expected + 1:
            return ChainProblem(expected, f"event {expected} is missing (deleted?)")
        return ChainProblem(expected, f"events {expected}-{number - 1} are missing (deleted?)")
    return ChainProblem(
        number,
        f"event {number} comes again after event {expected - 1} (inserted or reordered?)",
    )


def _checks(row: Row, game: str, previous: str, number: int) -> bool:
    _, event, digest = row
    return not isinstance(event, Unreadable) and link(previous, game, number, event) == digest


def _diagnose(game: str, rows: list[Row], index: int, previous: str, links: Mapping[int, str]) -> ChainProblem:
    """Why the event at ``rows[index]`` does not follow ``previous``: a best guess."""
    number, event, digest = rows[index]
    assert not isinstance(event, Unreadable)
    following = rows[index + 1] if index + 1 < len(rows) else None

    # Does the content belong somewhere else in this game's chain (moved or copied)?
    if len(rows) <= _DIAGNOSE_LIMIT:
        predecessors = [GENESIS] + [d for _, e, d in rows if not isinstance(e, Unreadable)]
        last = max(n for n, _, _ in rows)
        for original in range(1, last + 2):
            if original == number:
                continue
            if any(link(p, game, original, event) == digest for p in predecessors):
                copied = any(
                    i != index and r[0] == original and r[1] == event and r[2] == digest
                    for i, r in enumerate(rows)
                )
                if copied:
                    return ChainProblem(number, f"event {number} is a copy of event {original} (inserted?)")
                return ChainProblem(number, f"event {number} was recorded as event {original} (reordered?)")

    # The next event follows the one before this: this one was slipped in.
    if following is not None and _checks(following, game, previous, number):
        return ChainProblem(number, f"event {number} is not part of the chain: "
                                    f"the event after it follows event {number - 1} (inserted?)")
    recorded = links.get(number)
    if following is None or _checks(following, game, digest, number + 1):
        # This event's own digest is what the next one was chained to: this row was
        # written as it stands, and either its content was changed, or it was chained
        # to a digest that the event before it no longer has (the link it recorded
        # says which).
        if recorded is not None and number > 1 and recorded != link_of(previous):
            return ChainProblem(number - 1, f"event {number - 1} was changed after event {number} was "
                                            "recorded, and its digest computed anew (edited?)")
        if following is not None or recorded is not None:
            return ChainProblem(number, f"event {number}: digest does not match its content (edited?)")
    elif following is not None:
        # The next event follows this one, but numbered further on: events before
        # this one were removed and the rest renumbered.
        for gap in range(1, len(rows) + 1):
            if _checks(following, game, digest, number + 1 + gap):
                missing = "an event is" if gap == 1 else f"{gap} events are"
                return ChainProblem(number, f"{missing} missing before event {number} (deleted and renumbered?)")
    return ChainProblem(number, f"event {number}: digest does not match its content or the events before it "
                                "(edited?)")
