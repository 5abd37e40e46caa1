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

What it cannot catch alone: anyone who can write the database can recompute every
digest after an edit, and can drop events from the end. A game is tamper-evident
against that only if its last digest is also kept somewhere else (an export, a printed
sheet); ``verify_export`` checks such a copy.

Problems are data (``ChainProblem``), not exceptions, naming the first event that fails.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import NamedTuple

import msgspec

from ledger.vocabulary.events import AnyEvent, StreamStart, encode_event

GENESIS = "0" * 64

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


class Unreadable(NamedTuple):
    """A stored event that could not be decoded; ``error`` says why."""

    error: str


def link(previous: str, game: str, number: int, event: AnyEvent) -> str:
    """The digest of event ``number`` of ``game``, given the digest of the event before it."""
    hashed = b"\n".join(
        (
            previous.encode("ascii"),
            str(number).encode("ascii"),
            msgspec.json.encode(game),
            encode_event(event),
        )
    )
    return hashlib.sha256(hashed).hexdigest()


def chain_digests(
    game: str,
    events: Sequence[AnyEvent],
    start_digest: str = GENESIS,
    start_number: int = 1,
) -> list[str]:
    """The digests of ``events``, numbered from ``start_number``, after ``start_digest``.

    To append to a stored game, pass the digest of its last event and its count + 1.
    """
    if start_number < 1:
        raise ValueError(f"event numbers start at 1, not {start_number}")
    digests: list[str] = []
    previous = start_digest
    for number, event in enumerate(events, start=start_number):
        previous = link(previous, game, number, event)
        digests.append(previous)
    return digests


Row = tuple[int, AnyEvent | Unreadable, str]


def verify_chain(game: str, stored: Sequence[Row]) -> ChainProblem | None:
    """Check a game's events as stored, ``(number, event, digest)`` in stored order.

    Returns None when every event is where it was recorded and unchanged, else the
    first event that fails and why: edited (digest mismatch), unreadable, deleted
    (a gap in the numbers, or the chain continuing past a missing link), inserted,
    or reordered. An empty sequence verifies clean.
    """
    rows = list(stored)
    previous = GENESIS
    expected = 1
    for index, (number, event, digest) in enumerate(rows):
        if number != expected:
            return _misnumbered(number, expected)
        if isinstance(event, Unreadable):
            return ChainProblem(number, f"event {number} cannot be read (edited?): {event.error}")
        if link(previous, game, number, event) != digest:
            return ChainProblem(number, _diagnose(game, rows, index, previous))
        if number == 1 and not (isinstance(event, StreamStart) and event.game == game):
            # The digest checks out, so the chain was rebuilt around a forged start.
            return ChainProblem(1, f"event 1 is not the start of {game!r} (forged?)")
        previous = digest
        expected += 1
    return None


# An export travels as JSON lines; once parsed into (number, event, digest) it is
# checked exactly like the stored rows.
verify_export = verify_chain


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


def _diagnose(game: str, rows: list[Row], index: int, previous: str) -> str:
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
                    return f"event {number} is a copy of event {original} (inserted?)"
                return f"event {number} was recorded as event {original} (reordered?)"

    if following is not None:
        # The next event follows the one before this: this one was slipped in.
        if _checks(following, game, previous, number):
            return (
                f"event {number} is not part of the chain: "
                f"the event after it follows event {number - 1} (inserted?)"
            )
        # The next event follows this one's digest: this one's content was changed.
        if _checks(following, game, digest, number + 1):
            return f"event {number}: digest does not match its content (edited?)"
        # The next event follows this one, but numbered further on: events before
        # this one were removed and the rest renumbered.
        for gap in range(1, len(rows) + 1):
            if _checks(following, game, digest, number + 1 + gap):
                missing = "an event is" if gap == 1 else f"{gap} events are"
                return f"{missing} missing before event {number} (deleted and renumbered?)"
    return f"event {number}: digest does not match its content or the events before it (edited?)"
